package zerocopy

import (
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// The validation pass reads every node anyway, so it keeps what it reads:
// each node's NodeView goes into a table, in the order of the walk, with
// its level and where its subtree ends, and a walk of the tree then reads
// the table instead of decoding the node again.
//
// The table is the one thing of a Snapshot that lives on the heap, so
// that a Snapshot stays small enough for the stack. The first Parse of a
// Snapshot allocates nothing and records no table: its walks decode the
// nodes from the bytes (with the tail table). From its second Parse on, a
// Snapshot reused frame after frame has a table, sized from the largest
// tree count it has met (and grown, once, when a larger snapshot comes):
// it then allocates nothing either. A tree that does not fit, or that the
// table cannot describe (a node with two children arrays, of which the
// codec keeps the last), is walked from the bytes.

// maxTableNodes bounds the node table (about 19 MiB); the nodes of larger
// snapshots past it are walked from the bytes.
const maxTableNodes = 1 << 16

// nodeRec is a node as the table holds it.
type nodeRec struct {
	NodeView
	off   int   // offset of the node's map head
	next  int32 // index of the first record past the node's subtree
	depth int32 // the node's level, 1 for a root
	bad   bool  // a root whose tree is not (all) in the table
}

// growTable makes room in v's table for the trees of the largest snapshot
// v has parsed, if v has parsed one before (see above).
func (v *Snapshot) growTable() {
	if v.parsed && v.want > len(v.recs) && len(v.recs) < maxTableNodes {
		v.recs = make([]nodeRec, min(v.want+v.want/8+16, maxTableNodes))
	}
	v.parsed = true
}

// clearTable empties the table, for a new windows array.
func (v *Snapshot) clearTable() { v.nRecs, v.recFull = 0, false }

// nodeAt is where the pass reads the node of record r: the record, or a
// scratch view when the node is not recorded.
func (v *Snapshot) nodeAt(r int) *NodeView {
	if r >= 0 && r < len(v.recs) {
		return &v.recs[r].NodeView
	}
	return &v.node
}

// vframe is one open node of the validation pass's explicit stack.
type vframe struct {
	start  int    // offset of the node's map head
	n, i   int    // pairs in the node's map (-1: indefinite), pairs read
	kn, ki int    // children in the array (-1: indefinite), children started
	kidsAt int    // offset of the children array's head
	tail   int    // slot in the tail table for where the children end, or -1
	rec    int    // the node's record, or -1
	seen   uint32 // keys present
	inKids bool
	had8   bool // a children pair was read
}

// record makes the record of the node whose map head is at start, at
// level depth, when the table has room: its index, or -1.
func (v *Snapshot) record(start, depth int) int {
	v.nNodes++
	if v.nRecs < len(v.recs) {
		r := v.nRecs
		v.nRecs++
		v.recs[r] = nodeRec{off: start, depth: int32(depth)}
		return r
	}
	if len(v.recs) > 0 {
		v.recFull = true
	}
	return -1
}

// open pushes the node whose map head at start counts cnt pairs, at
// level depth, recording it when the table has room.
func (v *Snapshot) open(start, cnt, depth int) {
	rec := v.record(start, depth)
	v.stack[depth-1] = vframe{start: start, n: cnt, tail: -1, rec: rec}
}

// close completes record rec (-1: none), whose subtree is read.
func (v *Snapshot) close(rec int) {
	if rec < 0 || rec >= len(v.recs) {
		return
	}
	r := &v.recs[rec]
	r.next = int32(v.nRecs)
	if c := r.Class; c < stringCache && int(c) < v.nStrings {
		r.ClassName = v.names[c]
	} else {
		v.farClassName(r)
	}
}

// farClassName is the class name of r past the located entries of the
// string table; close is small enough to be inlined without it.
func (v *Snapshot) farClassName(r *nodeRec) {
	if r.Class < stringNear {
		r.ClassName, _ = v.lookupFar(v.buf, r.Class)
	}
}

// fixClassNames resolves the class names of the table again, for a
// string table read after the windows.
func (v *Snapshot) fixClassNames() {
	for i := range v.recs[:v.nRecs] {
		r := &v.recs[i]
		r.ClassName = ""
		if r.Class < stringNear {
			r.ClassName, _ = v.lookup(v.buf, r.Class)
		}
	}
}

// tree validates the node tree at d depth first with the explicit stack
// in v: no recursion, and a tree deeper than schema.MaxNodeDepth fails as
// soon as its level MaxNodeDepth+1 begins. The pairs of a definite map
// go through decodePairs, one loop per node; what it leaves, pair by pair
// through the general readers.
func (v *Snapshot) tree(d *dec) (err error) {
	sp := 0
	defer func() {
		if err != nil {
			for j := sp - 1; j >= 1; j-- {
				err = cbor.WithField(cbor.WithIndex(err, v.stack[j-1].ki-1), "children")
			}
		}
	}()
	b := d.Input()
	start := d.Offset()
	cnt, err := d.MapHead()
	if err != nil {
		return err
	}
	root := v.nRecs
	tainted := false
	v.open(start, cnt, 1)
	sp = 1
	for sp > 0 {
		f := &v.stack[sp-1]
		if f.inKids {
			// The children, one after the other: a child whose map
			// decodePairs reads to its end (a leaf, in the canonical
			// layout) is done here, without going through the loop;
			// another goes on the stack.
			pushed, off := false, d.Offset()
			for {
				if f.kn >= 0 {
					if f.ki >= f.kn {
						break
					}
				} else if off < len(b) && b[off] == cbor.Break {
					off++
					break
				}
				if sp == len(v.stack) {
					return cbor.Errorf(cbor.ErrDepth, off, "node tree deeper than "+itoa(schema.MaxNodeDepth)+" levels")
				}
				f.ki++
				start := off
				var cnt int
				if c := mapHeadByte(b, start); c >= 0xa0 && c < 0xb8 && 2*int(c-0xa0) < len(b)-start {
					cnt, off = int(c-0xa0), start+1
				} else {
					d.Seek(start)
					if cnt, err = d.MapHead(); err != nil {
						sp++ // the path names the child
						v.stack[sp-1] = vframe{}
						return err
					}
					off = d.Offset()
				}
				rec := v.record(start, sp+1)
				nv := v.nodeAt(rec)
				p, seen := 0, uint32(0)
				if cnt >= 4 && off+32 <= len(b) {
					// A leaf in the canonical layout is read here
					// whole, without a frame on the stack.
					if off, p, seen = decodeCanon(b, off, cnt, nv); p == cnt && seen&0xf == 0xf {
						v.close(rec)
						continue
					}
				}
				v.stack[sp] = vframe{start: start, n: cnt, i: p, seen: seen, tail: -1, rec: rec}
				c := &v.stack[sp]
				if cnt >= 0 {
					var stop int
					off, stop = decodePairs(b, off, c, nv)
					if stop == scanEnd && c.seen&nodeNeed == nodeNeed {
						v.close(rec)
						continue
					}
					if stop == scanKids {
						v.kids(c)
					}
				}
				sp++
				pushed = true
				break
			}
			d.Seek(off)
			if pushed {
				continue
			}
			f.inKids = false
			v.tails.set(f.tail, d.Offset())
			f.seen |= 1 << schema.KeyNodeChildren
			f.i++
			continue
		}
		nv := v.nodeAt(f.rec)
		if f.n >= 0 {
			off, stop := decodePairs(b, d.Offset(), f, nv)
			d.Seek(off)
			switch stop {
			case scanEnd:
				if f.seen&nodeNeed != nodeNeed {
					return missingNodeKey(f.seen, f.start)
				}
				v.close(f.rec)
				sp--
				continue
			case scanKids:
				v.kids(f)
				continue
			}
		}
		if !d.More(f.n, f.i) {
			if err := missingNodeKey(f.seen, f.start); err != nil {
				return err
			}
			v.close(f.rec)
			sp--
			continue
		}
		k, err := d.Key()
		if err != nil {
			return err
		}
		if k == schema.KeyNodeChildren {
			tainted = tainted || f.had8
			f.had8 = true
			if d.Null() {
				f.seen &^= 1 << schema.KeyNodeChildren
				nv.kidsN = 0
				f.i++
				continue
			}
			at := d.Offset()
			kn, err := d.ArrayHeadOf(schema.MinNodeLen, "children")
			if err != nil {
				return cbor.WithField(err, "children")
			}
			f.kn, f.ki, f.kidsAt = kn, 0, at
			nv.kidsOff, nv.kidsN = d.Offset(), kn
			v.kids(f)
			continue
		}
		if err := nodeField(d, nv, k, &f.seen); err != nil {
			return err
		}
		f.i++
	}
	if root < v.nRecs {
		v.recs[root].bad = tainted || v.recFull
	}
	return nil
}

// kids opens the children array of f, located at f.kidsAt: when pairs of
// the node follow it, the tail table is to record where it ends.
func (v *Snapshot) kids(f *vframe) {
	f.inKids, f.tail = true, -1
	if f.n < 0 || f.i+1 < f.n {
		f.tail = v.tails.reserve(f.kidsAt)
	}
}

// mapHeadByte is b[i], or 0 (no map head) past the end.
func mapHeadByte(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// missingNodeKey is schema.Node.Missing, kept out of line: the tree
// loop is the hot path, and the call costs it less than the check in
// line.
//
//go:noinline
func missingNodeKey(seen uint32, start int) error { return schema.Node.Missing(seen, start) }
