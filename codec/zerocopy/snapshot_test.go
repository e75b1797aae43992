package zerocopy

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// checkSnapshot parses payload with a view and checks that it agrees with
// the codec: both fail, or both succeed and the view's owned copy equals
// the codec's snapshot. It reports whether the payload was a snapshot
// response the view could compare.
func checkSnapshot(t testing.TB, name string, payload []byte) bool {
	t.Helper()
	m, derr := codec.Decode(payload)
	var v Snapshot
	verr := v.Parse(payload)
	if derr != nil {
		if verr == nil {
			t.Errorf("%s: codec fails (%v), view accepts", name, derr)
		}
		return false
	}
	r, ok := m.(*codec.Response)
	if !ok || r.Method != codec.MethodSnapshot {
		if !errors.Is(verr, ErrNotSnapshot) {
			t.Errorf("%s: not a snapshot response, view says %v", name, verr)
		}
		return false
	}
	if r.Error != nil {
		if !errors.Is(verr, ErrErrorResponse) {
			t.Errorf("%s: error response, view says %v", name, verr)
		}
		return false
	}
	if errors.Is(verr, cbor.ErrIndefinite) {
		return false // the view cannot borrow an indefinite-length string
	}
	if verr != nil {
		t.Errorf("%s: codec accepts, view fails: %v", name, verr)
		return false
	}
	if v.ID != r.ID {
		t.Errorf("%s: id %d, codec %d", name, v.ID, r.ID)
	}
	got, err := toOwned(&v)
	if err != nil {
		t.Errorf("%s: toOwned: %v", name, err)
		return false
	}
	want := r.Result.(*codec.Snapshot)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: owned snapshot differs from the codec's\n got %+v\nwant %+v", name, got, want)
	}
	if err := v.Check(); err != nil {
		t.Errorf("%s: Check on a live frame: %v", name, err)
	}
	// A Snapshot parsing its second frame has a node table, which its
	// walks read instead of the bytes: it reads alike.
	reused := reusedView(t, payload)
	if got, err := toOwned(reused); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: owned snapshot through the node table differs from the codec's (%v)\n got %+v\nwant %+v", name, err, got, want)
	}
	if reused.NumNodes() != v.NumNodes() || reused.NumWindows() != v.NumWindows() || reused.NumStrings() != v.NumStrings() {
		t.Errorf("%s: the reused view counts otherwise", name)
	}
	if err := reused.Check(); err != nil {
		t.Errorf("%s: Check on a live frame, reused view: %v", name, err)
	}
	checkWalk(t, name, &v)
	checkWalk(t, name+" (reused)", reused)
	return true
}

// checkWalk: every node of a walk of v names the class its string table
// holds, and the walk goes down a level only from a node that reports
// children.
func checkWalk(t testing.TB, name string, v *Snapshot) {
	t.Helper()
	var w Walker
	kids, depth := false, 0
	for w.Reset(v); w.Next(); {
		if w.Depth() > depth && depth > 0 && !kids {
			t.Fatalf("%s: the walk goes down from a node without children", name)
		}
		if w.Depth() > depth+1 {
			t.Fatalf("%s: the walk goes down from level %d to %d", name, depth, w.Depth())
		}
		depth = w.Depth()
		n := w.Node()
		if n == nil {
			continue
		}
		kids = n.HasChildren()
		want, _ := v.String(n.Class)
		if n.Class >= stringNear {
			want = ""
		}
		if n.ClassName != want {
			t.Fatalf("%s: node %d of class %d is named %q, the table says %q", name, n.ID, n.Class, n.ClassName, want)
		}
	}
	if w.Err() != nil {
		t.Errorf("%s: walk: %v", name, w.Err())
	}
}

// views returns a fresh view of payload, whose walks read the bytes, and
// a reused one, whose walks read its node table.
func views(t testing.TB, payload []byte) map[string]*Snapshot {
	t.Helper()
	fresh := new(Snapshot)
	if err := fresh.Parse(payload); err != nil {
		t.Fatal(err)
	}
	return map[string]*Snapshot{"fresh": fresh, "reused": reusedView(t, payload)}
}

// reusedView returns a Snapshot that parsed another frame before payload,
// so that it has a node table.
func reusedView(t testing.TB, payload []byte) *Snapshot {
	t.Helper()
	v := new(Snapshot)
	if err := v.Parse(payload); err != nil {
		t.Fatalf("first parse: %v", err)
	}
	if err := v.Parse(payload); err != nil {
		t.Fatalf("second parse: %v", err)
	}
	if v.NumNodes() > 0 && v.NumNodes() <= maxTableNodes && v.nRecs == 0 {
		t.Fatalf("a reused Snapshot of %d nodes has no node table", v.NumNodes())
	}
	return v
}

func TestSnapshotGolden(t *testing.T) {
	n := 0
	for _, g := range goldenFrames(t) {
		if checkSnapshot(t, g.name, g.payload) {
			n++
		}
	}
	if n < 4 {
		t.Errorf("%d golden snapshot responses compared, want at least 4", n)
	}
}

func snapshotPayload(t testing.TB, nodes int, seed int64) []byte {
	t.Helper()
	s := support.Snapshot(nodes, seed)
	b, err := codec.Marshal(&codec.Response{ID: uint64(seed), Method: codec.MethodSnapshot, Result: s})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSnapshotGenerated(t *testing.T) {
	for _, nodes := range []int{0, 1, 7, 50, 500, 5000} {
		for seed := int64(1); seed <= 3; seed++ {
			p := snapshotPayload(t, nodes, seed)
			if !checkSnapshot(t, "generated", p) {
				t.Errorf("%d nodes, seed %d: not compared", nodes, seed)
			}
			var v Snapshot
			if err := v.Parse(p); err == nil && v.NumNodes() != countNodes(support.Snapshot(nodes, seed)) {
				t.Errorf("%d nodes, seed %d: NumNodes %d", nodes, seed, v.NumNodes())
			}
		}
	}
}

func countNodes(s *codec.Snapshot) int {
	n := 0
	var count func(*codec.Node)
	count = func(x *codec.Node) {
		n++
		for i := range x.Children {
			count(&x.Children[i])
		}
	}
	for _, w := range s.Windows {
		if w.Root != nil {
			count(w.Root)
		}
	}
	return n
}

func TestStrings(t *testing.T) {
	s := support.Snapshot(500, 4)
	// Past the cached entries too.
	for i := len(s.Strings); i < stringCache+3*stringStride+40; i++ {
		s.Strings = append(s.Strings, "extra-"+itoa(i)+"-ü")
	}
	v, b := parseSnapshot(t, s)
	if v.NumStrings() != len(s.Strings) {
		t.Fatalf("%d strings, want %d", v.NumStrings(), len(s.Strings))
	}
	for i, want := range s.Strings {
		if got, ok := v.String(uint32(i)); !ok || got != want {
			t.Errorf("String(%d) = %q, %v; want %q", i, got, ok, want)
		}
	}
	if _, ok := v.String(uint32(len(s.Strings))); ok {
		t.Error("String past the end is ok")
	}
	i := 0
	for it := v.Strings(); it.Next(); i++ {
		if it.Index() != i || it.String() != s.Strings[i] {
			t.Fatalf("iterator entry %d: %d %q", i, it.Index(), it.String())
		}
	}
	if i != len(s.Strings) {
		t.Errorf("iterator gave %d strings", i)
	}
	// Strings borrow the frame.
	got, _ := v.String(0)
	if len(got) > 0 && !within(b, unsafeStringData(got)) {
		t.Error("String(0) is not borrowed from the payload")
	}
}

func within(b []byte, p *byte) bool {
	return len(b) > 0 && uintptrOf(p) >= uintptrOf(&b[0]) && uintptrOf(p) <= uintptrOf(&b[len(b)-1])
}

// TestWalkOrder: the walk visits windows and nodes depth first, parents
// before children, each node at its level, the same sequence as a
// recursive walk of the codec's decode.
func TestWalkOrder(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		s := support.Snapshot(800, seed)
		b, _ := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
		type visit struct {
			id    uint32
			depth int
		}
		var want []visit
		var rec func(*codec.Node, int)
		rec = func(n *codec.Node, d int) {
			want = append(want, visit{n.ID, d})
			for i := range n.Children {
				rec(&n.Children[i], d+1)
			}
		}
		for _, w := range s.Windows {
			want = append(want, visit{w.ID, 0})
			if w.Root != nil {
				rec(w.Root, 1)
			}
		}
		for mode, v := range views(t, b) {
			var got []visit
			err := walkEach(v, func(w WindowView, n NodeView, depth int) bool {
				if depth == 0 {
					got = append(got, visit{w.ID, 0})
				} else {
					got = append(got, visit{n.ID, depth})
					if name, _ := v.String(n.Class); n.ClassName != name || name == "" {
						t.Errorf("node %d: class name %q, table %q", n.ID, n.ClassName, name)
					}
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s view: walk order differs (%d visits, want %d)", seed, mode, len(got), len(want))
			}
			// Stopping early.
			calls := 0
			walkEach(v, func(WindowView, NodeView, int) bool { calls++; return calls < 5 })
			if calls != 5 {
				t.Errorf("%s view: walk went on after false: %d calls", mode, calls)
			}
		}
	}
}

// chain encodes a snapshot response whose only window holds a chain of
// depth nodes.
func chain(depth int) []byte {
	b := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03}
	b = append(b, 0xa4, 0x00, 0x81, 0x61, 'V', 0x01, 0x81)
	b = append(b, 0xa6, 0, 1, 1, 1, 2, 0, 3, 0x84, 0, 0, 1, 1, 4, 0, 7)
	for i := 1; i <= depth; i++ {
		n := 5
		if i == depth {
			n = 4
		}
		b = cbor.AppendMapHead(b, n)
		b = cbor.AppendUint(append(b, 0), uint64(i))
		b = append(b, 1, 0, 2, 0x84, 0, 0, 1, 1, 3, 0)
		if i < depth {
			b = append(b, 8, 0x81)
		}
	}
	return append(b, 2, 0, 3, 0)
}

func TestDepth(t *testing.T) {
	for _, depth := range []int{1, 2, schema.MaxNodeDepth} {
		if !checkSnapshot(t, "chain", chain(depth)) {
			t.Fatalf("chain of %d: not compared", depth)
		}
		for mode, v := range views(t, chain(depth)) {
			deepest := 0
			walkEach(v, func(_ WindowView, _ NodeView, d int) bool { deepest = max(deepest, d); return true })
			if deepest != depth {
				t.Errorf("chain of %d, %s view: walk reaches level %d", depth, mode, deepest)
			}
		}
	}
	var v Snapshot
	err := v.Parse(chain(schema.MaxNodeDepth + 1))
	if !errors.Is(err, cbor.ErrDepth) {
		t.Fatalf("chain of %d: %v", schema.MaxNodeDepth+1, err)
	}
	if _, derr := codec.Decode(chain(schema.MaxNodeDepth + 1)); derr == nil {
		t.Error("the codec accepts the deep chain")
	}
	var e *cbor.Error
	if !errors.As(err, &e) || e.Offset == 0 || e.Path() == "" {
		t.Errorf("depth error without offset or path: %v", err)
	}
}

func TestSnapshotRejects(t *testing.T) {
	good := snapshotPayload(t, 20, 2)
	// Every proper prefix fails, without panicking.
	for i := 0; i < len(good); i++ {
		var v Snapshot
		if err := v.Parse(good[:i]); err == nil {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
	// Trailing bytes.
	var v Snapshot
	if err := v.Parse(append(append([]byte{}, good...), 0)); !errors.Is(err, cbor.ErrTrailing) {
		t.Errorf("trailing byte: %v", err)
	}
	// Invalid UTF-8 in a node's text: flip a byte of a string in place.
	bad := append([]byte{}, good...)
	if i := indexOf(bad, []byte("com.")); i >= 0 {
		bad[i] = 0xff
		err := v.Parse(bad)
		var e *cbor.Error
		if !errors.Is(err, cbor.ErrUTF8) || !errors.As(err, &e) || e.Path() == "" {
			t.Errorf("bad UTF-8: %v", err)
		}
	} else {
		t.Error("no string to break")
	}
	// Any single byte changed: the view and the codec agree.
	for i := range good {
		for _, x := range []byte{0x00, 0x17, 0x18, 0x7f, 0x9f, 0xf6, 0xff} {
			p := append([]byte{}, good...)
			p[i] = x
			checkSnapshot(t, "mutated", p)
		}
	}
	if t.Failed() {
		return
	}
	if err := v.Parse(chain(1)[:3]); err == nil {
		t.Error("short response accepted")
	}
}

func indexOf(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// TestSkipChildren: a walk that skips the children of every node at some
// level visits what a recursive walk pruned there visits.
func TestSkipChildren(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		s := support.Snapshot(600, seed)
		b, _ := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
		for mode, v := range views(t, b) {
			for _, cut := range []int{1, 2, 3, 5} {
				var want []uint32
				var rec func(*codec.Node, int)
				rec = func(n *codec.Node, d int) {
					want = append(want, n.ID)
					if d == cut {
						return
					}
					for i := range n.Children {
						rec(&n.Children[i], d+1)
					}
				}
				for _, w := range s.Windows {
					if w.Root != nil {
						rec(w.Root, 1)
					}
				}
				var got []uint32
				var w Walker
				for w.Reset(v); w.Next(); {
					if n := w.Node(); n != nil {
						got = append(got, n.ID)
						if w.Depth() == cut {
							w.SkipChildren()
						}
					}
				}
				if w.Err() != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d, %s view, cut at %d: %d nodes visited, want %d (%v)", seed, mode, cut, len(got), len(want), w.Err())
				}
			}
		}
	}
}

// TestHugeStringTable: past the marked entries String still finds every
// entry, and a walk leaves ClassName empty there rather than scan.
func TestHugeStringTable(t *testing.T) {
	s := support.Snapshot(20, 2)
	for i := len(s.Strings); i < stringNear+300; i++ {
		s.Strings = append(s.Strings, itoa(i))
	}
	s.Windows[0].Root.Class = stringNear + 5
	v, b := parseSnapshot(t, s)
	for _, i := range []int{0, 31, stringCache - 1, stringCache, stringCache + 1, stringCache + stringStride - 1,
		stringCache + stringStride, 70000, stringNear - 1, stringNear, stringNear + 299} {
		if got, ok := v.String(uint32(i)); !ok || got != s.Strings[i] {
			t.Errorf("String(%d) = %q, %v; want %q", i, got, ok, s.Strings[i])
		}
	}
	for mode, v := range views(t, b) {
		var w Walker
		w.Reset(v)
		for w.Next() && w.Node() == nil {
		}
		if n := w.Node(); n == nil || n.Class != stringNear+5 || n.ClassName != "" {
			t.Errorf("%s view, root: %+v", mode, n)
		}
	}
	if !checkSnapshot(t, "huge table", b) {
		t.Error("not compared")
	}
}

// TestCheckReused: Check passes on a live frame parsed by a Snapshot that
// parsed a larger one before (what is left of the larger one's tables
// does not count), and fails once the bytes change.
func TestCheckReused(t *testing.T) {
	large, small := snapshotPayload(t, 3000, 5), snapshotPayload(t, 40, 5)
	var v, l Snapshot
	if err := l.Parse(large); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]byte{large, large, small} {
		if err := v.Parse(p); err != nil {
			t.Fatal(err)
		}
		if err := v.Check(); err != nil {
			t.Fatalf("Check on a live frame: %v", err)
		}
	}
	if v.NumStrings() >= l.NumStrings() {
		t.Fatalf("the small snapshot has %d strings, the large %d", v.NumStrings(), l.NumStrings())
	}
	copy(small, large)
	if err := v.Check(); !errors.Is(err, ErrReleased) {
		t.Errorf("Check on changed bytes: %v", err)
	}
}

// parseSnapshot encodes s as a snapshot response and parses it; b is the
// payload the view borrows.
func parseSnapshot(t testing.TB, s *codec.Snapshot) (v *Snapshot, b []byte) {
	t.Helper()
	b, err := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
	if err != nil {
		t.Fatal(err)
	}
	v = new(Snapshot)
	if err := v.Parse(b); err != nil {
		t.Fatal(err)
	}
	return v, b
}
