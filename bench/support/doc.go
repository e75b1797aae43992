// Package support holds what the benchmarks share: seeded, deterministic
// inputs (snapshots of N nodes, client streams) and allocation and
// instruction counting around timed loops. The peers' twins are in
// package twins.
package support
