//go:build !race

// Allocation counts and bounds of the tree, counted without the race
// detector only: its runtime allocates for itself.

package codec_test

import (
	"strconv"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// appSnapshot is a snapshot of n nodes shaped as an app's: lists of
// items with texts and resource names, a scroll here and there.
func appSnapshot(n int) *codec.Snapshot {
	root := &codec.Node{ID: 1, Bounds: codec.Bounds{0, 0, 1080, 2400}, Flags: schema.NodeVisible}
	id := uint32(2)
	for len(root.Children)*5 < n-1 {
		item := codec.Node{ID: id, Class: 1, Bounds: codec.Bounds{0, int32(id) * 10, 1080, int32(id)*10 + 120}, Flags: schema.NodeClickable | schema.NodeVisible,
			ResPkg: codec.Some(uint32(2)), ResName: "item_row", Scroll: nil}
		id++
		for k := 0; k < 4 && int(id) <= n; k++ {
			item.Children = append(item.Children, codec.Node{ID: id, Class: 3, Bounds: codec.Bounds{16, 20, 800, 60}, Text: "Item " + strconv.Itoa(int(id)), Desc: "", ResName: "title"})
			id++
		}
		if id%7 == 0 {
			item.Scroll = &codec.Scroll{Axis: schema.ScrollVertical, Flags: schema.ScrollForward}
		}
		root.Children = append(root.Children, item)
	}
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.LinearLayout", "com.example.app", "android.widget.TextView"},
		Windows: []codec.Window{{ID: 1, Type: 1, Bounds: root.Bounds, Flags: schema.WindowActive | schema.WindowFocused, Package: codec.Some(uint32(2)), Root: root}},
		Seq:     42,
	}
}

// TestTreeAllocs: a fresh tree of a canonical snapshot response costs
// two allocations (its header and its block), and keeps at most 60 % of
// the memory Decode's Snapshot takes.
func TestTreeAllocs(t *testing.T) {
	b := mustMarshal(t, &codec.Response{ID: 5, Method: codec.MethodSnapshot, Result: appSnapshot(500)})
	if !checkTree(t, b) {
		t.Fatal("the snapshot did not take the fast reader")
	}
	codec.CheckAllocsAtMost(t, "DecodeTree", 2, func() {
		if _, err := codec.DecodeTree(b); err != nil {
			t.Fatal(err)
		}
	})
	tree := allocbound.Check(t, "DecodeTree", len(b), 1<<30, func() { _, _ = codec.DecodeTree(b) })
	snap := allocbound.Check(t, "Decode", len(b), 1<<30, func() { _, _ = codec.Decode(b) })
	if 10*tree > 6*snap {
		t.Errorf("a tree takes %d bytes, Decode's snapshot %d", tree, snap)
	}
	t.Logf("%d bytes: a tree takes %d bytes, Decode's snapshot %d", len(b), tree, snap)
}

// TestTreeHostileFramesAllocation: no hostile frame makes DecodeTree,
// fresh or after the densest snapshot, allocate more than
// allocbound.Hostile of its size, and none reads.
func TestTreeHostileFramesAllocation(t *testing.T) {
	dense := mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(2000, true)})
	for name, frame := range allocbound.Frames(t, "testdata/hostile") {
		payload := frame[schema.HeaderLen:]
		n := len(frame)
		for _, warm := range []bool{false, true} {
			allocbound.Fresh()
			if warm {
				if _, err := codec.DecodeTree(dense); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			got := allocbound.Check(t, name+" DecodeTree", n, allocbound.Hostile(n), func() { _, err = codec.DecodeTree(payload) })
			if err == nil {
				t.Errorf("%s: DecodeTree read it", name)
			}
			t.Logf("%-24s warm %-5v %6.2f bytes a byte: %v", name, warm, float64(got)/float64(n), err)
		}
	}
}

// TestTreeClaimBounded: a children array that claims more nodes than
// the bytes left can hold reserves none of them: the fast reader leaves
// it to Decode, which refuses it.
func TestTreeClaimBounded(t *testing.T) {
	for _, kn := range []int{24, 255, 65535} {
		root := []byte{0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x08}
		switch {
		case kn < 256:
			root = append(root, 0x98, byte(kn))
		default:
			root = append(root, 0x99, byte(kn>>8), byte(kn))
		}
		root = append(root, chain(3)...) // one child there, of the kn claimed
		b := snapshotResponse(root)
		var err error
		allocbound.Check(t, "DecodeTree", len(b), 64<<10, func() { _, err = codec.DecodeTree(b) })
		if err == nil {
			t.Fatalf("a claim of %d children read", kn)
		}
		checkTree(t, b)
	}
}
