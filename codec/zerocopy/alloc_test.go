//go:build !race

// Allocation counts. Left out of race builds: the race detector adds
// allocations of its own and makes sync.Pool drop items at random, so a
// count taken there means nothing. make test runs them in the plain run.

package zerocopy

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

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
	// Header allocates nothing either.
	if allocs = testing.AllocsPerRun(20, func() { Header(p) }); allocs != 0 {
		t.Errorf("Header: %v allocations", allocs)
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
			if _, err := toOwned(v); err != nil {
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

func TestHeaderEventAllocs(t *testing.T) {
	for _, g := range goldenFrames(t) {
		p := g.payload
		if a := testing.AllocsPerRun(100, func() { Header(p) }); a != 0 {
			t.Errorf("%s: Header allocates %v times", g.name, a)
		}
		var e EventView
		if a := testing.AllocsPerRun(100, func() { e.Parse(p) }); a != 0 && e.Known {
			t.Errorf("%s: EventView.Parse allocates %v times", g.name, a)
		}
	}
}

// TestRequestAllocs: parsing a golden request and reading its params
// allocates nothing (TestRequestGolden checks what they read).
func TestRequestAllocs(t *testing.T) {
	for _, g := range goldenFrames(t) {
		p := g.payload
		if _, err := ParseRequest(p); err != nil {
			continue
		}
		if a := testing.AllocsPerRun(50, func() {
			v, _ := ParseRequest(p)
			v.Params.Int32(0)
			v.Params.Text(0)
		}); a != 0 {
			t.Errorf("%s: %v allocations", g.name, a)
		}
	}
}
