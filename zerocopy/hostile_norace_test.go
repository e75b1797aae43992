//go:build !race

// Allocation bounds, counted without the race detector only: its runtime
// allocates for itself.

package zerocopy

import (
	"testing"

	"github.com/wirebench/wirebench/internal/allocbound"
)

// TestHostileViewsAllocation: no view of a hostile frame's payload
// (../codec/testdata/hostile) allocates more than allocbound.Hostile of
// its size: the views reserve nothing, whatever a head claims, and what
// they allocate is their error (its message and field path), which does
// not grow with the frame.
func TestHostileViewsAllocation(t *testing.T) {
	for name, frame := range allocbound.Frames(t, "../codec/testdata/hostile") {
		p := frame[4:]
		allocbound.Fresh()
		var v Snapshot
		var ev EventView
		got := allocbound.Check(t, name, len(p), allocbound.Hostile(len(p)), func() {
			Header(p)
			ParseRequest(p)
			ev.Parse(p)
			if v.Parse(p) == nil {
				t.Errorf("%s: parsed", name)
				v.ToOwned()
			}
		})
		if got > 64<<10 {
			t.Errorf("%s: the views allocated %d bytes for their errors", name, got)
		}
		t.Logf("%-24s %d bytes", name, got)
	}
}
