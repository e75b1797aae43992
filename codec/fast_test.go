package codec

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// decodeRequestFast decodes b if it is a request in the canonical layout
// with params it knows, and reports whether it did: Decode's request
// fast path, in one function for the tests.
func decodeRequestFast(b []byte) (r *Request, ok bool) {
	if requestHead(b) {
		r = decodeRequestCanonical(b, nil)
	}
	return r, r != nil
}

// The fast paths for the canonical layout must accept only what the
// general decoder accepts, and read it alike. decodeBoth decodes b with
// them and without, and fails t when the two disagree; it returns what
// the fast path gave.
func decodeBoth(t testing.TB, b []byte) (Message, error) {
	t.Helper()
	fast, ferr := Decode(b)
	fastPaths = false
	slow, serr := decodeGeneral(b)
	fastPaths = true
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("% x: fast paths: %v, general decoder: %v", b, ferr, serr)
	}
	if ferr != nil {
		if ferr.Error() != serr.Error() {
			t.Fatalf("% x: fast paths fail with %v, general decoder with %v", b, ferr, serr)
		}
		return nil, ferr
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("% x: fast paths read\n%#v\ngeneral decoder\n%#v", b, fast, slow)
	}
	return fast, nil
}

// TestRequestFastPathTaken: the canonical requests of the methods it
// knows take the fast path, and read as the general decoder reads them.
func TestRequestFastPathTaken(t *testing.T) {
	reqs := []*Request{
		{ID: 7, Method: MethodTap, Params: &TapParams{X: 540, Y: 1200}},
		{ID: 1 << 40, Method: MethodTap, Params: &TapParams{X: -2147483648, Y: 2147483647}},
		{ID: 2, Method: MethodLongPress, Params: &LongPressParams{X: -1, Y: -24, DurationMS: 600}},
		{ID: 3, Method: MethodSwipe, Params: &SwipeParams{X1: 1, Y1: -25, X2: 256, Y2: -257, DurationMS: 300}},
		{ID: 3, Method: MethodSwipe, Params: &SwipeParams{RestMS: OptFrom(new(uint32(70)))}, DeadlineMS: OptFrom(new(uint32(1000)))},
		{ID: 4, Method: MethodKey, Params: &KeyParams{Keycode: 66}},
		{ID: 4, Method: MethodKey, Params: &KeyParams{Keycode: 66, Meta: OptFrom(new(uint32(0xffffffff)))}},
		{ID: 5, Method: MethodResync, Params: &ResyncParams{Stream: StreamFrames}},
		{ID: 6, Method: MethodScreenshot, Params: &ScreenshotParams{}},
		{ID: 6, Method: MethodScreenshot, Params: &ScreenshotParams{Quality: OptFrom(new(uint32(80)))}},
		{ID: 6, Method: MethodFramesStart, Params: &FramesStartParams{MaxFPS: OptFrom(new(uint32(30))), Quality: OptFrom(new(uint32(50)))}},
		{ID: 8, Method: MethodFramesStop, Params: &FramesStopParams{}},
		{ID: 9, Method: MethodDeviceInfo, Params: &DeviceInfoParams{}},
		{ID: 10, Method: MethodSnapshot, Params: &SnapshotParams{Evict: []uint32{}}},
		{ID: 11, Method: MethodSnapshot, Params: &SnapshotParams{MaxDepth: OptFrom(new(uint32(64))), MaxWindows: OptFrom(new(uint32(8))),
			EvictEventLess: OptFrom(new(false)), Evict: []uint32{3, 7, 4294967295}}},
	}
	for _, r := range reqs {
		b, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeRequestFast(b)
		if !ok {
			t.Errorf("%s request % x: fast path not taken", r.Method, b)
			continue
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("fast path reads %#v, want %#v", got, r)
		}
		decodeBoth(t, b)
	}
}

// TestRequestFastPathRefuses: layouts the fast path must leave to the
// general decoder, which then accepts or refuses them as always.
func TestRequestFastPathRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"keys out of order", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x01, 0x05, 0x00, 0x06}},
		{"repeated param key", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x00, 0x06}},
		{"null param", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0xf6}},
		{"unknown param key", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa3, 0x00, 0x05, 0x01, 0x06, 0x07, 0x00}},
		{"x past i32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x1a, 0x80, 0, 0, 0, 0x01, 0x06}},
		{"x below i32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x3a, 0x80, 0, 0, 0, 0x01, 0x06}},
		{"negative u32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x06, 0x03, 0xa1, 0x00, 0x20}},
		{"missing y", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa1, 0x00, 0x05}},
		{"indefinite params", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xbf, 0x00, 0x05, 0x01, 0x06, 0xff}},
		{"trailing byte", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06, 0x00}},
		{"truncated", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01}},
		{"deadline key missing", []byte{0xa5, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06, 0x05, 0x01}},
		{"unknown method", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x18, 0x63, 0x03, 0xa0}},
		{"type_text", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x07, 0x03, 0xa1, 0x00, 0x61, 0x61}},
		{"evict of text", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa1, 0x04, 0x81, 0x61, 0x61}},
		{"evict_event_less null", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa2, 0x03, 0xf6, 0x04, 0x80}},
		{"snapshot pairs miscounted", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa2, 0x04, 0x80, 0x05, 0x00}},
	} {
		if _, ok := decodeRequestFast(c.b); ok {
			t.Errorf("%s: fast path taken for % x", c.name, c.b)
		}
		decodeBoth(t, c.b)
	}
}

// TestEventFastPath: the tree events an encoder writes take the fast path
// and read as the general decoder reads them, at every integer width; the
// same bytes cut short, with a byte more, with one more element, a
// frame's event or an unknown type's do not, and the general decoder then
// accepts or refuses them as always.
func TestEventFastPath(t *testing.T) {
	var taken int
	for _, x := range []uint32{0, 23, 24, 255, 256, 65535, 65536, 1<<32 - 1} {
		for _, ev := range []*Event{
			{Stream: StreamTree, Seq: uint64(x) << 32, Type: TypeWindowChanged, Body: &WindowChanged{Window: x, Change: 1}},
			{Stream: StreamTree, Seq: uint64(x), Type: TypeContentChanged, Body: &ContentChanged{Window: 2, Node: x, Change: x}},
		} {
			b, err := Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := decodeEventFast(b); !ok || !reflect.DeepEqual(got, ev) {
				t.Errorf("% x: fast path %v, read %#v, want %#v", b, ok, got, ev)
			}
			taken++
			decodeBoth(t, b)
			longer := append(append([]byte{b[0] + 1}, b[1:]...), 0)
			for _, v := range [][]byte{b[:len(b)-1], append(b[:len(b):len(b)], 0), longer} {
				if _, ok := decodeEventFast(v); ok {
					t.Errorf("% x: fast path taken", v)
				}
				decodeBoth(t, v)
			}
		}
	}
	frame, err := Marshal(&Event{Stream: StreamFrames, Type: TypeFrame, Body: &ScreenFrame{Width: 1, Height: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][]byte{frame, {0x86, 0x06, 0x00, 0x01, 0x02, 0x01, 0x01}, {0x85, 0x06, 0x00, 0x01, 0x00, 0x01}} {
		if _, ok := decodeEventFast(v); ok {
			t.Errorf("% x: fast path taken", v)
		}
		decodeBoth(t, v)
	}
	if taken != 16 {
		t.Fatalf("%d events checked", taken)
	}
}

// FuzzFastPaths: on any input the fast paths and the general decoder
// agree: the same message, or the same error.
func FuzzFastPaths(f *testing.F) {
	SeedGolden(f)
	f.Fuzz(func(t *testing.T, b []byte) { decodeBoth(t, b) })
}

// fastTree runs nodeTreeFast over the encoding of root and returns what
// it read, or false.
func fastTree(t *testing.T, root *Node) (*Node, bool) {
	t.Helper()
	b, err := appendTree(nil, root, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{src: b, copyInput: true}
	d.Decoder.Reset(b)
	got := new(Node)
	if !d.nodeTreeFast(got) {
		if !reflect.DeepEqual(*got, Node{}) || d.Offset() != 0 {
			t.Fatalf("a fast path that gave up left the root %#v and the offset at %d", got, d.Offset())
		}
		return nil, false
	}
	if d.Offset() != len(b) {
		t.Fatalf("the fast path stopped at %d of %d bytes", d.Offset(), len(b))
	}
	return got, true
}

// chain returns a tree of exactly depth levels.
func chain(depth int) *Node {
	root := &Node{ID: 1, Class: 0}
	n := root
	for i := 2; i <= depth; i++ {
		n.Children = []Node{{ID: uint32(i)}}
		n = &n.Children[0]
	}
	return root
}

// TestNodeTreeFastPathTaken: trees as the encoder writes them take the
// fast path, every field and head length read as written; a tree past
// schema.MaxNodeDepth is left to the general path, which refuses it.
func TestNodeTreeFastPathTaken(t *testing.T) {
	long := string(make([]byte, 300))
	full := &Node{ID: 0xffffffff, Class: 70000, Bounds: Bounds{-2147483648, -257, 65536, 2147483647}, Flags: 1 << 31,
		Text: "héllo 東京 🎉", Empty: NodeDesc, ResPkg: Some(uint32(24)), ResName: long[:255],
		Hint: long, State: long[:24],
		Scroll: &Scroll{Axis: 7, Flags: 1 << 9, Range: Some(ScrollRange{Unit: 1, Lo: -9223372036854775808, Hi: 9223372036854775807}),
			Position: Some(ScrollPosition{Lo: -4294967297, Hi: 4294967296})},
		Children: []Node{
			{ID: 2, Bounds: Bounds{-1, -24, -25, 23}, Scroll: &Scroll{Axis: 1}},
			{ID: 3, Scroll: &Scroll{Axis: 2, Flags: 3, Range: Some(ScrollRange{Lo: 0, Hi: 99})}, Hint: "h"},
			{ID: 4, Children: make([]Node, 30)},
		}}
	for name, root := range map[string]*Node{"full": full, "leaf": {ID: 1}, "chain of 256": chain(schema.MaxNodeDepth)} {
		got, ok := fastTree(t, root)
		if !ok {
			t.Errorf("%s: fast path not taken", name)
			continue
		}
		if !reflect.DeepEqual(got, root) {
			t.Errorf("%s: fast path reads\n%#v\nwant\n%#v", name, got, root)
		}
	}
	// 257 levels: the encoder refuses them, so build the bytes by hand.
	b := []byte{}
	for i := 1; i <= schema.MaxNodeDepth+1; i++ {
		b = append(b, 0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0)
		if i <= schema.MaxNodeDepth {
			b = append(b, 8, 0x81)
		} else {
			b[len(b)-13] = 0xa4
		}
	}
	d := &decoder{src: b}
	d.Decoder.Reset(b)
	if d.nodeTreeFast(new(Node)) {
		t.Fatal("the fast path read 257 levels")
	}
	if err := d.nodeTree(new(Node)); err == nil || !strings.Contains(err.Error(), "deeper than 256") {
		t.Fatalf("the general path reads 257 levels with %v", err)
	}
}

// TestFastStackSpills: the fast path keeps localFrames levels on the
// goroutine's stack and spills deeper trees to the decoder's heap stack,
// which it clears after, whether it read the tree or gave up: a pooled
// decoder keeps no message alive.
func TestFastStackSpills(t *testing.T) {
	// A chain of depth levels pushes depth-1 frames.
	for _, depth := range []int{localFrames, localFrames + 1, localFrames + 2, schema.MaxNodeDepth} {
		b, err := appendTree(nil, chain(depth), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{0, 1} { // whole, and missing its last byte
			in := b[:len(b)-cut]
			// A slab with room for the chain, as a learned decoder has:
			// a claim past the room is checked before it is read, and a
			// cut chain would be refused before the stack grows.
			d := &decoder{src: in, copyInput: true, slabs: slabs{slab: make([]Node, 0, depth)}}
			d.Decoder.Reset(in)
			root := new(Node)
			if ok := d.nodeTreeFast(root); ok != (cut == 0) {
				t.Fatalf("depth %d, cut %d: read %v", depth, cut, ok)
			}
			if cut == 0 && !reflect.DeepEqual(root, chain(depth)) {
				t.Errorf("depth %d: read another tree", depth)
			}
			if spilled := cap(d.fast) > 0; spilled != (depth-1 > localFrames) {
				t.Errorf("depth %d, cut %d: spilled %v", depth, cut, spilled)
			}
			if d.spilled {
				t.Errorf("depth %d, cut %d: still marked spilled", depth, cut)
			}
			for i, f := range d.fast[:cap(d.fast)] {
				if f.node != nil || f.kids != nil {
					t.Fatalf("depth %d, cut %d: frame %d still holds nodes", depth, cut, i)
				}
			}
		}
	}
}

// TestSlabsLearnSnapshotSize: after one snapshot the decoder sizes the
// next one's node slab from it, so a steady stream of like snapshots
// takes one node chunk each; the snapshot's scrolls live in the arena of
// its copied input; and windows up to inlineWindows come with the
// response.
func TestSlabsLearnSnapshotSize(t *testing.T) {
	tree := &Node{ID: 1, Children: make([]Node, 400), Scroll: &Scroll{Axis: 1}}
	for i := range tree.Children {
		// Nodes of 36 bytes, an app's size: a first chunk holds at most
		// a node per firstChunkLen bytes.
		tree.Children[i] = Node{ID: uint32(i + 2), Text: "item text of the app"}
		if i%8 == 7 { // a scroll every 8 nodes, 240 bytes apart: the arena holds one per maxArenaGap bytes
			tree.Children[i].Scroll = &Scroll{Axis: 1}
		}
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
	if uintptr(unsafe.Pointer(kids[7].Scroll))%unsafe.Alignof(Scroll{}) != 0 {
		t.Error("a misaligned scroll")
	}
	// The response, the input's copy with the scrolls, the string
	// table, the node slab.
	checkAllocs(t, "a learned snapshot decodes with", 4, func() { decodeSnap() })
}

// TestEncodeRefusesInvalidNodeText: every text of a node is checked for
// UTF-8 as it is written, at every length around the 8- and 16-byte
// loads of validText and with the bad byte first, inside and last; the
// error names the field, and valid non-ASCII text of the same lengths
// encodes.
func TestEncodeRefusesInvalidNodeText(t *testing.T) {
	fields := map[string]func(n *Node, s string){}
	for _, k := range nodeTextKeys { // every text of the schema
		fields[schema.Node.Name(uint64(k))] = func(n *Node, s string) { *n.textField(k) = s }
	}
	for name, set := range fields {
		for _, l := range []int{1, 2, 7, 8, 9, 15, 16, 17, 24, 40} {
			for _, at := range []int{0, l / 2, l - 1} {
				bad := []byte(strings.Repeat("a", l))
				bad[at] = 0xff
				good := []byte(strings.Repeat("a", l))
				if l >= 2 {
					copy(good[l-2:], "é")
				}
				for _, valid := range []bool{false, true} {
					s := string(bad)
					if valid {
						s = string(good)
					}
					root := &Node{ID: 1, Children: []Node{{ID: 2}, {ID: 3}}}
					set(&root.Children[1], s)
					snap := &Snapshot{Strings: []string{}, Windows: []Window{{ID: 1, Root: root}}}
					buf := make([]byte, 3, 64)
					out, err := Append(buf, &Response{ID: 1, Method: MethodSnapshot, Result: snap})
					var ee *EncodeError
					switch {
					case valid && err != nil:
						t.Errorf("%s of %d bytes, valid: %v", name, l, err)
					case !valid && (!errors.As(err, &ee) || !strings.HasSuffix(ee.Field, "(level 2)."+name)):
						t.Errorf("%s of %d bytes, 0xff at %d: %v", name, l, at, err)
					case !valid && len(out) != 3:
						t.Errorf("%s: a refused message left %d bytes", name, len(out))
					}
				}
			}
		}
	}
}

// TestPutU32: putU32 and putI32 write what cbor.AppendUint and AppendInt
// append, at every head length and its limits, and return the offset
// past it.
func TestPutU32(t *testing.T) {
	var vals []int64
	for _, v := range []int64{0, 1, 23, 24, 25, 255, 256, 257, 65535, 65536, 1 << 24, 1<<31 - 1, 1 << 31, 1<<32 - 1} {
		vals = append(vals, v, -v, -v-1)
	}
	for _, v := range vals {
		b := make([]byte, 2+putRoom)
		if v >= 0 && v <= 1<<32-1 {
			want := cbor.AppendUint(nil, uint64(v))
			if end := putU32(b, 2, uint32(v)); end != 2+len(want) || !bytes.Equal(b[2:end], want) {
				t.Errorf("putU32(%d) = % x, want % x", v, b[2:end], want)
			}
		}
		if v >= -1<<31 && v <= 1<<31-1 {
			want := cbor.AppendInt(nil, v)
			if end := putI32(b, 2, int32(v)); end != 2+len(want) || !bytes.Equal(b[2:end], want) {
				t.Errorf("putI32(%d) = % x, want % x", v, b[2:end], want)
			}
			x := int32(v)
			bounds := Bounds{x, -x / 2, x / 3, ^x}
			want = bounds.appendCBOR(nil)
			bb := make([]byte, 1+boundsWindow)
			if end := putBounds(bb, 1, &bounds); end != 1+len(want) || !bytes.Equal(bb[1:end], want) {
				t.Errorf("putBounds(%v) = % x, want % x", bounds, bb[1:end], want)
			}
		}
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
	checkAllocsAtMost(t, "3001 tiny nodes in 301 arrays after a sparse snapshot", 12, func() {
		d.Decoder.Reset(b)
		d.own, d.slab, d.scrolls = nil, nil, nil
		d.nodeLen = 4000 // as if the last snapshot had 4 KB of text a node
		if _, err := d.message(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFastPathGivesBack: a tree the fast path gives up on deep inside
// (a null in its last node) is read by the general path, and the nodes
// and scrolls the fast path took are given back: the slab holds each
// node once, whatever the width of the children heads.
func TestFastPathGivesBack(t *testing.T) {
	for _, kids := range []int{20, 300} { // one- and two-byte heads
		root := &Node{ID: 1, Children: make([]Node, kids)}
		for i := range root.Children {
			root.Children[i] = Node{ID: uint32(i + 2), Children: []Node{{ID: 9}}, Scroll: &Scroll{Axis: 1}}
		}
		b, err := Marshal(&Response{ID: 1, Method: MethodSnapshot, Result: &Snapshot{Strings: []string{"a"}, Windows: []Window{{ID: 1, Root: root}}}})
		if err != nil {
			t.Fatal(err)
		}
		// The last node's map: {0: 9, 1: 0, 2: [0,0,0,0], 3: 0} becomes
		// {0: 9, 1: 0, 2: [...], 3: 0, 4: null} in the same bytes,
		// by turning the window's trailing pairs into it.
		last := bytes.LastIndex(b, []byte{0xa4, 0x00, 0x09})
		if last < 0 {
			t.Fatal("no last node")
		}
		patched := append(append(append([]byte{}, b[:last]...), 0xa5), b[last+1:last+13]...)
		patched = append(append(patched, 4, 0xf6), b[last+13:]...)
		d := new(decoder)
		d.Decoder.Reset(patched)
		d.src, d.copyInput = patched, true
		m, err := d.message()
		if err != nil {
			t.Fatal(err)
		}
		got := m.(*Response).Result.(*Snapshot).Windows[0].Root
		if len(got.Children) != kids || got.Children[kids-1].Children[0].ID != 9 {
			t.Fatalf("%d kids: read another tree", kids)
		}
		if want := 1 + 2*kids; d.nodesTaken != want {
			t.Errorf("%d kids: %d nodes taken, want %d: the fast path's were not given back", kids, d.nodesTaken, want)
		}
		if d.scrollsTaken != kids {
			t.Errorf("%d kids: %d scrolls taken, want %d", kids, d.scrollsTaken, kids)
		}
	}
}

// TestClaimsBeyondTheBytesLeft: a children head whose nodes, beside those
// the open arrays still promise, cannot fit in the bytes left is refused
// at once, at its own offset, naming the field, even when the slab has
// room for them; with one byte more the claims fit, and the decoder goes
// on to fail where the nodes are not.
func TestClaimsBeyondTheBytesLeft(t *testing.T) {
	node := []byte{0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0, 8}
	// The root claims 4 children; its first child claims 3 more: 6
	// nodes still to come, 78 bytes, with 77 left (or 78).
	tree := append(append([]byte{}, node...), 0x84)
	tree = append(tree, node...)
	at := len(tree)
	tree = append(tree, 0x83)
	tree = append(tree, make([]byte, 78)...)
	for extra, want := range []string{"3 children cannot fit in the 77 bytes left beside the 3 nodes", "unsigned integer where a map was expected"} {
		in := tree[:len(tree)-1+extra]
		d := &decoder{src: in, slabs: slabs{slab: make([]Node, 0, 100)}}
		d.Decoder.Reset(in)
		root, _ := d.takeNodes(1)
		err := d.nodeTree(&root[0])
		var de *cbor.Error
		if !errors.As(err, &de) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%d bytes more: %v, want %q", extra, err, want)
		}
		if extra == 0 && (de.Offset != at || !errors.Is(err, cbor.ErrTruncated) || !strings.Contains(err.Error(), "children[0].children")) {
			t.Fatalf("%v at %d, want truncated at %d in children[0].children", err, de.Offset, at)
		}
	}
}
