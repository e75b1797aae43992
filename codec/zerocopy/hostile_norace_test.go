//go:build !race

// Allocation bounds, counted without the race detector only: its runtime
// allocates for itself.

package zerocopy

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// TestHostileViewsAllocation: no view of a hostile frame's payload
// (../testdata/hostile) allocates more than allocbound.Hostile of
// its size: the views reserve nothing, whatever a head claims, and what
// they allocate is their error (its message and field path), which does
// not grow with the frame.
func TestHostileViewsAllocation(t *testing.T) {
	for name, got := range allocbound.CheckHostile(t, "../testdata/hostile", func(name string, p []byte) {
		var v Snapshot
		var ev EventView
		Header(p)
		ParseRequest(p)
		ev.Parse(p)
		if v.Parse(p) == nil {
			t.Errorf("%s: parsed", name)
		}
	}) {
		if got > 64<<10 {
			t.Errorf("%s: the views allocated %d bytes for their errors", name, got)
		}
		t.Logf("%-24s %d bytes", name, got)
	}
}

// TestHonestParseAllocation: parsing a valid snapshot of the densest
// kind (nodes of the least bytes, with and without a scroll each)
// allocates nothing.
func TestHonestParseAllocation(t *testing.T) {
	for _, scrolls := range []bool{false, true} {
		root := &codec.Node{ID: 1, Children: make([]codec.Node, 40_000)}
		for i := range root.Children {
			if scrolls {
				root.Children[i].Scroll = &codec.Scroll{}
			}
		}
		p, err := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: &codec.Snapshot{Strings: []string{"V"}, Windows: []codec.Window{{ID: 1, Root: root}}}})
		if err != nil {
			t.Fatal(err)
		}
		n := len(p)
		allocbound.Fresh()
		var v Snapshot
		allocbound.Check(t, "Parse", n, 0, func() {
			if err := v.Parse(p); err != nil {
				t.Fatal(err)
			}
		})
	}
}
