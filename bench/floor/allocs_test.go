//go:build !race

// Allocation counts: the race detector adds allocations of its own.

package floor

import "testing"

// TestWalkAllocs: a walk allocates nothing up to inlineDepth levels of
// nesting (every message but the deep-tree sample), and a few growths of
// its stack beyond, up to MaxDepth.
func TestWalkAllocs(t *testing.T) {
	for name, b := range encodings(t) {
		budget := 0.0
		if name == "response_snapshot_deep" {
			budget = 4
		}
		if a := testing.AllocsPerRun(5, func() {
			if err := Walk(b); err != nil {
				t.Fatal(err)
			}
		}); a > budget {
			t.Errorf("%s: %v allocations, want at most %v", name, a, budget)
		}
	}
	deep := nested(MaxDepth)
	if a := testing.AllocsPerRun(5, func() { _ = Walk(deep) }); a > 4 {
		t.Errorf("nesting %d deep: %v allocations, want at most 4", MaxDepth, a)
	}
}
