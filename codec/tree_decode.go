package codec

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// Reading a Tree. A snapshot response in the canonical layout (the
// encoder's: one-byte map heads, keys in ascending order, definite
// lengths, no nulls) is read by readTree straight from the bytes into
// the tree's tables, in one pass, with its open nodes on an explicit
// stack of at most schema.MaxNodeDepth levels. Anything else, or
// anything the fast reader does not expect, is read by Decode, and a
// snapshot it returns is laid into the tree by fill: so DecodeTree fails exactly
// when Decode fails, with Decode's error, and the two readers lay out
// the same snapshot alike (FuzzTree compares them).
//
// The fast reader reads into a scratch tree, whose tables are reused
// from call to call with room to spare (sized from the windows array's
// length and from the bytes per node and per scroll of the snapshots read
// before, as the node slabs are, see slab.go; a table that outgrows its
// room moves, growing as the nodes arrive), finding the texts at their
// offsets in the payload. What it read is then copied, exactly, into a
// tree of its own (owned): a header, and one block without pointers
// holding a copy of the payload and the tables. So a fresh tree costs two
// allocations, and its memory is the payload's bytes and its records.

// DecodeTree decodes a snapshot response from b, which must hold exactly
// one CBOR item (a frame's payload), as a Tree that owns its memory: b
// may be released at once. It fails when Decode fails, with Decode's
// error, and when b holds any other message (another method's response,
// an error response, a request, ...) with an error of kind cbor.ErrType:
// a caller that reads any message peeks at its envelope first
// (PeekEnvelope) and decodes the others with Decode.
func DecodeTree(b []byte) (*Tree, error) {
	if fastPaths && treeHead(b) {
		s := scratchTrees.Get().(*Tree)
		var t *Tree
		if s.readTree(b, &freshLearn) {
			t = s.owned(b)
		}
		putScratch(s)
		if t != nil {
			return t, nil
		}
	}
	m, err := Decode(b)
	if err != nil {
		return nil, err
	}
	r, ok := m.(*Response)
	if !ok {
		return nil, notSnapshot("a " + m.Kind().String())
	}
	s, ok := r.Result.(*Snapshot)
	if !ok {
		what := "a response to " + r.Method.String()
		if r.Error != nil {
			what = "an error response to " + r.Method.String()
		}
		return nil, notSnapshot(what)
	}
	return treeOf(r.ID, s)
}

// notSnapshot is DecodeTree's error for what, a message that is not a
// snapshot response.
func notSnapshot(what string) error {
	return cbor.Errorf(cbor.ErrType, 0, what+" where a snapshot response was expected")
}

// scratchTrees recycles the trees DecodeTree reads into before it copies
// what they hold, exactly, into a tree of its own (owned): their tables,
// sized by the snapshots read before, have room to spare, and a tree that
// keeps them would keep the spare room too.
var scratchTrees = sync.Pool{New: func() any { return new(Tree) }}

// putScratch gives s back to scratchTrees, unless it holds more than
// defaultMaxRetained: a huge snapshot's tables are not pinned.
func putScratch(s *Tree) {
	if s.retained() <= defaultMaxRetained {
		scratchTrees.Put(s)
	}
}

// treeOf returns snapshot s of the response of id as a tree of its own,
// laid out by fill in a scratch tree and copied.
func treeOf(id uint64, s *Snapshot) (*Tree, error) {
	scratch := scratchTrees.Get().(*Tree)
	defer putScratch(scratch)
	if err := scratch.fill(id, s); err != nil {
		return nil, cbor.Errorf(cbor.ErrInvalid, 0, err.Error())
	}
	return scratch.owned(scratch.buf), nil
}

// treeHead reports whether b begins as a snapshot response in the
// canonical layout: {0: 3, 1: id, ...}.
func treeHead(b []byte) bool {
	return len(b) > 16 && b[0] == 0xa4 && b[1] == schema.KeyKind && b[2] == byte(KindResponse) && b[3] == schema.KeyResponseID && uint64(len(b)) < 1<<32
}

// treeLearn is what the snapshots read before taught: bytes per node and
// per scroll of their windows arrays (0: nothing yet).
type treeLearn struct{ nodeLen, scrollGap atomic.Int32 }

// freshLearn is DecodeTree's: shared by every goroutine, which is no
// harm, as it only sizes the first reservation.
var freshLearn treeLearn

// Sizes of a Tree's records.
const (
	treeNodeSize   = int(unsafe.Sizeof(treeNode{}))
	treeWindowSize = int(unsafe.Sizeof(treeWindow{}))
)

// room makes t's buf and tables empty with room for text bytes, wins
// windows, strs strings, nodes nodes and scrolls scrolls, in the memory
// they hold where it has the room: a scratch tree's.
// The caller checked each count against the bytes it reads.
func (t *Tree) room(text, wins, strs, nodes, scrolls int) {
	t.buf = roomIn(&t.buf, text)
	t.wins = roomIn(&t.wins, wins)
	t.strs = roomIn(&t.strs, strs)
	t.nodes = roomIn(&t.nodes, nodes)
	t.scrolls = roomIn(&t.scrolls, scrolls)
}

// retained is the memory of t's buf and tables.
func (t *Tree) retained() int {
	return cap(t.buf) + cap(t.wins)*treeWindowSize + cap(t.strs)*4 + cap(t.nodes)*treeNodeSize + cap(t.scrolls)*scrollSize
}

// owned returns a tree of its own holding what t, a scratch tree, holds,
// its texts at their offsets in src (the payload t was read from, or t's
// own buf when fill laid t out): a header, and one block without
// pointers, of exactly the size of src and t's tables, carved into a copy
// of src and the tables. Copying src whole takes one move; copying the
// texts alone, a third of a seeded snapshot's payload, would spare a
// quarter of the block but take a move per text, more than the rest of
// owned together (snapshot_500: 104,000 instructions more, for 16 KB less).
func (t *Tree) owned(src []byte) *Tree {
	o := new(Tree)
	size := len(src) + len(t.scrolls)*scrollSize + len(t.wins)*treeWindowSize + len(t.nodes)*treeNodeSize + len(t.strs)*4 + 4*8 // 8 a table to align it
	a := make([]byte, size)
	o.buf = a[:copy(a, src):len(src)]
	off := len(src)
	o.scrolls = append(carve[Scroll](a, &off, len(t.scrolls)), t.scrolls...)
	o.wins = append(carve[treeWindow](a, &off, len(t.wins)), t.wins...)
	o.nodes = append(carve[treeNode](a, &off, len(t.nodes)), t.nodes...)
	o.strs = append(carve[uint32](a, &off, len(t.strs)), t.strs...)
	o.ID, o.Truncated, o.Seq, o.Display = t.ID, t.Truncated, t.Seq, t.Display
	return o
}

// carve returns an empty slice of T with room for n, from a at *off
// aligned for T, and moves *off past it; nil for n 0. T holds no
// pointers: a is memory the collector does not scan.
func carve[T any](a []byte, off *int, n int) []T {
	if n == 0 {
		return nil
	}
	align := int(unsafe.Alignof(*new(T)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(a))) + uintptr(*off)
	pad := int((uintptr(align) - p%uintptr(align)) % uintptr(align))
	start := *off + pad
	*off = start + n*int(unsafe.Sizeof(*new(T)))
	_ = a[*off-1] // in a
	return unsafe.Slice((*T)(unsafe.Pointer(&a[start])), n)[:0]
}

// estimate is how many items of per bytes each (learned, or typical when
// nothing was) left bytes likely hold, with 1/16 to spare, and never
// more than they can hold at least bytes an item.
func estimate(left, per, typical, least int) int {
	if per == 0 {
		per = typical
	}
	return min(left/per+left/(16*per)+1, left/least+1)
}

// readTree reads b, a snapshot response in the canonical layout (see
// treeHead), into t, and reports whether it could. The texts are read at
// their offsets in b, which the caller copies (owned). At the first
// thing it does not expect it gives up, leaving t to be filled again: by
// fill, from Decode's snapshot, which reports what is wrong with it if
// anything is.
func (t *Tree) readTree(b []byte, learn *treeLearn) bool {
	t.formed = 0
	id, w := cbor.UintAt(b, 4)
	i := 4 + w
	if w == 0 || i+5 >= len(b) || b[i] != schema.KeyResponseMethod || b[i+1] != byte(MethodSnapshot) || b[i+2] != schema.KeyResponseResult {
		return false
	}
	i += 3
	if b[i] != 0xa4 && b[i] != 0xa5 || b[i+1] != schema.KeySnapshotStrings {
		return false
	}
	pairs := int(b[i] - 0xa0)
	ns, h := cbor.ArrayAt(b, i+2)
	if i += 2 + h; h == 0 || ns > len(b)-i {
		return false
	}
	strAt := i
	for range ns {
		if _, i = cbor.ValidTextAt(b, i); i == 0 {
			return false
		}
	}
	if i+1 >= len(b) || b[i] != schema.KeySnapshotWindows {
		return false
	}
	nw, h := cbor.ArrayAt(b, i+1)
	if i += 1 + h; h == 0 || nw > (len(b)-i)/schema.MinWindowLen {
		return false
	}
	// The counts are known but the nodes' and scrolls': reserve.
	left := len(b) - i
	nodes := estimate(left, int(learn.nodeLen.Load()), typicalNodeLen, firstChunkLen)
	scrolls := min(estimate(left, int(learn.scrollGap.Load()), typicalScrollGap, minScrollLen), left/maxArenaGap+4)
	if (cap(t.wins) < nw || cap(t.strs) < ns || cap(t.nodes) < nodes || cap(t.scrolls) < scrolls) && !t.mayAllocate(b) {
		return false
	}
	t.room(0, nw, ns, nodes, scrolls)
	for j := strAt; len(t.strs) < ns; {
		t.strs = append(t.strs, uint32(j))
		_, j = cbor.TextAt(b, j)
	}
	t.wins = t.wins[:nw]
	winsAt := i
	for k := range nw {
		if i = t.windowAt(b, i, k, nw-k-1); i == 0 {
			return false
		}
	}
	used := i - winsAt
	if i+3 > len(b) || b[i] != schema.KeySnapshotTruncated {
		return false
	}
	if t.Truncated, i = shape.U32At(b, i+1); i == 0 || i+1 >= len(b) || b[i] != schema.KeySnapshotSeq {
		return false
	}
	if t.Seq, w = cbor.UintAt(b, i+1); w == 0 {
		return false
	}
	i += 1 + w
	t.Display = Opt[Display]{}
	if pairs == 5 {
		if i = displayAt(b, i, &t.Display.Val); i == 0 {
			return false
		}
		t.Display.Ok = true
	}
	if i != len(b) {
		return false
	}
	t.ID = id
	if len(t.nodes) > 0 {
		learn.nodeLen.Store(int32(max(schema.MinNodeLen, used/len(t.nodes))))
	}
	if len(t.scrolls) > 0 {
		learn.scrollGap.Store(int32(max(minScrollLen, used/len(t.scrolls))))
	}
	return true
}

// displayAt reads a display, {0: width, 1: height, 2: density_dpi, 3:
// rotation}, at b[i] (its key first), returning the offset past it or 0.
func displayAt(b []byte, i int, v *Display) int {
	if i+10 > len(b) || b[i] != schema.KeySnapshotDisplay || b[i+1] != 0xa4 {
		return 0
	}
	i += 2
	for k, f := range [...]*uint32{&v.Width, &v.Height, &v.DensityDPI, &v.Rotation} {
		if i+1 >= len(b) || b[i] != byte(k) {
			return 0
		}
		if *f, i = shape.U32At(b, i+1); i == 0 {
			return 0
		}
	}
	return i
}

// windowAt reads window k of the windows array at b[i] into t.wins[k],
// with pending windows still to come after it, returning the offset
// past it or 0.
func (t *Tree) windowAt(b []byte, i, k, pending int) int {
	if i >= len(b) || b[i] < 0xa5 || b[i] > 0xab {
		return 0
	}
	pairs := int(b[i] - 0xa0)
	i++
	x := &t.wins[k]
	*x = treeWindow{}
	prev, seen := -1, 0
	for range pairs {
		if i+1 >= len(b) {
			return 0
		}
		key := int(b[i])
		if key <= prev || key > schema.KeyWindowModal {
			return 0
		}
		prev, seen = key, seen|1<<key
		i++
		switch key {
		case schema.KeyWindowID:
			x.id, i = shape.U32At(b, i)
		case schema.KeyWindowType:
			x.typ, i = shape.U32At(b, i)
		case schema.KeyWindowLayer:
			v, w := cbor.Int32At(b, i)
			if w == 0 {
				return 0
			}
			x.layer, i = v, i+w
		case schema.KeyWindowBounds:
			i = shape.BoundsAt(b, i, boundsTwin(&x.bounds))
		case schema.KeyWindowFlags:
			x.flags, i = shape.U32At(b, i)
		case schema.KeyWindowTitle:
			x.title, i = treeTextAt(b, i)
		case schema.KeyWindowPackage:
			x.pkg, i = shape.U32At(b, i)
			x.bits |= treeWinPackage
		case schema.KeyWindowRoot:
			root := t.takeRows(b, 1, i)
			if root < 0 {
				return 0
			}
			x.root = uint32(root)
			x.bits |= treeWinRoot
			i = t.nodeTreeAt(b, i, root, pending)
		case schema.KeyWindowEmitsEvents:
			switch b[i] {
			case cbor.True:
				x.bits |= treeWinEmits | treeWinEmitsTrue
			case cbor.False:
				x.bits |= treeWinEmits
			default:
				return 0
			}
			i++
		case schema.KeyWindowOwner:
			x.owner, i = shape.U32At(b, i)
			x.bits |= treeWinOwner
		case schema.KeyWindowModal:
			switch b[i] {
			case cbor.True:
				x.bits |= treeWinModal
			case cbor.False:
			default:
				return 0
			}
			i++
		}
		if i == 0 {
			return 0
		}
	}
	if seen&0x1f != 0x1f { // keys 0 to 4 are required
		return 0
	}
	return i
}

// treeTextAt reads a text at b[i] as ValidTextAt does: it returns its
// offset, which is its offset in the tree's copy of b, and the offset
// past it, or 0.
func treeTextAt(b []byte, i int) (uint32, int) {
	_, end := cbor.ValidTextAt(b, i)
	if end == 0 {
		return 0, 0
	}
	return uint32(i), end
}

// mayAllocate reports whether the fast reader may allocate while it
// reads b: only when b is well-formed, which a walk of the whole of it
// (cbor Skip, once a read) finds. A frame whose heads lie is thus left to
// Decode before the fast reader reserves anything for it, and what it
// costs is what Decode costs (allocbound.Hostile); a well-formed one
// costs what its items cost, twice at worst (the fast reader's and
// Decode's, when the fast reader meets something it does not read). In
// steady state the fast reader reads into the room of the last
// snapshots, and walks nothing.
func (t *Tree) mayAllocate(b []byte) bool {
	if t.formed == 0 {
		var w cbor.Decoder
		w.Reset(b)
		t.formed = -1
		if w.Skip() == nil && w.Done() == nil {
			t.formed = 1
		}
	}
	return t.formed > 0
}

// takeRows appends n zeroed rows to the node table and returns the
// first one's index, or -1 when it may not allocate the room they need
// (mayAllocate). A table past its room moves to memory of its own,
// twice as large, but never larger than the rows already taken and those
// the bytes left after b[i] can hold at their least bytes.
func (t *Tree) takeRows(b []byte, n, i int) int {
	l := len(t.nodes)
	if l+n > cap(t.nodes) {
		if !t.mayAllocate(b) {
			return -1
		}
		size := min(max(2*cap(t.nodes), l+n), l+n+(len(b)-i)/schema.MinNodeLen+1)
		rows := make([]treeNode, l, size)
		copy(rows, t.nodes)
		t.nodes = rows
	}
	t.nodes = t.nodes[:l+n]
	clear(t.nodes[l:])
	return l
}

// treeFrame is a node whose children readTree is reading: the node's own
// state waits here while they are read.
type treeFrame struct {
	node      uint32 // the parent's row
	next, end uint32 // its children's rows: the next to open, and the end
	left      int32  // the parent's pairs not yet read
	prev      int32  // the parent's last key read
}

// treeNodeAt reads key 0 to 3 of a node, which come first in ascending
// order, at b[i] (its map head) into row r: it returns the node's pairs
// left and the offset past key 3, or 0.
func treeNodeAt(b []byte, i int, r *treeNode) (left, end int) {
	if i+2 >= len(b) || b[i] < 0xa4 || b[i] > 0xac || b[i+1] != schema.KeyNodeID {
		return 0, 0
	}
	left = int(b[i]-0xa0) - 4
	if r.id, i = shape.U32At(b, i+2); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeClass {
		return 0, 0
	}
	if r.class, i = shape.U32At(b, i+1); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeBounds {
		return 0, 0
	}
	if i = shape.BoundsAt(b, i+1, boundsTwin(&r.bounds)); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeFlags {
		return 0, 0
	}
	r.flags, i = shape.U32At(b, i+1)
	return left, i
}

// nodeTreeAt reads the node tree whose root's map head is at b[i] into
// row root (zeroed) and the rows it takes, with pending windows still to
// come after this one's, returning the offset past it or 0. The node
// being read keeps its state in locals; a parent waits on the stack
// while its children are read. This is the one place that reads a
// node's keys (the general path is Decode's, see nodeField).
func (t *Tree) nodeTreeAt(b []byte, i int, root, pending int) int {
	var stack [schema.MaxNodeDepth]treeFrame
	depth := 0
	promised := 0 // the nodes of the open children arrays not yet opened
	n := uint32(root)
	left, i := treeNodeAt(b, i, &t.nodes[n])
	prev := schema.KeyNodeFlags
	if i == 0 {
		return 0
	}
	for {
		for left > 0 {
			if i+1 >= len(b) {
				return 0
			}
			k := int(b[i])
			if k <= prev || k >= nodeKeys {
				return 0
			}
			prev, left = k, left-1
			i++
			r := &t.nodes[n]
			switch k { // keys 0 to 3 were read by treeNodeAt
			default: // a text (nodeTextSlot: generated from the schema)
				s := nodeTextSlot(k)
				if s < 0 {
					return 0 // a key this reader has no case for: Decode's path reads it
				}
				r.texts[s], i = treeTextAt(b, i)
			case schema.KeyNodeResPkg:
				r.resPkg, i = shape.U32At(b, i)
				r.bits |= treeResPkg
			case schema.KeyNodeChildren:
				kn, h := cbor.ArrayAt(b, i)
				if h == 0 {
					return 0
				}
				if i += h; kn == 0 {
					continue // as Decode: no children
				}
				// As claimKids: the children, the nodes still to come of
				// the arrays open around them and the windows after
				// this one must fit in the bytes left at their least.
				if depth == schema.MaxNodeDepth-1 || (promised+kn)*schema.MinNodeLen+pending*schema.MinWindowLen > len(b)-i {
					return 0 // Decode reports it
				}
				row := t.takeRows(b, kn, i)
				if row < 0 {
					return 0
				}
				first := uint32(row)
				r = &t.nodes[n]
				r.kids, r.nkids = first, uint32(kn)
				stack[depth] = treeFrame{node: n, next: first + 1, end: first + uint32(kn), left: int32(left), prev: int32(prev)}
				depth++
				promised += kn - 1
				n = first
				if left, i = treeNodeAt(b, i, &t.nodes[n]); i == 0 {
					return 0
				}
				prev = schema.KeyNodeFlags
				continue
			case schema.KeyNodeScroll:
				var s Scroll
				if len(t.scrolls) == cap(t.scrolls) && !t.mayAllocate(b) {
					return 0
				}
				if i = shape.ScrollAt(b, i, scrollTwin(&s)); i != 0 {
					t.scrolls = append(t.scrolls, s)
					r.scroll = uint32(len(t.scrolls))
				}
			}
			if i == 0 {
				return 0
			}
		}
		// n is read whole: go on with its next sibling, or with the rest
		// of its parent.
		for {
			if depth == 0 {
				return i
			}
			f := &stack[depth-1]
			if f.next < f.end {
				n = f.next
				f.next++
				promised--
				if left, i = treeNodeAt(b, i, &t.nodes[n]); i == 0 {
					return 0
				}
				prev = schema.KeyNodeFlags
				break
			}
			n, left, prev = f.node, int(f.left), int(f.prev)
			depth--
			if left > 0 {
				break
			}
		}
	}
}
