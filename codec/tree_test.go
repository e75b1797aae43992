package codec_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// sameSnapshot reports whether a and b are equal but that an empty
// string table or window list may be nil in one and not the other.
func sameSnapshot(a, b *codec.Snapshot) bool {
	x, y := *a, *b
	for _, s := range []*codec.Snapshot{&x, &y} {
		if len(s.Strings) == 0 {
			s.Strings = nil
		}
		if len(s.Windows) == 0 {
			s.Windows = nil
		}
	}
	return reflect.DeepEqual(&x, &y)
}

// checkTree checks the tree read from b, any input: DecodeTree fails
// exactly when Decode fails, with its error, and refuses any message but
// a snapshot response with an error of kind cbor.ErrType; it allocates at
// most decodeBound of b's size, and reads a snapshot response as a Tree
// of the response's id whose snapshot is Decode's; the fast reader, when
// it reads b, lays out the tree the general path lays out from Decode's
// snapshot. It reports whether the fast reader read b.
func checkTree(t *testing.T, b []byte) bool {
	t.Helper()
	want, wantErr := codec.Decode(b)
	var tree *codec.Tree
	var treeErr error
	allocbound.Check(t, "DecodeTree", len(b), decodeBound(len(b)), func() { tree, treeErr = codec.DecodeTree(b) })
	if wantErr != nil {
		if treeErr == nil || treeErr.Error() != wantErr.Error() {
			t.Fatalf("DecodeTree: %v, Decode: %v", treeErr, wantErr)
		}
		return false
	}
	r, ok := want.(*codec.Response)
	s, isSnap := (*codec.Snapshot)(nil), false
	if ok {
		s, isSnap = r.Result.(*codec.Snapshot)
	}
	if !isSnap {
		var de *codec.DecodeError
		if tree != nil || !errors.As(treeErr, &de) || !errors.Is(treeErr, cbor.ErrType) {
			t.Fatalf("DecodeTree of a %s: %v, %v", want.Kind(), tree, treeErr)
		}
		return false
	}
	if treeErr != nil {
		t.Fatalf("DecodeTree: %v", treeErr)
	}
	if tree.ID != r.ID {
		t.Fatalf("DecodeTree's tree has id %d, the response %d", tree.ID, r.ID)
	}
	if got := codec.TreeSnapshot(tree); !sameSnapshot(got, s) {
		t.Fatalf("DecodeTree's tree reads as %+v, Decode %+v", got, s)
	}
	if rr := tree.Response(); rr.ID != r.ID || rr.Method != codec.MethodSnapshot || rr.Result != codec.Result(tree) || rr.Error != nil {
		t.Fatalf("the tree's response %#v", rr)
	}
	checkWalk(t, tree)
	fast, general := codec.TreeReaders(b)
	if general == nil {
		t.Fatal("the general path read no tree of a snapshot response")
	}
	if fast == nil {
		return false
	}
	if d := codec.TreesDiffer(fast, general); d != "" {
		t.Fatalf("the fast reader and the general path read different trees: %s", d)
	}
	return true
}

// checkWalk checks that Walk yields every node of tr once, parents
// before children, as a depth-first walk of its Snapshot does.
func checkWalk(t *testing.T, tr *codec.Tree) {
	t.Helper()
	type visit struct {
		id    uint32
		level int
	}
	var want []visit
	s := codec.TreeSnapshot(tr)
	var rec func(n *codec.Node, level int)
	rec = func(n *codec.Node, level int) {
		want = append(want, visit{n.ID, level})
		for i := range n.Children {
			rec(&n.Children[i], level+1)
		}
	}
	for i := range s.Windows {
		if s.Windows[i].Root != nil {
			rec(s.Windows[i].Root, 1)
		}
	}
	var got []visit
	seen := make(map[codec.NodeRef]bool)
	for n, level := range tr.Walk() {
		if seen[n] {
			t.Fatalf("Walk yields node %d twice", n)
		}
		seen[n] = true
		got = append(got, visit{tr.NodeID(n), level})
	}
	if len(got) != tr.NumNodes() || !reflect.DeepEqual(got, want) && len(want) > 0 {
		t.Fatalf("Walk yields %d nodes of %d: %v, want %v", len(got), tr.NumNodes(), got, want)
	}
}

// TestTreeGolden: every golden frame reads as a tree as Decode reads
// it, and the canonical snapshot responses take the fast reader.
func TestTreeGolden(t *testing.T) {
	fast := 0
	for _, b := range codec.GoldenPayloads(t) {
		if checkTree(t, b) {
			fast++
		}
	}
	if fast < 3 {
		t.Errorf("the fast reader read %d golden snapshots", fast)
	}
}

// TestTreeTruncated: every prefix of the golden snapshot responses, and
// of the tree tests' snapshot, reads as a tree as Decode reads it (they
// all fail), the fast reader reading as far as it can.
func TestTreeTruncated(t *testing.T) {
	inputs := [][]byte{mustMarshal(t, &codec.Response{ID: 99, Method: codec.MethodSnapshot, Result: treeSnapshot()})}
	for _, b := range codec.GoldenPayloads(t) {
		if _, err := codec.DecodeTree(b); err == nil && len(b) < 4<<10 {
			inputs = append(inputs, b)
		}
	}
	for _, b := range inputs {
		for n := range len(b) {
			checkTree(t, b[:n])
		}
	}
}

// treeSnapshot is a snapshot with every field of a node and a window.
func treeSnapshot() *codec.Snapshot {
	long := strings.Repeat("x", 300)
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "", "com.example", "東京"},
		Windows: []codec.Window{
			{ID: 7, Type: 1, Layer: -3, Bounds: codec.Bounds{0, 0, 1080, 2400}, Flags: schema.WindowActive, Title: codec.Some("Title"),
				Package: codec.Some(uint32(2)), EmitsEvents: codec.Some(false), Owner: codec.Some(uint32(3)), Modal: true,
				Root: &codec.Node{ID: 1, Class: 0, Bounds: codec.Bounds{-1, -300, 70000, 1 << 30}, Flags: 1 << 31, Text: "héllo", Empty: codec.NodeDesc,
					ResPkg: codec.Some(uint32(2)), ResName: long, Hint: "h", State: long[:24],
					Scroll: &codec.Scroll{Axis: 1, Flags: 3, Range: codec.Some(codec.ScrollRange{Unit: 1, Lo: -1 << 40, Hi: 1 << 40}), Position: codec.Some(codec.ScrollPosition{Lo: 1, Hi: 2})},
					Children: []codec.Node{
						{ID: 2, Children: []codec.Node{{ID: 4}, {ID: 5, Text: "five"}}},
						{ID: 3, Scroll: &codec.Scroll{Axis: 2}, Children: []codec.Node{{ID: 6}}},
					}}},
			{ID: 8, Title: codec.Some(""), EmitsEvents: codec.Some(true)},
			{ID: 9, Root: &codec.Node{ID: 10, Empty: codec.NodeText | codec.NodeState}},
		},
		Truncated: schema.TruncatedNodes, Seq: 1 << 40, Display: codec.Some(codec.Display{Width: 1080, Height: 2400, DensityDPI: 420, Rotation: 1}),
	}
}

// TestTreeAccessors: a tree's accessors read what the snapshot holds,
// children as ranges in the order of the snapshot's, and refuse an
// index outside the tree.
func TestTreeAccessors(t *testing.T) {
	s := treeSnapshot()
	b := mustMarshal(t, &codec.Response{ID: 99, Method: codec.MethodSnapshot, Result: s})
	if !checkTree(t, b) {
		t.Fatal("the encoder's snapshot did not take the fast reader")
	}
	tr, err := codec.DecodeTree(b)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ID != 99 || tr.Seq != 1<<40 || tr.Truncated != schema.TruncatedNodes || tr.Display != s.Display || tr.NumNodes() != 7 || tr.NumWindows() != 3 || tr.NumStrings() != 4 {
		t.Fatalf("tree %+v", tr)
	}
	for i, v := range s.Strings {
		if tr.String(i) != v {
			t.Errorf("string %d %q, want %q", i, tr.String(i), v)
		}
	}
	w := tr.Window(0)
	if w.ID != 7 || w.Layer != -3 || w.Package != codec.Some(uint32(2)) || w.Owner != codec.Some(uint32(3)) || w.EmitsEvents != codec.Some(false) || !w.Modal || !w.Root.Ok || w.Title != codec.Some("Title") {
		t.Fatalf("window 0 %+v", w)
	}
	if w := tr.Window(1); w.Root.Ok || w.EmitsEvents != codec.Some(true) || w.Title != codec.Some("") || w.Package.Ok {
		t.Fatalf("window 1 %+v", w)
	}
	root := w.Root.Val
	sn := s.Windows[0].Root
	if tr.NodeID(root) != 1 || tr.Bounds(root) != sn.Bounds || tr.Flags(root) != sn.Flags || tr.ResPkg(root) != sn.ResPkg || tr.Class(root) != 0 {
		t.Fatalf("root %d", root)
	}
	for _, k := range codec.NodeTextKeys() {
		v, ok := tr.Text(root, k), tr.Has(root, 1<<k)
		if ok != sn.Has(1<<k) || v != codec.NodeTextOf(sn, k) {
			t.Errorf("text %d: %q %v", k, v, ok)
		}
	}
	if sc, ok := tr.Scroll(root); !tr.Has(root, codec.NodeText|codec.NodeDesc) || !ok || sc != *sn.Scroll {
		t.Fatal("root's texts or scroll")
	}
	kids := tr.Children(root)
	var ids []uint32
	for n := range kids.All() {
		ids = append(ids, tr.NodeID(n))
	}
	if kids.Len() != 2 || !reflect.DeepEqual(ids, []uint32{2, 3}) {
		t.Fatalf("root's children %v: %v", kids, ids)
	}
	if g := tr.Children(kids.First); g.Len() != 2 || tr.NodeID(g.First) != 4 || tr.NodeID(g.First+1) != 5 {
		t.Fatalf("grandchildren %v", g)
	}
	if _, ok := tr.Scroll(kids.First); ok {
		t.Error("node 2 scrolls")
	}
	if r := tr.Window(2).Root.Val; !tr.Has(r, codec.NodeText|codec.NodeState) || tr.Has(r, codec.NodeDesc) {
		t.Error("the empty texts of node 10")
	}
	// Nothing outside the tree.
	for name, f := range map[string]func(){
		"NodeID":       func() { tr.NodeID(codec.NodeRef(tr.NumNodes())) },
		"Children":     func() { tr.Children(1 << 31) },
		"Text":         func() { tr.Text(codec.NodeRef(tr.NumNodes()), schema.KeyNodeText) },
		"Text key":     func() { tr.Text(root, schema.KeyNodeChildren) },
		"Window":       func() { tr.Window(3) },
		"Window -1":    func() { tr.Window(-1) },
		"String":       func() { tr.String(4) },
		"Scroll":       func() { tr.Scroll(codec.NodeRef(tr.NumNodes())) },
		"Has":          func() { tr.Has(1<<20, codec.NodeText) },
		"ResPkg":       func() { tr.ResPkg(codec.NodeRef(tr.NumNodes())) },
		"empty Bounds": func() { new(codec.Tree).Bounds(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s outside the tree did not panic", name)
				}
			}()
			f()
		}()
	}
	// The general path lays the snapshot out as the reader does.
	of, err := codec.TreeOf(99, s)
	if err != nil {
		t.Fatal(err)
	}
	if d := codec.TreesDiffer(of, tr); d != "" {
		t.Fatal(d)
	}
	// The tree encodes as its snapshot.
	again, err := codec.Marshal(tr.Response())
	if err != nil || string(again) != string(b) {
		t.Fatalf("the tree's response encodes to other bytes (%v)", err)
	}
}

// TestTreeDepth: a tree of MaxNodeDepth levels reads, with the fast
// reader; one more level fails as Decode fails.
func TestTreeDepth(t *testing.T) {
	if !checkTree(t, snapshotResponse(chain(schema.MaxNodeDepth))) {
		t.Error("the chain at the limit did not take the fast reader")
	}
	b := snapshotResponse(chain(schema.MaxNodeDepth + 1))
	checkTree(t, b)
	if _, err := codec.DecodeTree(b); !errors.Is(err, cbor.ErrDepth) {
		t.Fatalf("past the limit: %v", err)
	}
	if _, err := codec.TreeOf(1, &codec.Snapshot{Windows: []codec.Window{{Root: deepNode(schema.MaxNodeDepth + 1)}}}); err == nil {
		t.Fatal("the general path took a tree past the limit")
	}
}

// deepNode is a chain of depth nodes.
func deepNode(depth int) *codec.Node {
	root := &codec.Node{ID: 1}
	n := root
	for i := 2; i <= depth; i++ {
		n.Children = []codec.Node{{ID: uint32(i)}}
		n = &n.Children[0]
	}
	return root
}

// TestTreeNotSnapshot: DecodeTree refuses another message, an error
// response to snapshot included.
func TestTreeNotSnapshot(t *testing.T) {
	for _, m := range []codec.Message{
		&codec.Ping{Nonce: 1},
		&codec.Response{ID: 1, Method: codec.MethodSnapshot, Error: codec.NewError(codec.CodeFrameTooLarge, "no")},
		&codec.Response{ID: 2, Method: codec.MethodResync, Result: &codec.ResyncResult{Seq: 3}},
	} {
		b := mustMarshal(t, m)
		checkTree(t, b)
		if _, err := codec.DecodeTree(b); !errors.Is(err, cbor.ErrType) {
			t.Errorf("DecodeTree of %#v: %v", m, err)
		}
	}
}

// TestTreeNonCanonical: a snapshot response the fast reader does not
// read (keys out of order, nulls, indefinite lengths) reads through the
// general path, as Decode reads it.
func TestTreeNonCanonical(t *testing.T) {
	// The snapshot's keys 2 and 3 swapped; a node with a null text.
	b := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03,
		0xa4, 0x00, 0x81, 0x61, 'V', 0x01, 0x81,
		0xa6, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0x07,
		0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x04, 0xf6,
		0x03, 0x05, 0x02, 0x00}
	if checkTree(t, b) {
		t.Fatal("the fast reader read keys out of order")
	}
	tr, err := codec.DecodeTree(b)
	if err != nil || tr.Seq != 5 || tr.NumNodes() != 1 || tr.Has(0, codec.NodeText) {
		t.Fatalf("%+v %v", tr, err)
	}
}
