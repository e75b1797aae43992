//go:build !race

// Allocation counts are checked without the race detector only: under it
// sync.Pool drops items and the runtime allocates more.

package codec

import "testing"

// checkAllocs fails t unless f allocates want times a run.
func checkAllocs(t *testing.T, what string, want float64, f func()) {
	t.Helper()
	if got := testing.AllocsPerRun(20, f); got != want {
		t.Errorf("%s %v allocations, want %v", what, got, want)
	}
}

// checkAllocsAtMost fails t if f allocates more than max times a run.
func checkAllocsAtMost(t *testing.T, what string, max float64, f func()) {
	t.Helper()
	if got := testing.AllocsPerRun(5, f); got > max {
		t.Errorf("%s: %v allocations, want at most %v", what, got, max)
	}
}
