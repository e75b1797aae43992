package codec

//go:generate go run ./internal/fieldgen -pkg codec

import (
	"encoding/binary"
	"slices"
	"strconv"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// Snapshot is the result of snapshot: the windows on screen and their node
// trees, with a string table for class, package and resource names.
type Snapshot struct {
	Strings   []string     // key 0, indexed by Node.Class, Node.ResPkg, Window.Package, Window.Owner
	Windows   []Window     // key 1
	Truncated uint32       // key 2, bits: schema.TruncatedDepth, schema.TruncatedNodes, schema.TruncatedWindows
	Seq       uint64       // key 3, the last tree-stream event sent when the tree was read
	Display   Opt[Display] // key 4
}

// Window is one window on screen.
type Window struct {
	ID          uint32      // key 0
	Type        uint32      // key 1, AccessibilityWindowInfo.TYPE_* (1 application, 2 input method, ...)
	Layer       int32       // key 2
	Bounds      Bounds      // key 3
	Flags       uint32      // key 4, bits schema.WindowActive ...
	Title       Opt[string] // key 5
	Package     Opt[uint32] // key 6, string table index
	Root        *Node       // key 7
	EmitsEvents Opt[bool]   // key 8, absent when the agent cannot tell
	Owner       Opt[uint32] // key 9, string table index; absent when the app owns it
	Modal       bool        // key 10, omitted when false
}

// Node is one accessibility node.
//
// Its text fields (those of type string) are plain strings, present
// when not "": a node whose text is present but empty has the field's
// bit in Empty (Has reads both). The decoder sets a bit of Empty only
// for a text that arrived empty, so a node written with a non-empty Text
// and no bits reads back equal. A plain string takes 8 bytes fewer than
// an Opt[string] would, for every text of every node: a snapshot's nodes
// are most of what decoding it allocates (TestRecordSizes).
//
// Each field other than Empty fills the key of its name
// (schema.KeyNode<Field>),
// in key order: the per-field code of a node (node_gen.go, NodeView, the
// twin) is generated from them, so a new optional text is a key, a field
// of type string after the last, and a golden sample that carries it.
type Node struct {
	ID       uint32      // key 0, unique within the snapshot, from 1
	Class    uint32      // key 1, string table index
	Bounds   Bounds      // key 2
	Flags    uint32      // key 3, bits schema.NodeClickable ...
	Empty    NodeTexts   // the text fields present though "" (see Has)
	Text     string      // key 4
	Desc     string      // key 5
	ResPkg   Opt[uint32] // key 6, string table index
	ResName  string      // key 7
	Children []Node      // key 8, omitted when empty
	Scroll   *Scroll     // key 9, on nodes that scroll
	Hint     string      // key 10
	State    string      // key 11
}

// NodeTexts is a set of a node's text fields, one bit per key: the
// bit of key k is 1<<k. Its constants, one a text field, are generated
// from the schema (node_gen.go) beside the other per-field code of a
// node.
type NodeTexts uint16

// Has reports whether every text field of t is present on n: not "",
// or its bit set in n.Empty.
func (n *Node) Has(t NodeTexts) bool {
	for _, k := range nodeTextKeys {
		if bit := NodeTexts(1) << k; t&bit != 0 && !n.hasText(bit, *n.textField(k)) {
			return false
		}
	}
	return true
}

// hasText is the rule of presence of a node's text: s, the field of bit,
// is present when it is not "" or bit is set in n.Empty. Has and the
// encoder ask it.
func (n *Node) hasText(bit NodeTexts, s string) bool { return s != "" || n.Empty&bit != 0 }

// SetText makes n's text field of key k (a key of the schema whose
// field is a text: the key of a NodeTexts constant) present with s,
// setting the field's bit in Empty when s is "". Another key panics.
func (n *Node) SetText(k int, s string) {
	mustText(k)
	*n.textField(k) = s
	if s == "" {
		n.Empty |= 1 << k
	}
}

// mustText panics unless k is the key of a node's text field.
func mustText(k int) {
	if k < 0 || k >= nodeKeys || nodeTexts&(1<<k) == 0 {
		panic("codec: key " + strconv.Itoa(k) + " is not a node's text field")
	}
}

// ClearText makes n's text field of key k absent, as SetText names it.
func (n *Node) ClearText(k int) {
	mustText(k)
	*n.textField(k) = ""
	n.Empty &^= 1 << k
}

// Scroll holds a scrolling node's semantics.
type Scroll struct {
	Axis     uint32              // key 0: schema.ScrollUnknown, schema.ScrollVertical, schema.ScrollHorizontal
	Flags    uint32              // key 1: bits schema.ScrollBack, schema.ScrollForward
	Range    Opt[ScrollRange]    // key 2
	Position Opt[ScrollPosition] // key 3, only with Range
}

// ScrollRange is the span of a node's content, both ends inclusive:
// [unit, lo, hi] on the wire.
type ScrollRange struct {
	Unit   uint32 // schema.RangeItems or schema.RangePercent
	Lo, Hi int64
}

// ScrollPosition is the part of the range inside the viewport, both ends
// inclusive: [lo, hi] on the wire.
type ScrollPosition struct {
	Lo, Hi int64
}

// Bounds is a rectangle in screen pixels: [left, top, right, bottom].
type Bounds struct {
	Left, Top, Right, Bottom int32
}

// Encoding.

func (s *Snapshot) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 4+present(s.Display.Ok))
	dst = cbor.AppendArrayHead(append(dst, schema.KeySnapshotStrings), len(s.Strings))
	for i, str := range s.Strings {
		if err := checkTextAt(str, "result.strings", i, ""); err != nil {
			return dst, err
		}
		dst = cbor.AppendText(dst, str)
	}
	dst = cbor.AppendArrayHead(append(dst, schema.KeySnapshotWindows), len(s.Windows))
	for i := range s.Windows {
		var err error
		if dst, err = s.Windows[i].appendCBOR(dst, i); err != nil {
			return dst, err
		}
	}
	dst = appendUintField(dst, schema.KeySnapshotTruncated, uint64(s.Truncated))
	dst = appendUintField(dst, schema.KeySnapshotSeq, s.Seq)
	if s.Display.Ok {
		dst = s.Display.Val.appendCBOR(append(dst, schema.KeySnapshotDisplay))
	}
	return dst, nil
}

func (b *Bounds) appendCBOR(dst []byte) []byte {
	dst = cbor.AppendInt(append(dst, 0x84), int64(b.Left))
	dst = cbor.AppendInt(dst, int64(b.Top))
	dst = cbor.AppendInt(dst, int64(b.Right))
	return cbor.AppendInt(dst, int64(b.Bottom))
}

func (w *Window) appendCBOR(dst []byte, i int) ([]byte, error) {
	if w.Title.Ok {
		if err := checkTextAt(w.Title.Val, "result.windows", i, ".title"); err != nil {
			return dst, err
		}
	}
	dst = cbor.AppendMapHead(dst, 5+present(w.Title.Ok, w.Package.Ok, w.Root != nil, w.EmitsEvents.Ok, w.Owner.Ok, w.Modal))
	dst = appendUintField(dst, schema.KeyWindowID, uint64(w.ID))
	dst = appendUintField(dst, schema.KeyWindowType, uint64(w.Type))
	dst = appendIntField(dst, schema.KeyWindowLayer, int64(w.Layer))
	dst = w.Bounds.appendCBOR(append(dst, schema.KeyWindowBounds))
	dst = appendUintField(dst, schema.KeyWindowFlags, uint64(w.Flags))
	if w.Title.Ok {
		dst = appendTextField(dst, schema.KeyWindowTitle, w.Title.Val)
	}
	dst = appendOptU32(dst, schema.KeyWindowPackage, w.Package)
	if w.Root != nil {
		var err error
		if dst, err = appendTree(append(dst, schema.KeyWindowRoot), w.Root, i); err != nil {
			return dst, err
		}
	}
	if w.EmitsEvents.Ok {
		dst = appendBoolField(dst, schema.KeyWindowEmitsEvents, w.EmitsEvents.Val)
	}
	dst = appendOptU32(dst, schema.KeyWindowOwner, w.Owner)
	if w.Modal {
		dst = append(dst, schema.KeyWindowModal, cbor.True)
	}
	return dst, nil
}

// appendTree encodes a node tree depth first with an explicit stack, so a
// caller's deep tree cannot exhaust the goroutine stack; it refuses a tree
// deeper than schema.MaxNodeDepth.
func appendTree(dst []byte, root *Node, window int) ([]byte, error) {
	type frame struct {
		node *Node
		next int // index of the next child to encode
	}
	var stackBuf [schema.MaxNodeDepth]frame
	stack := stackBuf[:0]
	var err error
	if dst, err = root.appendNode(dst, window, 1); err != nil || len(root.Children) == 0 {
		return dst, err
	}
	stack = append(stack, frame{node: root})
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == len(f.node.Children) {
			if dst, err = f.node.appendTail(dst, window, len(stack)); err != nil {
				return dst, err
			}
			stack = stack[:len(stack)-1]
			continue
		}
		child := &f.node.Children[f.next]
		f.next++
		level := len(stack) + 1
		if dst, err = child.appendNode(dst, window, level); err != nil {
			return dst, err
		}
		if len(child.Children) == 0 {
			continue // written whole
		}
		if level == schema.MaxNodeDepth {
			return dst, &EncodeError{Field: "result.windows[" + itoa(window) + "].root", Detail: "node tree deeper than " + itoa(schema.MaxNodeDepth) + " levels"}
		}
		stack = append(stack, frame{node: child})
	}
	return dst, nil
}

func nodeField(window, level int, name string) string {
	return "result.windows[" + itoa(window) + "].root (level " + itoa(level) + ")." + name
}

// The node encoder reserves room for a node's pairs once (nodeHeadRoom
// plus the texts) and writes them by index: a node is the bulk of a
// snapshot, and growing the slice pair by pair costs more than the
// writing.
const (
	nodeHeadRoom = 1 + 2*(1+5) + 1 + boundsRoom + 1 + 5 + 1 + 5 + 1 + cbor.MaxHeadLen // head, id, class, bounds, flags, res_pkg, children head
	nodeTailRoom = 2 + 2*(1+5) + 2 + 5 + 2*cbor.MaxHeadLen + 2 + 2*cbor.MaxHeadLen    // scroll
	textRoom     = 1 + cbor.MaxHeadLen                                                // key and head of a text
	boundsRoom   = 1 + 4*5
	boundsWindow = 40 // the room putBounds writes through: offsets up to 31, and 8 bytes past them
)

// appendNode's room holds putBounds's window: the bounds begin at most
// 14 bytes in (head, id and class of five-byte heads, key).
const _ = uint(nodeHeadRoom + putRoom - (14 + boundsWindow))

// putU32 writes v as an unsigned integer at dst[i:], which has room for
// putRoom bytes: ids, indices, flags and coordinates, the bulk of a
// snapshot.
func putU32(dst []byte, i int, v uint32) int {
	if v < 24 { // a string table index, mostly: written in line, without a call
		dst[i] = byte(v)
		return i + 1
	}
	return putInt32(dst, i, v, 0)
}

// putI32 writes v as an integer at dst[i:], which has room for putRoom
// bytes.
func putI32(dst []byte, i int, v int32) int { return putInt32(dst, i, uint32(v), uint32(v>>31)) }

// putInt32 writes v ^ neg as an integer of major type 0 (neg 0) or 1 (neg
// all ones, -1-v: v with every bit flipped) at dst[i:], which has room
// for putRoom bytes. Each head length is its own branch, written in one
// store (of two, four or eight bytes, past the head's end into the room):
// fewer instructions than computing the length, and coordinates, the
// bulk of a snapshot, mostly take the same branch.
func putInt32(dst []byte, i int, v, neg uint32) int {
	v ^= neg
	mt := byte(neg) & 0x20
	switch {
	case v < 24:
		dst[i] = mt | byte(v)
		return i + 1
	case v <= 0xff:
		binary.BigEndian.PutUint16(dst[i:], uint16(mt|24)<<8|uint16(v))
		return i + 2
	case v <= 0xffff:
		binary.BigEndian.PutUint32(dst[i:], uint32(mt|25)<<24|v<<8)
		return i + 3
	}
	binary.BigEndian.PutUint64(dst[i:], uint64(mt|26)<<56|uint64(v)<<24)
	return i + 5
}

// putRoom is the room putU32 and putI32 need at the offset they write at.
const putRoom = 8

// putBounds writes b as [left, top, right, bottom] at dst[i:], which has
// boundsWindow bytes of room. The coordinates are written through a
// window of boundsWindow bytes at offsets masked into it: one bounds
// check for the four (each takes at most five bytes, so the offsets stay
// below 17 and the mask changes none), and each head length is its own
// branch, written in one store, as in putInt32.
func putBounds(dst []byte, i int, b *Bounds) int {
	w := (*[boundsWindow]byte)(dst[i : i+boundsWindow])
	w[0] = 0x84
	j := 1
	for _, v := range (*[4]int32)(unsafe.Pointer(b)) { // Left, Top, Right, Bottom (TestBoundsLayout)
		neg := uint32(v >> 31)
		u := uint32(v) ^ neg
		mt := byte(neg) & 0x20
		k := j & 31 // below 17: the mask changes nothing
		switch {
		case u < 24:
			w[k] = mt | byte(u)
			j++
		case u <= 0xff:
			binary.BigEndian.PutUint16(w[k:], uint16(mt|24)<<8|uint16(u))
			j += 2
		case u <= 0xffff:
			binary.BigEndian.PutUint32(w[k:], uint32(mt|25)<<24|u<<8)
			j += 3
		default:
			binary.BigEndian.PutUint64(w[k:], uint64(mt|26)<<56|uint64(u)<<24)
			j += 5
		}
	}
	return i + j
}

// putTextField writes key k and text s at dst[i:], which has room for
// textRoom+len(s) bytes, and checks that the text written is valid
// UTF-8: it returns the offset past it, or -1. The check reads the copy,
// which is in the cache already: a short ASCII text, the commonest, in
// line (cbor.ShortASCII), another through cbor.ValidUTF8.
func putTextField(dst []byte, i int, k byte, s string) int {
	dst[i] = k
	i = cbor.PutText(dst, i+1, s)
	if !cbor.ShortASCII(dst, i-len(s), i) && !cbor.ValidUTF8(dst[i-len(s):i]) {
		return -1
	}
	return i
}

func invalidText(window, level int, name string) error {
	return &EncodeError{Field: nodeField(window, level, name), Detail: "text is not valid UTF-8"}
}

// appendNode writes the node's map head and keys 0 to 8 (the children
// array's head, when it has children), and for a node without children
// the keys after them too (putTail): the node whole, in room reserved
// once.
func (n *Node) appendNode(dst []byte, window, level int) ([]byte, error) {
	// Room for every text, present or not: an absent one's Val is
	// mostly "", and reserving for it costs nothing.
	leaf := len(n.Children) == 0
	room := nodeHeadRoom + putRoom + 3*textRoom + len(n.Text) + len(n.Desc) + len(n.ResName)
	if leaf {
		room += nodeTailRoom + nodeTailTextCount*textRoom + n.tailTextsLen()
	}
	dst = slices.Grow(dst, room)
	b := dst[len(dst) : len(dst)+room]
	// The map head, b[0], is written last, once the pairs are counted.
	pairs := byte(4)
	b[1] = schema.KeyNodeID
	i := putU32(b, 2, n.ID)
	b[i] = schema.KeyNodeClass
	i = putU32(b, i+1, n.Class)
	b[i] = schema.KeyNodeBounds
	i = putBounds(b, i+1, &n.Bounds)
	b[i] = schema.KeyNodeFlags
	i = putU32(b, i+1, n.Flags)
	// Most nodes have neither text nor desc: one test skips both.
	if len(n.Text)|len(n.Desc) != 0 || n.Empty&(NodeText|NodeDesc) != 0 {
		if n.hasText(NodeText, n.Text) {
			if i = putTextField(b, i, schema.KeyNodeText, n.Text); i < 0 {
				return dst, invalidText(window, level, "text")
			}
			pairs++
		}
		if n.hasText(NodeDesc, n.Desc) {
			if i = putTextField(b, i, schema.KeyNodeDesc, n.Desc); i < 0 {
				return dst, invalidText(window, level, "desc")
			}
			pairs++
		}
	}
	if n.ResPkg.Ok {
		b[i] = schema.KeyNodeResPkg
		i = putU32(b, i+1, n.ResPkg.Val)
		pairs++
	}
	if n.hasText(NodeResName, n.ResName) {
		if i = putTextField(b, i, schema.KeyNodeResName, n.ResName); i < 0 {
			return dst, invalidText(window, level, "res_name")
		}
		pairs++
	}
	if !leaf {
		b[i] = schema.KeyNodeChildren
		i = cbor.PutHead(b, i+1, cbor.MajorArray, uint64(len(n.Children)))
		pairs++
		// The tail (the keys after the children) follows them: count it here.
		pairs += byte(present(n.Scroll != nil)) + n.tailTextPairs()
		b[0] = 0xa0 | pairs // at most 16 pairs (nodeKeys): a one-byte head
		return dst[:len(dst)+i], nil
	}
	i, tail, err := n.putTail(b, i, window, level)
	if err != nil {
		return dst, err
	}
	b[0] = 0xa0 | (pairs + tail)
	return dst[:len(dst)+i], nil
}

// appendTail writes the keys after the children (scroll and texts) of a
// node with children, after them.
func (n *Node) appendTail(dst []byte, window, level int) ([]byte, error) {
	if n.Scroll == nil && n.tailTextsOr() == 0 && n.Empty&nodeTailTexts == 0 {
		return dst, nil
	}
	room := nodeTailRoom + nodeTailTextCount*textRoom + n.tailTextsLen() + putRoom
	dst = slices.Grow(dst, room)
	i, _, err := n.putTail(dst[len(dst):len(dst)+room], 0, window, level)
	if err != nil {
		return dst, err
	}
	return dst[:len(dst)+i], nil
}

// putScroll writes key 9 and the scroll map s at b[i:], which has room
// for them (nodeTailRoom), and returns the offset past them; putTail
// (node_gen.go) calls it.
func putScroll(b []byte, i int, s *Scroll, window, level int) (int, error) {
	if s.Position.Ok && !s.Range.Ok {
		return 0, &EncodeError{Field: nodeField(window, level, "scroll.position"), Detail: "a position needs a range"}
	}
	b[i], b[i+1], b[i+2] = schema.KeyNodeScroll, 0xa2+byte(present(s.Range.Ok, s.Position.Ok)), schema.KeyScrollAxis
	i = putU32(b, i+3, s.Axis)
	b[i] = schema.KeyScrollFlags
	i = putU32(b, i+1, s.Flags)
	if s.Range.Ok {
		r := &s.Range.Val
		b[i], b[i+1] = schema.KeyScrollRange, 0x83
		i = putU32(b, i+2, r.Unit)
		i = cbor.PutInt(b, i, r.Lo)
		i = cbor.PutInt(b, i, r.Hi)
	}
	if s.Position.Ok {
		p := &s.Position.Val
		b[i], b[i+1] = schema.KeyScrollPosition, 0x82
		i = cbor.PutInt(b, i+2, p.Lo)
		i = cbor.PutInt(b, i, p.Hi)
	}
	return i, nil
}

// appendNode writes the texts before the children itself: text, desc
// and res_name. A text key added before the children fails to compile
// here until appendNode writes it.
const _ = uint(nodeHeadTexts-(NodeText|NodeDesc|NodeResName)) + uint((NodeText|NodeDesc|NodeResName)-nodeHeadTexts)

// Decoding.

func (s *Snapshot) decodeFrom(d *decoder) error {
	*s = Snapshot{}
	if d.r != nil {
		d.r.startSnapshot(d)
	} else {
		d.reserveArena()
	}
	return d.fields(schema.Snapshot, func(k uint64) (err error) {
		switch k {
		case schema.KeySnapshotStrings:
			s.Strings, err = d.stringTable()
		case schema.KeySnapshotWindows:
			s.Windows, err = d.windows()
		case schema.KeySnapshotTruncated:
			s.Truncated, err = d.u32()
		case schema.KeySnapshotSeq:
			s.Seq, err = d.u64()
		case schema.KeySnapshotDisplay:
			s.Display = Opt[Display]{Ok: true}
			err = d.display(&s.Display.Val)
		default:
			err = noReader(schema.Snapshot, k)
		}
		return err
	}, func(k uint64) {
		switch k {
		case schema.KeySnapshotStrings:
			s.Strings = nil
		case schema.KeySnapshotWindows:
			s.Windows = nil
		case schema.KeySnapshotDisplay:
			s.Display = Opt[Display]{}
		}
	})
}

// inlineStrings is the longest string table reserved as its head says,
// without a look at the strings first: tables of apps hold a few dozen.
const inlineStrings = 256

func (d *decoder) stringTable() ([]string, error) {
	n, err := d.ArrayHead()
	if err != nil {
		return nil, err
	}
	// A table longer than the common ones is reserved only when its
	// strings are there (present), for a string header takes 16 times
	// the byte of an empty string; when they are not, its decoding fails,
	// and the strings are read to find where, keeping none.
	doomed := n > inlineStrings && d.itemsPresent(n, 1) < n
	var out []string
	if !doomed {
		if err := d.afford(max(n, 0) * stringSize); err != nil {
			return nil, cbor.WithField(err, "strings")
		}
		out = d.stringsRoom(max(n, 0))
	}
	for i := 0; d.More(n, i); i++ {
		s, err := d.text()
		if err != nil {
			return nil, cbor.WithIndex(err, i)
		}
		if !doomed {
			out = append(out, s)
		}
	}
	if doomed {
		return nil, notThere(d.Offset(), "strings")
	}
	return out, nil
}

// notThere is the error of an array whose items present counted short
// and whose decoding nevertheless ended: it cannot happen, since an item
// present refuses is one the decoding refuses too, but the decoder's
// reading of such an array kept none of its items.
func notThere(off int, what string) error {
	return cbor.Errorf(cbor.ErrInvalid, off, what+": items a walk found missing or malformed were decoded")
}

func (d *decoder) windows() ([]Window, error) {
	n, err := d.Decoder.ArrayHeadOf(schema.MinWindowLen, "windows")
	if err != nil {
		return nil, err
	}
	var out []Window
	doomed := false
	if n >= 0 && n <= len(d.winBuf) {
		out = d.winBuf[:n:n] // allocated with the response
	} else if doomed = n > 0 && d.itemsPresent(n, schema.MinWindowLen) < n; doomed {
		// Not all there: the decoding fails, and the windows are read
		// into one to find where.
		out = make([]Window, 1)
	} else {
		if err := d.afford(max(n, 0) * int(unsafe.Sizeof(Window{}))); err != nil {
			return nil, cbor.WithField(err, "windows")
		}
		out = make([]Window, max(n, 0))
	}
	d.winBuf = nil
	d.startTrees()
	defer d.endTrees()
	for i := 0; d.More(n, i); i++ {
		var w *Window
		switch {
		case doomed:
			w = &out[0]
			*w = Window{}
		case n < 0:
			out = append(out, Window{})
			fallthrough
		default:
			w = &out[i]
		}
		if n >= 0 {
			d.winPending = n - i - 1
		}
		if err := d.window(w); err != nil {
			return nil, cbor.WithIndex(err, i)
		}
	}
	d.winPending = 0
	if doomed {
		return nil, notThere(d.Offset(), "windows")
	}
	return out, nil
}

func (d *decoder) window(w *Window) error {
	return d.fields(schema.Window, func(k uint64) (err error) {
		switch k {
		case schema.KeyWindowID:
			w.ID, err = d.u32()
		case schema.KeyWindowType:
			w.Type, err = d.u32()
		case schema.KeyWindowLayer:
			w.Layer, err = d.i32()
		case schema.KeyWindowBounds:
			err = d.bounds(&w.Bounds)
		case schema.KeyWindowFlags:
			w.Flags, err = d.u32()
		case schema.KeyWindowTitle:
			w.Title, err = d.optText()
		case schema.KeyWindowPackage:
			w.Package, err = d.optU32()
		case schema.KeyWindowRoot:
			var root []Node
			if root, err = d.takeNodes(1); err != nil {
				return err
			}
			w.Root = &root[0]
			if !fastPaths || !d.nodeTreeFast(w.Root) {
				err = d.nodeTree(w.Root)
			}
		case schema.KeyWindowEmitsEvents:
			w.EmitsEvents, err = d.optBool()
		case schema.KeyWindowOwner:
			w.Owner, err = d.optU32()
		case schema.KeyWindowModal:
			w.Modal, err = d.Bool()
		default:
			err = noReader(schema.Window, k)
		}
		return err
	}, func(k uint64) {
		switch k {
		case schema.KeyWindowTitle:
			w.Title = Opt[string]{}
		case schema.KeyWindowPackage:
			w.Package = Opt[uint32]{}
		case schema.KeyWindowRoot:
			w.Root = nil
		case schema.KeyWindowEmitsEvents:
			w.EmitsEvents = Opt[bool]{}
		case schema.KeyWindowOwner:
			w.Owner = Opt[uint32]{}
		case schema.KeyWindowModal:
			w.Modal = false
		}
	})
}

// bounds reads [left, top, right, bottom], skipping elements past those
// (shape.Bounds).
func (d *decoder) bounds(b *Bounds) error { return shape.Bounds(&d.Decoder, boundsTwin(b)) }

// nodeFrame is one open node of the decoder's explicit stack.
type nodeFrame struct {
	node   *Node
	start  int    // offset of the node's map head
	n, i   int    // pairs in the node's map (-1: indefinite), pairs read
	seen   uint32 // keys present
	kids   []Node // the children being decoded while inKids
	kn, ki int    // children in the array (-1: indefinite), children started
	inKids bool
	doomed bool // the children are not all there: read into kids[0], kept by none
}

// nodeTree decodes the tree rooted at root depth first, keeping the open
// nodes on a stack on the heap: no recursion, and a tree deeper than
// schema.MaxNodeDepth fails as soon as its level schema.MaxNodeDepth+1 begins.
func (d *decoder) nodeTree(root *Node) (err error) {
	stack := d.stack[:0]
	defer func() {
		if err != nil {
			err = treePath(err, stack)
		}
		clear(stack[:cap(stack)]) // popped frames too: the pooled decoder keeps no message alive
		d.stack = stack[:0]
	}()
	open := func(n *Node) error {
		start := d.Offset()
		cnt, err := d.mapHead()
		if err != nil {
			return err
		}
		// n comes zeroed from takeNodes.
		stack = append(stack, nodeFrame{node: n, start: start, n: cnt})
		return nil
	}
	if err := open(root); err != nil {
		return err
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.inKids {
			if d.More(f.kn, f.ki) {
				if len(stack) == schema.MaxNodeDepth {
					return cbor.Errorf(cbor.ErrDepth, d.Offset(), "node tree deeper than "+itoa(schema.MaxNodeDepth)+" levels")
				}
				var child *Node
				switch {
				case f.doomed:
					// Not all there (claimKids): the decoding fails,
					// and the children are read into one to find where.
					child = &f.kids[0]
					*child = Node{}
				case f.kn < 0:
					f.kids = append(f.kids, Node{})
					fallthrough
				default:
					child = &f.kids[f.ki]
				}
				f.ki++
				if err := open(child); err != nil {
					return err
				}
				continue
			}
			if f.doomed {
				return notThere(d.Offset(), "children")
			}
			if len(f.kids) > 0 {
				f.node.Children = f.kids
			}
			f.kids, f.inKids = nil, false
			f.seen |= 1 << schema.KeyNodeChildren
			f.i++
			continue
		}
		if !d.More(f.n, f.i) {
			if err := schema.Node.Missing(f.seen, f.start); err != nil {
				return err
			}
			stack = stack[:len(stack)-1]
			continue
		}
		k, err := d.Key()
		if err != nil {
			return err
		}
		if k == schema.KeyNodeChildren && d.Null() {
			// Null reads as absent.
			f.node.Children = nil
			f.seen &^= 1 << schema.KeyNodeChildren
			f.i++
			continue
		}
		if k == schema.KeyNodeChildren {
			at := d.Offset()
			kn, err := d.Decoder.ArrayHeadOf(schema.MinNodeLen, "children")
			size := 0
			if err == nil && kn > 0 {
				size, err = d.claimKids(promised(stack), kn, at)
			}
			if err != nil {
				return cbor.WithField(err, "children")
			}
			f.node.Children = nil
			f.kids, f.kn, f.ki, f.inKids, f.doomed = nil, kn, 0, true, size < kn
			if size > 0 {
				if f.kids, err = d.takeNodes(size); err != nil {
					return cbor.WithField(err, "children")
				}
			}
			continue
		}
		if err := d.nodeField(f, k); err != nil {
			return schema.Node.In(err, k)
		}
		f.i++
	}
	return nil
}

// claimKids checks a children array of kn nodes whose head is at at,
// the decoder just past it, with promised nodes still to come of the
// arrays open around it, and returns how many nodes to reserve for it.
// Those nodes, this array's and the windows still to come each take
// their least bytes, after the position and apart: together they must fit
// in the bytes left, or the head is refused at once. A claim that fits in
// the slab's room is reserved whole, and so is one whose nodes a walk
// shows are there (present); for one whose nodes are not, whose decoding
// is bound to fail, it reserves one node, into which the children are
// read until the decoding finds where (the error is then the one the
// decoding meets, whatever was reserved before). Both node-tree readers
// claim through it.
func (d *decoder) claimKids(promised, kn, at int) (int, error) {
	if need := (promised+kn)*schema.MinNodeLen + d.winPending*schema.MinWindowLen; need > d.Len() {
		return 0, cbor.Errorf(cbor.ErrTruncated, at, itoa(kn)+" children cannot fit in the "+itoa(d.Len())+" bytes left beside the "+
			itoa(promised)+" nodes and "+itoa(d.winPending)+" windows still to come")
	}
	if d.fits(kn) || d.itemsPresent(kn, schema.MinNodeLen) == kn {
		return kn, nil
	}
	return 1, nil
}

// promised is the nodes still to come of the open children arrays of
// the general reader's stack.
func promised(stack []nodeFrame) int {
	p := 0
	for i := range stack {
		if f := &stack[i]; f.inKids && f.kn > 0 {
			p += f.kn - f.ki
		}
	}
	return p
}

// treePath adds the path inside the tree to an error: the children
// indices from the root down to the node that failed.
func treePath(err error, stack []nodeFrame) error {
	for j := len(stack) - 1; j >= 1; j-- {
		err = cbor.WithField(cbor.WithIndex(err, stack[j-1].ki-1), "children")
	}
	return err
}

// nodeField decodes the value of key k of the node on top of the stack;
// the children are nodeTree's.
func (d *decoder) nodeField(f *nodeFrame, k uint64) (err error) {
	n := f.node
	if d.Null() {
		switch {
		case k < nodeKeys && nodeTexts&(1<<k) != 0:
			n.ClearText(int(k))
		case k == schema.KeyNodeResPkg:
			n.ResPkg = Opt[uint32]{}
		case k == schema.KeyNodeChildren:
			n.Children = nil
		case k == schema.KeyNodeScroll:
			n.Scroll = nil
		}
		if k < 32 {
			f.seen &^= 1 << k
		}
		return nil
	}
	if k < nodeKeys && nodeTexts&(1<<k) != 0 {
		var t string
		if t, err = d.text(); err == nil {
			n.SetText(int(k), t)
			f.seen |= 1 << k
		}
		return err
	}
	switch k {
	case schema.KeyNodeID:
		n.ID, err = d.u32()
	case schema.KeyNodeClass:
		n.Class, err = d.u32()
	case schema.KeyNodeBounds:
		err = d.bounds(&n.Bounds)
	case schema.KeyNodeFlags:
		n.Flags, err = d.u32()
	case schema.KeyNodeResPkg:
		n.ResPkg, err = d.optU32()
	case schema.KeyNodeScroll:
		if n.Scroll, err = d.takeScroll(); err == nil {
			err = d.scroll(n.Scroll)
		}
	default:
		err = d.Skip()
	}
	if err == nil && k < 32 {
		f.seen |= 1 << k
	}
	return err
}

// scroll reads a scroll map in any layout (shape.ReadScroll).
func (d *decoder) scroll(s *Scroll) error { return shape.ReadScroll(&d.Decoder, scrollTwin(s)) }
