package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// WindowView is one window of a snapshot, read in place. Title borrows
// the frame (valid until Release).
type WindowView struct {
	ID          uint32            // key 0
	Type        uint32            // key 1, AccessibilityWindowInfo.TYPE_*
	Layer       int32             // key 2
	Bounds      codec.Bounds      // key 3
	Flags       uint32            // key 4, bits schema.WindowActive ...
	Title       codec.Opt[string] // key 5
	Package     codec.Opt[uint32] // key 6, string table index
	EmitsEvents codec.Opt[bool]   // key 8
	Owner       codec.Opt[uint32] // key 9, string table index
	Modal       bool              // key 10
	HasRoot     bool              // key 7 is present: the walk visits its node tree next
	rootOff     int               // offset of the root's map head
}

// NodeView, one node of a snapshot read in place, is generated from
// codec.Node into node_gen.go, with its per-field code.
//go:generate go run ../internal/fieldgen -pkg zerocopy

// HasChildren reports whether the walk visits children of n next.
func (n *NodeView) HasChildren() bool { return n.kidsN != 0 }

// wframe is one open children array of a walk.
type wframe struct {
	next   int // offset of the next child, or of the array's end
	n, i   int // children in the array (-1: indefinite), children visited
	endsMe bool
}

// Walker walks a parsed Snapshot depth first: each window, then the nodes
// of its tree in pre-order, parents before children. The stack of open
// nodes is an array inside the Walker (schema.MaxNodeDepth frames), so a
// walk allocates nothing and never recurses:
//
//	var w zerocopy.Walker
//	for w.Reset(&v); w.Next(); {
//		if n := w.Node(); n != nil {
//			use(w.Window(), n, w.Depth())
//		}
//	}
//
// The views it returns are valid until the next call to Next, and are
// not to be modified. A tree the Snapshot holds in its node table is read
// from the table; another is decoded from the bytes as the walk goes.
type Walker struct {
	buf     []byte
	tab     strTable
	tails   tailTable
	tailCur int // cursor in tails
	win     WindowView
	node    NodeView
	atNode  bool
	depth   int
	winNext int
	winN    int
	winI    int
	rootDue bool
	kidsDue bool
	done    bool
	err     error

	// A tree read from the table: the Snapshot's records, the current
	// one, the next one to visit and the end of the tree's (tEnd 0 when
	// the walk is not in such a tree), and the first record of a tree not
	// passed yet.
	recs              []nodeRec
	tCur, tNext, tEnd int
	rootCur           int

	sp    int
	stack [schema.MaxNodeDepth]wframe
}

// Reset starts a walk of v from its first window.
func (w *Walker) Reset(v *Snapshot) {
	// The tables are copied (their used part) rather than pointed to, so
	// that a Snapshot on the stack stays there; the node table is on the
	// heap.
	w.buf, w.tailCur = v.buf, 0
	w.tab.copyFrom(&v.strTable)
	w.tails.copyFrom(&v.tails)
	w.recs, w.tCur, w.tNext, w.tEnd, w.rootCur = v.recs[:min(max(v.nRecs, 0), len(v.recs))], 0, 0, 0, 0
	w.win, w.node = WindowView{}, NodeView{}
	w.atNode, w.depth, w.rootDue, w.kidsDue, w.err, w.sp = false, 0, false, false, nil, 0
	w.winNext, w.winN, w.winI = v.winOff, v.winN, 0
	w.done = v.buf == nil || v.nWindows == 0
}

// Window is the current window: the one visited, or the one whose tree
// holds the current node.
func (w *Walker) Window() *WindowView { return &w.win }

// Node is the current node, or nil when the walk is at a window.
func (w *Walker) Node() *NodeView {
	if !w.atNode {
		return nil
	}
	if w.tEnd > 0 && w.tCur < len(w.recs) {
		return &w.recs[w.tCur].NodeView
	}
	return &w.node
}

// Depth is the current node's level, 1 for a window's root, or 0 at a
// window.
func (w *Walker) Depth() int { return w.depth }

// SkipChildren makes the walk pass over the children of the current
// node: the next call to Next goes to its next sibling (or further up).
func (w *Walker) SkipChildren() {
	if !w.atNode {
		return
	}
	if w.tEnd > 0 {
		if w.tCur < len(w.recs) {
			if next := int(w.recs[w.tCur].next); next > w.tNext && next <= w.tEnd {
				w.tNext = next
			}
		}
		return
	}
	if !w.kidsDue {
		return
	}
	w.kidsDue = false
	if w.node.endKnown {
		return // the parent's next child is known already
	}
	// The node's map ends with its children: find where they end.
	d := at(w.buf, w.node.kidsOff)
	if err := d.SkipElements(w.node.kidsN, 0); err != nil {
		w.fail(err)
		return
	}
	if w.sp > 0 {
		w.stack[w.sp-1].next = d.Offset()
	}
}

// Err reports what stopped a walk early: the bytes under the view changed
// after Parse (see Snapshot.Check). It is nil after a complete walk.
func (w *Walker) Err() error { return w.err }

func (w *Walker) fail(err error) bool {
	w.err, w.done, w.atNode, w.tEnd = err, true, false, 0
	return false
}

// Next advances to the next window or node and reports whether there is
// one.
func (w *Walker) Next() bool {
	if w.done {
		return false
	}
	if w.tEnd > 0 {
		if i := w.tNext; i < w.tEnd {
			w.tCur, w.tNext = i, i+1
			w.atNode, w.depth = true, int(w.recs[i].depth)
			return true
		}
		w.tEnd, w.atNode = 0, false
	}
	if w.kidsDue {
		w.kidsDue = false
		if w.sp == len(w.stack) {
			return w.fail(cbor.Errorf(cbor.ErrDepth, w.node.kidsOff, "node tree deeper than "+itoa(schema.MaxNodeDepth)+" levels"))
		}
		w.stack[w.sp] = wframe{next: w.node.kidsOff, n: w.node.kidsN, endsMe: !w.node.endKnown}
		w.sp++
	}
	for {
		if w.sp == 0 {
			if w.rootDue {
				w.rootDue = false
				return w.visitNode(w.win.rootOff, 1)
			}
			d := at(w.buf, w.winNext)
			if !d.More(w.winN, w.winI) {
				w.done, w.atNode = true, false
				return false
			}
			w.winI++
			end, err := w.parseWindow(w.winNext)
			if err != nil {
				return w.fail(err)
			}
			w.winNext = end
			w.atNode, w.depth, w.rootDue = false, 0, w.win.HasRoot
			if w.rootDue && w.tableTree(w.win.rootOff) {
				w.rootDue = false
			}
			return true
		}
		f := &w.stack[w.sp-1]
		more := f.i < f.n
		end := f.next
		if f.n < 0 {
			more = f.next >= len(w.buf) || w.buf[f.next] != cbor.Break
			end++ // past the break of an indefinite array
		}
		if more {
			f.i++
			if !w.visitNode(f.next, w.sp+1) {
				return false
			}
			if w.node.endKnown {
				f.next = w.node.end
			}
			return true
		}
		w.sp--
		if f.endsMe && w.sp > 0 {
			w.stack[w.sp-1].next = end
		}
	}
}

// tableTree looks for the tree whose root is at off among the table's
// trees, and when the table holds all of it, makes the walk read it from
// there: its root comes next. The table's trees are in the order of the
// walk, so the search moves forward only, a tree at a time.
func (w *Walker) tableTree(off int) bool {
	i, n := w.rootCur, len(w.recs)
	for i < n && w.recs[i].off < off {
		next := int(w.recs[i].next)
		if next <= i {
			i = n
			break
		}
		i = next
	}
	w.rootCur = i
	if i >= n {
		return false
	}
	r := &w.recs[i]
	next := int(r.next)
	if r.off != off || r.depth != 1 || r.bad || next <= i || next > n {
		return false
	}
	w.tNext, w.tEnd, w.rootCur = i, next, next
	return true
}

func (w *Walker) visitNode(off, depth int) bool {
	if !w.readNode(off) {
		if err := w.parseNode(off); err != nil {
			return w.fail(err)
		}
	}
	if w.node.Class < stringNear {
		w.node.ClassName, _ = w.tab.lookup(w.buf, w.node.Class)
	}
	w.atNode, w.depth = true, depth
	w.kidsDue = w.node.kidsN != 0
	return true
}

// parseNode reads the node map at off into w.node, in general: what
// readNode leaves. The children array is only located: when pairs follow
// it, the walk jumps past it to them.
func (w *Walker) parseNode(off int) error {
	d := at(w.buf, off)
	nv := &w.node
	*nv = NodeView{}
	n, err := d.MapHead()
	if err != nil {
		return err
	}
	var seen uint32
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return err
		}
		if k != schema.KeyNodeChildren {
			if err := nodeField(&d, nv, k, &seen); err != nil {
				return err
			}
			continue
		}
		if d.Null() {
			nv.kidsN = 0
			continue
		}
		head := d.Offset()
		kn, err := d.ArrayHead()
		if err != nil {
			return err
		}
		nv.kidsOff, nv.kidsN = d.Offset(), kn
		if kn != 0 && n >= 0 && i == n-1 {
			return nil // the map ends with its children: endKnown stays false
		}
		if end, ok := w.tails.get(head, &w.tailCur); ok && end >= nv.kidsOff && end <= len(w.buf) {
			d = at(w.buf, end)
			continue
		}
		if err := d.SkipElements(kn, 0); err != nil {
			return err
		}
	}
	nv.end, nv.endKnown = d.Offset(), true
	return nil
}

// parseWindow reads the window map at off into w.win and returns the
// offset past it.
func (w *Walker) parseWindow(off int) (int, error) {
	d := at(w.buf, off)
	wv := &w.win
	*wv = WindowView{}
	it, err := d.Fields(schema.Window.Len())
	if err != nil {
		return 0, err
	}
	for it.Next(&d) {
		switch k := it.Key(); {
		case k == schema.KeyWindowRoot && it.Null():
			wv.HasRoot = false
		case k == schema.KeyWindowRoot:
			wv.HasRoot, wv.rootOff = true, d.Offset()
			if end, ok := w.tails.get(wv.rootOff, &w.tailCur); ok && end > wv.rootOff && end <= len(w.buf) {
				d.Seek(end)
				continue
			}
			if err := d.Skip(); err != nil {
				return 0, err
			}
		case it.Null():
			clearWindowField(wv, k)
		default:
			if err := windowField(&d, wv, k); err != nil {
				return 0, err
			}
		}
	}
	return d.Offset(), it.Err()
}
