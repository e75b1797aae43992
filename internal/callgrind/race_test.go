//go:build race

package callgrind

// raceBuild: the race detector's shadow memory does not run under valgrind.
const raceBuild = true
