//go:build race

package codec

import "testing"

// checkAllocs counts nothing under the race detector (see
// allocs_norace_test.go); f still runs once.
func checkAllocs(t *testing.T, what string, want float64, f func()) { f() }

// checkAllocsAtMost counts nothing under the race detector either.
func checkAllocsAtMost(t *testing.T, what string, max float64, f func()) { f() }
