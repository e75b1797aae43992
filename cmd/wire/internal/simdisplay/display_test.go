package simdisplay

import (
	"slices"
	"testing"
	"time"
)

func TestSeedDecidesTheChanges(t *testing.T) {
	counts := func(seed uint64) []int {
		d := New(100, 200, seed, time.Unix(0, 0))
		var out []int
		for i := range 20 {
			d.Tick(time.Unix(int64(i), 0))
			out = append(out, d.Count())
		}
		return out
	}
	a, b, c := counts(1), counts(1), counts(2)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different changes: %v %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("seeds 1 and 2 change the display alike: %v", a)
	}
}
