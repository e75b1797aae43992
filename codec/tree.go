package codec

import (
	"encoding/binary"
	"iter"
	"strconv"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Tree is a snapshot response read into memory the collector does not
// scan: a copy of the payload, whose texts the tree reads in place, and
// tables of fixed-size records without pointers, in one block of memory:
// a node's children are a range of the node table, its texts offsets
// into the copy. Decode's Snapshot of n nodes is n Nodes whose strings
// and slices the collector marks; a Tree of them is a record each that
// the collector never looks at (the sizes of both: TestRecordSizes). It
// is the form for a daemon that keeps or queues snapshots: DecodeTree
// reads one in two allocations (the header and the block), in about 60 %
// of the memory of Decode's Snapshot.
//
// A Tree is read, not edited: its accessors take a NodeRef (a node's
// index in the table) and read the record, and every index is checked,
// so no accessor reaches outside the tree (an index out of range panics,
// as a slice's does). A node's texts follow Node's model: a plain
// string, "" when absent, and Has tells a text present but empty from
// an absent one. To edit a snapshot, decode it with Decode.
//
// A Tree owns its memory and is never written after DecodeTree returns
// it. It is a snapshot's Result: a *Response may carry one (Response),
// and it encodes as the snapshot it holds.
type Tree struct {
	// The pointer words first: the collector scans the header up to the
	// last of them, and nothing it points to.
	buf     []byte     // the texts: each a CBOR text (head and bytes) at an offset > 0
	nodes   []treeNode // the node table; children are contiguous
	wins    []treeWindow
	strs    []uint32 // the string table: offsets of texts in buf
	scrolls []Scroll
	resp    Response

	// formed is what the fast reader knows of its input: 0 nothing yet,
	// 1 well-formed, -1 not (see mayAllocate).
	formed int8

	ID        uint64       // the response's id
	Truncated uint32       // as Snapshot.Truncated
	Seq       uint64       // as Snapshot.Seq
	Display   Opt[Display] // as Snapshot.Display
}

// NodeRef is a node of a Tree: its index in the tree's node table, from
// 0 to NumNodes-1.
type NodeRef uint32

// treeNode is a node of a Tree: Node's fields, with texts as offsets of
// CBOR texts in the tree's buf (0: absent) and children as a range of the
// node table.
type treeNode struct {
	id, class uint32
	bounds    Bounds
	flags     uint32
	texts     [nodeTextCount]uint32 // by nodeTextSlot: the texts in key order
	resPkg    uint32
	kids      uint32 // the first child's index
	nkids     uint32 // how many children
	scroll    uint32 // 1 + the index in scrolls, 0: none
	bits      uint32 // treeResPkg
}

// treeNode bits.
const treeResPkg = 1

// treeWindow is a window of a Tree: Window's fields, its title an offset
// in buf (0: absent), its root an index of the node table.
type treeWindow struct {
	id, typ uint32
	layer   int32
	bounds  Bounds
	flags   uint32
	title   uint32
	pkg     uint32
	owner   uint32
	root    uint32
	bits    uint32 // treeWin*
}

// treeWindow bits.
const (
	treeWinPackage = 1 << iota
	treeWinOwner
	treeWinEmits
	treeWinEmitsTrue
	treeWinModal
	treeWinRoot
)

// A node record is treeNodeFixed bytes and a uint32 a text (the texts
// follow the schema: nodeTextKeys, generated). It holds no pointers, and
// so neither does a table of them: the collector never scans one
// (TestTreeTablesHoldNoPointers). The size is held at compile time, so a
// field added to the record is a decision, not an accident.
const (
	treeNodeFixed = 48
	_             = uint(treeNodeFixed + 4*nodeTextCount - unsafe.Sizeof(treeNode{}))
	_             = uint(unsafe.Sizeof(treeNode{}) - treeNodeFixed - 4*nodeTextCount)
)

// textIn returns the text whose CBOR head is at buf[off] as a string of
// buf's memory. The tree wrote or checked it: its head is a definite text
// head of one to nine bytes and its bytes are there (the slicing checks
// it again).
func textIn(buf []byte, off uint32) string {
	c := buf[off]
	i := int(off) + 1
	var l int
	switch {
	case c < 0x78:
		l = int(c - 0x60)
	case c == 0x78:
		l, i = int(buf[i]), i+1
	case c == 0x79:
		l, i = int(binary.BigEndian.Uint16(buf[i:])), i+2
	case c == 0x7a:
		l, i = int(binary.BigEndian.Uint32(buf[i:])), i+4
	default:
		l, i = int(binary.BigEndian.Uint64(buf[i:])), i+8
	}
	return str(buf[i : i+l])
}

// node returns n's record, panicking when n is not a node of t.
func (t *Tree) node(n NodeRef) *treeNode {
	if int(n) >= len(t.nodes) {
		panic("codec: node " + strconv.FormatUint(uint64(n), 10) + " of a tree of " + itoa(len(t.nodes)) + " nodes")
	}
	return &t.nodes[n]
}

// NumNodes is the number of nodes in the tree, of every window.
func (t *Tree) NumNodes() int { return len(t.nodes) }

// NodeID is node n's id (Node.ID).
func (t *Tree) NodeID(n NodeRef) uint32 { return t.node(n).id }

// Class is node n's class, an index of the string table (Node.Class).
func (t *Tree) Class(n NodeRef) uint32 { return t.node(n).class }

// Bounds is node n's bounds (Node.Bounds).
func (t *Tree) Bounds(n NodeRef) Bounds { return t.node(n).bounds }

// Flags is node n's flags (Node.Flags).
func (t *Tree) Flags(n NodeRef) uint32 { return t.node(n).flags }

// ResPkg is node n's resource package, a string table index (Node.ResPkg).
func (t *Tree) ResPkg(n NodeRef) Opt[uint32] {
	r := t.node(n)
	return Opt[uint32]{Val: r.resPkg, Ok: r.bits&treeResPkg != 0}
}

// Text returns node n's text field of key k (a key of a NodeTexts
// constant; another key panics), "" when it is absent, as Node's field
// holds it: Has tells a text present but empty from an absent one. The string is the tree's
// memory, not a copy: the tree never writes it, so it stays valid as
// long as the tree is.
func (t *Tree) Text(n NodeRef, k int) string {
	mustText(k)
	off := t.node(n).texts[nodeTextSlot(k)]
	if off == 0 {
		return ""
	}
	return textIn(t.buf, off)
}

// Has reports whether every text field of ts is present on node n, as
// Node.Has.
func (t *Tree) Has(n NodeRef, ts NodeTexts) bool {
	r := t.node(n)
	for s, k := range nodeTextKeys {
		if ts&(1<<k) != 0 && r.texts[s] == 0 {
			return false
		}
	}
	return true
}

// Scroll returns node n's scroll semantics (Node.Scroll), and whether it
// has them.
func (t *Tree) Scroll(n NodeRef) (Scroll, bool) {
	s := t.node(n).scroll
	if s == 0 {
		return Scroll{}, false
	}
	return t.scrolls[s-1], true
}

// NodeRange is a contiguous range of a tree's node table, [First, End):
// the children of a node.
type NodeRange struct{ First, End NodeRef }

// Len is the number of nodes in the range.
func (r NodeRange) Len() int { return int(r.End - r.First) }

// All yields the nodes of the range in order.
func (r NodeRange) All() iter.Seq[NodeRef] {
	return func(yield func(NodeRef) bool) {
		for n := r.First; n < r.End; n++ {
			if !yield(n) {
				return
			}
		}
	}
}

// Children returns the range of node n's children, in order.
func (t *Tree) Children(n NodeRef) NodeRange {
	r := t.node(n)
	return NodeRange{NodeRef(r.kids), NodeRef(r.kids + r.nkids)}
}

// NumWindows is the number of windows.
func (t *Tree) NumWindows() int { return len(t.wins) }

// TreeWindow is a window of a Tree: Window's fields, its root a node of
// the tree and its title the tree's memory.
type TreeWindow struct {
	ID          uint32
	Type        uint32
	Layer       int32
	Bounds      Bounds
	Flags       uint32
	Title       Opt[string]
	Package     Opt[uint32]
	Root        Opt[NodeRef] // absent for a window without a tree
	EmitsEvents Opt[bool]
	Owner       Opt[uint32]
	Modal       bool
}

// Window returns window w, from 0 to NumWindows-1 (another panics).
func (t *Tree) Window(w int) TreeWindow {
	x := &t.wins[w]
	var title Opt[string]
	if x.title != 0 {
		title = Some(textIn(t.buf, x.title))
	}
	return TreeWindow{Title: title,
		ID: x.id, Type: x.typ, Layer: x.layer, Bounds: x.bounds, Flags: x.flags,
		Package:     Opt[uint32]{Val: x.pkg, Ok: x.bits&treeWinPackage != 0},
		Root:        Opt[NodeRef]{Val: NodeRef(x.root), Ok: x.bits&treeWinRoot != 0},
		EmitsEvents: Opt[bool]{Val: x.bits&treeWinEmitsTrue != 0, Ok: x.bits&treeWinEmits != 0},
		Owner:       Opt[uint32]{Val: x.owner, Ok: x.bits&treeWinOwner != 0},
		Modal:       x.bits&treeWinModal != 0,
	}
}

// NumStrings is the length of the string table.
func (t *Tree) NumStrings() int { return len(t.strs) }

// String returns entry i of the string table, as Text returns a node's.
func (t *Tree) String(i int) string { return textIn(t.buf, t.strs[i]) }

// Walk yields every node of every window depth first, parents before
// their children, windows in order, with each node's level (a root is
// level 1). It keeps its stack in a fixed array: the tree is at most
// schema.MaxNodeDepth levels deep.
func (t *Tree) Walk() iter.Seq2[NodeRef, int] {
	return func(yield func(NodeRef, int) bool) {
		var stack [schema.MaxNodeDepth]NodeRange
		for w := range t.wins {
			x := &t.wins[w]
			if x.bits&treeWinRoot == 0 {
				continue
			}
			stack[0] = NodeRange{NodeRef(x.root), NodeRef(x.root + 1)}
			depth := 1
			for depth > 0 {
				top := &stack[depth-1]
				if top.First == top.End {
					depth--
					continue
				}
				n := top.First
				top.First++
				if !yield(n, depth) {
					return
				}
				if c := t.Children(n); c.First < c.End {
					stack[depth] = c // a tree deeper than schema.MaxNodeDepth is never built
					depth++
				}
			}
		}
	}
}

// Response returns the snapshot response the tree was read from, with
// the tree as its Result, for code that handles any message (a session
// reading snapshots as trees); it allocates nothing.
func (t *Tree) Response() *Response {
	t.resp = Response{ID: t.ID, Method: MethodSnapshot, Result: t}
	return &t.resp
}

// snapshot returns the tree as a Snapshot, equal to the one Decode reads
// from the same bytes (but that an empty string table or window list may
// be nil here and not there, or the reverse), for the encoder. Its nodes
// are one slab, its strings the tree's texts.
func (t *Tree) snapshot() *Snapshot {
	buf := t.buf
	s := &Snapshot{Truncated: t.Truncated, Seq: t.Seq, Display: t.Display}
	s.Strings = make([]string, len(t.strs))
	for i, off := range t.strs {
		s.Strings[i] = textIn(buf, off)
	}
	nodes := make([]Node, len(t.nodes))
	var scrolls []Scroll
	if len(t.scrolls) > 0 {
		scrolls = append([]Scroll(nil), t.scrolls...)
	}
	for i := range t.nodes {
		r, n := &t.nodes[i], &nodes[i]
		n.ID, n.Class, n.Bounds, n.Flags = r.id, r.class, r.bounds, r.flags
		n.ResPkg = Opt[uint32]{Val: r.resPkg, Ok: r.bits&treeResPkg != 0}
		for slot, off := range r.texts {
			if off != 0 {
				n.SetText(nodeTextKeys[slot], textIn(buf, off))
			}
		}
		if r.nkids > 0 {
			n.Children = nodes[r.kids : r.kids+r.nkids : r.kids+r.nkids]
		}
		if r.scroll != 0 {
			n.Scroll = &scrolls[r.scroll-1]
		}
	}
	s.Windows = make([]Window, len(t.wins))
	for i := range t.wins {
		w, tw := &s.Windows[i], t.Window(i)
		*w = Window{ID: tw.ID, Type: tw.Type, Layer: tw.Layer, Bounds: tw.Bounds, Flags: tw.Flags, Title: tw.Title,
			Package: tw.Package, EmitsEvents: tw.EmitsEvents, Owner: tw.Owner, Modal: tw.Modal}
		if tw.Root.Ok {
			w.Root = &nodes[tw.Root.Val]
		}
	}
	return s
}

// ResultOf reports whether m is snapshot: a Tree is a snapshot's result.
func (*Tree) ResultOf(m Method) bool { return m == MethodSnapshot }

// appendCBOR encodes the tree as its snapshot.
func (t *Tree) appendCBOR(dst []byte) ([]byte, error) { return t.snapshot().appendCBOR(dst) }

// decodeFrom reads a snapshot into the tree, through a Snapshot (the
// decoder's general path).
func (t *Tree) decodeFrom(d *decoder) error {
	var s Snapshot
	if err := s.decodeFrom(d); err != nil {
		return err
	}
	return t.fill(0, &s)
}

// fill makes t snapshot s of the response of id, in t's memory where it
// has the room (a scratch tree's), laid out as the fast reader lays out
// the same snapshot: the children of a node are reserved together when
// the node's children begin, depth first. It refuses a snapshot deeper
// than schema.MaxNodeDepth, or too large for a tree's 32-bit offsets;
// its texts are taken as they are (the encoder checks their UTF-8).
func (t *Tree) fill(id uint64, s *Snapshot) error {
	// Count first, so that each table is reserved once.
	textBytes, nodes, scrolls := 1, 0, 0 // buf[0] is no text's
	addText := func(v string) { textBytes += headLen(len(v)) + len(v) }
	for _, v := range s.Strings {
		addText(v)
	}
	for i := range s.Windows {
		w := &s.Windows[i]
		if w.Title.Ok {
			addText(w.Title.Val)
		}
		if w.Root == nil {
			continue
		}
		var stack [schema.MaxNodeDepth][]Node
		stack[0] = unsafe.Slice(w.Root, 1)
		depth := 1
		for depth > 0 {
			top := &stack[depth-1]
			if len(*top) == 0 {
				depth--
				continue
			}
			n := &(*top)[0]
			*top = (*top)[1:]
			nodes++
			if n.Scroll != nil {
				scrolls++
			}
			for _, k := range nodeTextKeys {
				if v := *n.textField(k); n.hasText(1<<k, v) {
					addText(v)
				}
			}
			if len(n.Children) > 0 {
				if depth == schema.MaxNodeDepth {
					return &EncodeError{Field: "result.windows[" + itoa(i) + "].root", Detail: "node tree deeper than " + itoa(schema.MaxNodeDepth) + " levels"}
				}
				stack[depth] = n.Children
				depth++
			}
		}
	}
	if textBytes > 1<<32-1 || nodes > 1<<32-1 {
		return &EncodeError{Field: "result", Detail: "a snapshot of " + itoa(textBytes) + " bytes of text and " + itoa(nodes) + " nodes is too large for a Tree"}
	}
	t.room(textBytes, len(s.Windows), len(s.Strings), nodes, scrolls)
	t.buf = append(t.buf, 0)
	text := func(v string) uint32 {
		off := uint32(len(t.buf))
		t.buf = cbor.AppendText(t.buf, v)
		return off
	}
	t.ID, t.Truncated, t.Seq, t.Display = id, s.Truncated, s.Seq, s.Display
	for _, v := range s.Strings {
		t.strs = append(t.strs, text(v))
	}
	t.wins = t.wins[:len(s.Windows)]
	for i := range s.Windows {
		w, x := &s.Windows[i], &t.wins[i]
		*x = treeWindow{id: w.ID, typ: w.Type, layer: w.Layer, bounds: w.Bounds, flags: w.Flags, pkg: w.Package.Val, owner: w.Owner.Val}
		x.bits = bit(w.Package.Ok, treeWinPackage) | bit(w.Owner.Ok, treeWinOwner) | bit(w.EmitsEvents.Ok, treeWinEmits) |
			bit(w.EmitsEvents.Val, treeWinEmitsTrue) | bit(w.Modal, treeWinModal) | bit(w.Root != nil, treeWinRoot)
		if w.Title.Ok {
			x.title = text(w.Title.Val)
		}
		if w.Root == nil {
			continue
		}
		type frame struct {
			kids   []Node
			row    uint32 // the row of kids[0]
			parent *Node  // whose children kids are: its scroll follows them
			prow   uint32 // the parent's row
		}
		var stack [schema.MaxNodeDepth]frame
		x.root = uint32(len(t.nodes))
		t.nodes = t.nodes[:len(t.nodes)+1]
		stack[0] = frame{kids: unsafe.Slice(w.Root, 1), row: x.root}
		depth := 1
		for depth > 0 {
			top := &stack[depth-1]
			if len(top.kids) == 0 {
				// On the wire a node's scroll (key 9) follows its
				// children (key 8): the reader takes it after theirs.
				if p := top.parent; p != nil && p.Scroll != nil {
					t.scrolls = append(t.scrolls, *p.Scroll)
					t.nodes[top.prow].scroll = uint32(len(t.scrolls))
				}
				depth--
				continue
			}
			n, row := &top.kids[0], top.row
			top.kids, top.row = top.kids[1:], top.row+1
			r := &t.nodes[row]
			*r = treeNode{id: n.ID, class: n.Class, bounds: n.Bounds, flags: n.Flags, resPkg: n.ResPkg.Val, bits: bit(n.ResPkg.Ok, treeResPkg)}
			for slot, k := range nodeTextKeys {
				if v := *n.textField(k); n.hasText(1<<k, v) {
					r.texts[slot] = text(v)
				}
			}
			if len(n.Children) > 0 {
				r.kids, r.nkids = uint32(len(t.nodes)), uint32(len(n.Children))
				t.nodes = t.nodes[:len(t.nodes)+len(n.Children)]
				stack[depth] = frame{kids: n.Children, row: r.kids, parent: n, prow: row}
				depth++
			} else if n.Scroll != nil {
				t.scrolls = append(t.scrolls, *n.Scroll)
				r.scroll = uint32(len(t.scrolls))
			}
		}
	}
	return nil
}

// bit is b's bit v, or 0.
func bit(b bool, v uint32) uint32 {
	if b {
		return v
	}
	return 0
}

// headLen is the length of the CBOR head of an item of length l.
func headLen(l int) int {
	switch {
	case l < 24:
		return 1
	case l <= 0xff:
		return 2
	case l <= 0xffff:
		return 3
	case uint64(l) <= 0xffffffff:
		return 5
	}
	return 9
}
