package zerocopy

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
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
// table, allocates nothing, with a Snapshot reused frame after frame once
// its node table has grown (TestSnapshotTableGrowth).
func TestSnapshotAllocs(t *testing.T) {
	p := snapshotPayload(t, 5000, 11)
	var v Snapshot
	var w Walker
	for range 2 {
		if err := v.Parse(p); err != nil {
			t.Fatal(err)
		}
	}
	if v.nRecs != v.NumNodes() {
		t.Fatalf("%d of %d nodes in the table", v.nRecs, v.NumNodes())
	}
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

// TestSnapshotTableGrowth: the first Parse of a Snapshot allocates
// nothing; the second allocates its node table, once; later frames of a
// size met before allocate nothing, and a larger one grows the table
// once more.
//
// The counts are process-wide (runtime.MemStats): a finalizer or another
// goroutine allocating during a Parse shows up as the Parse's. So the
// counts are taken with one P and no collection, and the sequence runs
// again on a fresh Snapshot, up to three times, until one run keeps every
// budget. The table checks hold on every run.
func TestSnapshotTableGrowth(t *testing.T) {
	small, large := snapshotPayload(t, 400, 3), snapshotPayload(t, 3000, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	steps := []struct {
		p      []byte
		allocs uint64
		table  bool
	}{
		{small, 0, false}, // the first frame: no table
		{small, 1, true},  // the table, for the size met before
		{small, 0, true},
		{large, 0, false}, // larger than the table: its trees read from the bytes
		{large, 1, true},  // grown
		{small, 0, true},
		{large, 0, true},
	}
	var over []string
	for attempt := 0; attempt < 3; attempt++ {
		over = over[:0]
		v := new(Snapshot)
		for i, step := range steps {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := v.Parse(step.p)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if a := after.Mallocs - before.Mallocs; a > step.allocs {
				over = append(over, fmt.Sprintf("parse %d: %d allocations, want %d", i, a, step.allocs))
			}
			if full := v.nRecs == v.NumNodes() && v.nRecs > 0; full != step.table {
				t.Fatalf("parse %d: %d of %d nodes in the table", i, v.nRecs, v.NumNodes())
			}
			if _, err := v.ToOwned(); err != nil {
				t.Fatalf("parse %d: %v", i, err)
			}
		}
		if len(over) == 0 {
			return
		}
		t.Logf("run %d: %s", attempt+1, strings.Join(over, "; "))
	}
	t.Errorf("over budget in all three runs; the last: %s", strings.Join(over, "; "))
}
