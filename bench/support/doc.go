// Package support holds what the benchmarks and the golden tests share:
// seeded, deterministic inputs (snapshots of N nodes, client streams), the
// reference codec's twin types with its options set to check what ours
// checks, and allocation counting around timed loops.
package support
