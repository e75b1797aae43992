package zerocopy

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
)

var sink uint64

// readAll reads every field of a node, the strings byte by byte, so that
// nothing is optimized away.
func readNode(n *NodeView) uint64 {
	s := uint64(n.ID) + uint64(n.Class) + uint64(n.Flags) + uint64(len(n.ClassName))
	s += uint64(n.Bounds.Left) + uint64(n.Bounds.Top) + uint64(n.Bounds.Right) + uint64(n.Bounds.Bottom)
	for _, o := range [...]codec.Opt[string]{n.Text, n.Desc, n.ResName, n.Hint, n.State} {
		if o.Ok {
			for i := 0; i < len(o.Val); i++ {
				s += uint64(o.Val[i])
			}
		}
	}
	if v, ok := n.ResPkg.Get(); ok {
		s += uint64(v)
	}
	if sc, ok := n.Scroll.Get(); ok {
		s += uint64(sc.Axis) + uint64(sc.Flags)
		if r, ok := sc.Range.Get(); ok {
			s += uint64(r.Unit) + uint64(r.Lo) + uint64(r.Hi)
		}
		if p, ok := sc.Position.Get(); ok {
			s += uint64(p.Lo) + uint64(p.Hi)
		}
	}
	return s
}

func readWindow(w *WindowView) uint64 {
	s := uint64(w.ID) + uint64(w.Type) + uint64(w.Layer) + uint64(w.Flags) + uint64(w.Bounds.Right)
	s += uint64(len(w.Title.Val)) + uint64(w.Package.Val) + uint64(w.Owner.Val)
	if w.EmitsEvents.Val {
		s++
	}
	if w.Modal {
		s++
	}
	return s
}

// TestSnapshotAllocs: validating a 5 000-node snapshot and walking it,
// reading every field of every window and node and the whole string
// table, allocates nothing.
func TestSnapshotAllocs(t *testing.T) {
	p := snapshotPayload(t, 5000, 11)
	var v Snapshot
	var w Walker
	nodes := 0
	allocs := testing.AllocsPerRun(20, func() {
		if err := v.Parse(p); err != nil {
			t.Fatal(err)
		}
		var s uint64
		for it := v.Strings(); it.Next(); {
			s += uint64(len(it.String()))
		}
		nodes = 0
		for w.Reset(&v); w.Next(); {
			if n := w.Node(); n != nil {
				s += readNode(n) + uint64(w.Depth())
				nodes++
			} else {
				s += readWindow(w.Window())
			}
		}
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		sink += s
	})
	if nodes < 5000 || nodes != v.NumNodes() {
		t.Fatalf("walked %d nodes, view has %d", nodes, v.NumNodes())
	}
	if allocs != 0 {
		t.Errorf("parse and walk: %v allocations", allocs)
	}
	// Walk with a callback, and Header, allocate nothing either.
	allocs = testing.AllocsPerRun(20, func() {
		if _, err := Header(p); err != nil {
			t.Fatal(err)
		}
		if err := v.Parse(p); err != nil {
			t.Fatal(err)
		}
		var s uint64
		v.Walk(func(win WindowView, n NodeView, depth int) bool {
			if depth == 0 {
				s += readWindow(&win)
			} else {
				s += readNode(&n)
			}
			return true
		})
		sink += s
	})
	if allocs != 0 {
		t.Errorf("parse and Walk: %v allocations", allocs)
	}
}

// TestSnapshotAllocsFresh: a Snapshot and Walker declared per frame (on
// the stack) allocate nothing either.
func TestSnapshotAllocsFresh(t *testing.T) {
	p := snapshotPayload(t, 5000, 12)
	allocs := testing.AllocsPerRun(10, func() {
		var v Snapshot
		if err := v.Parse(p); err != nil {
			t.Fatal(err)
		}
		var w Walker
		var s uint64
		for w.Reset(&v); w.Next(); {
			if n := w.Node(); n != nil {
				s += readNode(n)
			}
		}
		sink += s
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}
