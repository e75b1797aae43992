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
		if v.tails.n >= tailSlots*3/4 {
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
	a, _ := v.ToOwned()
	v.tails.clear()
	b, _ := v.ToOwned()
	if !equalSnap(a, b) {
		t.Error("the walk reads otherwise without the tail table")
	}
	var tt tailTable
	for i := 0; i < tailSlots; i++ {
		tt.put(i*7+1, i)
	}
	for i := 0; i < tailSlots*3/4; i++ {
		if end, ok := tt.get(i*7 + 1); !ok || end != i {
			t.Fatalf("get(%d) = %d, %v", i*7+1, end, ok)
		}
	}
	if _, ok := tt.get(tailSlots*7*2 + 1); ok {
		t.Error("found a key never put")
	}
}
