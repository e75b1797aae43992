package zerocopy

import "testing"

// TestTailTable: the walk agrees with the codec whether the validation
// pass recorded the tails it jumps to or the table overflowed and it
// skips (TestSnapshotGenerated compares both ways of every snapshot).
func TestTailTable(t *testing.T) {
	small, big := 0, 0
	for _, nodes := range []int{50, 500, 5000, 40000} {
		var v Snapshot
		if err := v.Parse(snapshotPayload(t, nodes, 3)); err != nil {
			t.Fatal(err)
		}
		if v.tails.n >= tailSlots {
			big++
		} else if v.tails.n > 0 {
			small++
		}
		t.Logf("%d nodes: %d tails recorded", nodes, v.tails.n)
	}
	if small == 0 || big == 0 {
		t.Errorf("want snapshots with a partly filled and a full table: %d, %d", small, big)
	}
	if !checkSnapshot(t, "40000 nodes", snapshotPayload(t, 40000, 3)) {
		t.Error("not compared")
	}
	// Without the table, the walk skips and reads the same.
	p := snapshotPayload(t, 2000, 8)
	var v Snapshot
	if err := v.Parse(p); err != nil {
		t.Fatal(err)
	}
	a, _ := toOwned(&v)
	v.tails.clear()
	b, _ := toOwned(&v)
	if !equalSnap(a, b) {
		t.Error("the walk reads otherwise without the tail table")
	}
	var tt tailTable
	for i := 0; i < tailSlots; i++ {
		if s := tt.reserve(i*7 + 1); s != i {
			t.Fatalf("reserve(%d) = %d, want slot %d", i*7+1, s, i)
		}
		tt.set(i, i*7+5)
	}
	if s := tt.reserve(tailSlots*7 + 1); s != -1 {
		t.Errorf("reserve in a full table = %d", s)
	}
	// In order, every other one: all found, the cursor moving forward.
	cur := 0
	for i := 0; i < tailSlots; i += 2 {
		if end, ok := tt.get(i*7+1, &cur); !ok || end != i*7+5 {
			t.Fatalf("get(%d) = %d, %v", i*7+1, end, ok)
		}
		if end, ok := tt.get(i*7+1, &cur); !ok || end != i*7+5 {
			t.Fatalf("get(%d) again = %d, %v", i*7+1, end, ok)
		}
	}
	if _, ok := tt.get(tailSlots*7*2+1, &cur); ok {
		t.Error("found a key never reserved")
	}
	if _, ok := tt.get(1, &cur); ok {
		t.Error("found a key behind the cursor")
	}
	// Out of order, unset and unrecordable entries.
	tt.clear()
	if tt.reserve(100) != 0 || tt.reserve(100) != -1 || tt.reserve(50) != -1 || tt.reserve(-1) != -1 || tt.reserve(1<<32) != -1 {
		t.Error("reserve accepts an offset not past the last one")
	}
	if s := tt.reserve(200); s != 1 {
		t.Fatalf("reserve(200) = %d", s)
	}
	tt.set(1, 300)
	cur = 0
	if _, ok := tt.get(100, &cur); ok {
		t.Error("found an entry whose end was never set")
	}
	if end, ok := tt.get(200, &cur); !ok || end != 300 {
		t.Errorf("get(200) = %d, %v", end, ok)
	}
}
