//go:build !race

// Allocation counts of the slab decoder. Left out of race builds: the race
// detector adds allocations of its own and makes sync.Pool drop items at
// random, so a count taken there means nothing (make test runs these in the
// plain run).

package codec

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestSlabsLearnSnapshotSize: after one snapshot the decoder sizes the
// next one's node slab from it, so a steady stream of like snapshots
// takes one node chunk each; the snapshot's scrolls live in the arena of
// its copied input; and windows up to inlineWindows come with the
// response.
func TestSlabsLearnSnapshotSize(t *testing.T) {
	tree := &Node{ID: 1, Children: make([]Node, 400), Scroll: &Scroll{Axis: 1}}
	for i := range tree.Children {
		tree.Children[i] = Node{ID: uint32(i + 2), Text: Some("item text"), Scroll: &Scroll{Axis: 1}}
	}
	snap := &Snapshot{Strings: []string{"a"}, Windows: []Window{{ID: 1, Root: tree}, {ID: 2}, {ID: 3}}}
	b, err := Marshal(&Response{ID: 1, Method: MethodSnapshot, Result: snap})
	if err != nil {
		t.Fatal(err)
	}
	d := new(decoder)
	decodeSnap := func() *Snapshot {
		d.Decoder.Reset(b)
		d.src, d.copyInput, d.own = b, true, nil
		m, err := d.message()
		d.slab, d.scrolls, d.winBuf = nil, nil, nil
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Response).Result.(*Snapshot)
	}
	decodeSnap()
	if d.nodeLen == 0 || d.scrollGap == 0 {
		t.Fatalf("nothing learned: %d bytes per node, %d per scroll", d.nodeLen, d.scrollGap)
	}
	got := decodeSnap()
	if !reflect.DeepEqual(got, snap) {
		t.Fatal("the snapshot read back differs")
	}
	kids := got.Windows[0].Root.Children
	if len(got.Windows) != 3 || cap(got.Windows) != 3 {
		t.Fatalf("%d windows with room for %d: not capped at their count", len(got.Windows), cap(got.Windows))
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(d.own)))
	sc := uintptr(unsafe.Pointer(kids[399].Scroll))
	end := base + uintptr(len(d.own))
	if room := 8 + 2*401*unsafe.Sizeof(Scroll{}); sc < end || sc >= end+room {
		t.Error("the last scroll is not in the room after the input's copy")
	}
	if uintptr(unsafe.Pointer(kids[0].Scroll))%unsafe.Alignof(Scroll{}) != 0 {
		t.Error("a misaligned scroll")
	}
	allocs := testing.AllocsPerRun(20, func() { decodeSnap() })
	// The response, the input's copy with the scrolls, the string
	// table, the node slab.
	if allocs != 4 {
		t.Errorf("a learned snapshot decodes with %v allocations, want 4", allocs)
	}
}

// TestSlabsAfterSparseSnapshot: a decoder that learned from a snapshot
// of large nodes reads one of tiny nodes in many small arrays in few
// chunks: each chunk is at least twice the last.
func TestSlabsAfterSparseSnapshot(t *testing.T) {
	tiny := &Node{ID: 1, Children: make([]Node, 300)}
	for i := range tiny.Children {
		tiny.Children[i].Children = make([]Node, 9)
	}
	b, err := Marshal(&Response{ID: 1, Method: MethodSnapshot, Result: &Snapshot{Strings: []string{}, Windows: []Window{{ID: 1, Root: tiny}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := new(decoder)
	d.src, d.copyInput = b, true
	allocs := testing.AllocsPerRun(5, func() {
		d.Decoder.Reset(b)
		d.own, d.slab, d.scrolls = nil, nil, nil
		d.nodeLen = 4000 // as if the last snapshot had 4 KB of text a node
		if _, err := d.message(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 12 {
		t.Errorf("3001 tiny nodes in 301 arrays after a sparse snapshot: %v allocations", allocs)
	}
}
