package codec

import (
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// The canonical node-tree fast path. Nodes are the bulk of a snapshot,
// and an encoder that follows docs/protocol.md writes each one the same way:
// a map with a one-byte head, one-byte keys in ascending order, definite
// lengths, no nulls, bounds of exactly four integers. nodeTreeFast reads
// a tree of such nodes straight from the bytes, keeping its position in a
// local and its open nodes on an explicit stack (never recursion, at most
// schema.MaxNodeDepth levels). At the first thing it does not expect it gives
// up, and the general decoder reads the tree again from its root: the
// fast path accepts only what the general path accepts, and reads it
// alike (FuzzFastPaths compares the two).

// fastFrame is a node whose children the fast path is reading: the
// node's own state waits here while its children are read.
type fastFrame struct {
	node *Node
	kids []Node // the children array
	ki   int    // children opened
	left int    // the node's pairs not yet read
	prev int    // the node's last key read
}

// localFrames is how many levels of the fast path's stack live on the
// goroutine's stack: deeper than any app the generator or real dumps
// show (about 20), and small enough that clearing them costs little.
const localFrames = 32

// spill moves the fast path's stack, full at localFrames levels, to the
// decoder's heap stack, which holds schema.MaxNodeDepth.
func (d *decoder) spill(stack []fastFrame) []fastFrame {
	if cap(d.fast) < schema.MaxNodeDepth {
		d.fast = make([]fastFrame, 0, schema.MaxNodeDepth)
	}
	d.spilled = true
	return append(d.fast[:0], stack...)
}

// unspill clears the heap stack after a tree that used it, so that the
// pooled decoder keeps no message alive.
func (d *decoder) unspill() {
	if d.spilled {
		clear(d.fast[:cap(d.fast)])
		d.spilled = false
	}
}

// openNode starts reading n, whose map head is at b[i]: the head and
// the required keys 0 to 3, which come first in ascending order. It
// returns the pairs left to read and the offset past key 3, or 0.
func openNode(b []byte, i int, n *Node) (left, end int) {
	if i >= len(b) || b[i] < 0xa4 || b[i] > 0xac {
		return 0, 0
	}
	return int(b[i]-0xa0) - 4, nodePrefix(b, i+1, n)
}

// nodePrefix reads keys 0 to 3 of a node (id, class, bounds, flags) at
// b[i] into n, returning the offset past them or 0.
func nodePrefix(b []byte, i int, n *Node) int {
	if i+1 >= len(b) || b[i] != schema.KeyNodeID {
		return 0
	}
	if n.ID, i = shape.U32At(b, i+1); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeClass {
		return 0
	}
	if n.Class, i = shape.U32At(b, i+1); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeBounds {
		return 0
	}
	if i = shape.BoundsAt(b, i+1, boundsTwin(&n.Bounds)); i == 0 || i+1 >= len(b) || b[i] != schema.KeyNodeFlags {
		return 0
	}
	n.Flags, i = shape.U32At(b, i+1)
	return i
}

// textAt reads a definite text string with a head of up to three bytes at
// b[i], checks its UTF-8, and returns it as a string of b's memory, with
// the offset past it (0 when it is anything else). b is memory the
// message may keep: the decoder's copy of its input under Decode.
func textAt(b []byte, i int) (string, int) {
	start, end := cbor.ValidTextAt(b, i)
	if end == 0 {
		return "", 0
	}
	return str(b[start:end]), end
}

// scrollAt reads a canonical scroll map at b[i] (shape.ScrollAt) into a
// Scroll of the decoder's slab, returning the offset past it or 0.
func (d *decoder) scrollAt(b []byte, i int) (*Scroll, int) {
	var s Scroll
	if i = shape.ScrollAt(b, i, scrollTwin(&s)); i == 0 {
		return nil, 0
	}
	d.Seek(i) // takeScroll sizes its chunks by the bytes left
	sp, err := d.takeScroll()
	if err != nil {
		return nil, 0
	}
	*sp = s
	return sp, i
}

// nodeTreeFast reads the tree whose root's map starts at the decoder's
// position into root (zeroed), and reports whether it could; when it
// could not, the decoder's position is where it was and root is zeroed
// again, for the general path. The node being read keeps its state in
// locals; a node waits on the stack while its children are read.
func (d *decoder) nodeTreeFast(root *Node) bool {
	// No closure here: the loop's state stays in registers. The first
	// localFrames levels of the stack live on the goroutine's stack, not
	// the heap, so pushing and popping a frame costs no write barrier
	// while a collection runs; a deeper tree spills to the decoder's.
	b, start := d.Input(), d.Offset()
	if d.copyInput {
		b = d.ownInput() // the same bytes at the same offsets: texts are cut from the copy
	}
	var frames [localFrames]fastFrame
	stack := frames[:0]
	// Where the slabs stood: a tree the fast path gives up on gives back
	// what it took, so that the general path reserves it once.
	nodeMark, nodeBase := len(d.slab), unsafe.SliceData(d.slab)
	scrollMark, scrollBase := len(d.scrolls), unsafe.SliceData(d.scrolls)
	nodesTaken, scrollsTaken := d.nodesTaken, d.scrollsTaken
	// The node being read, its pairs not yet read and its last key read.
	// openNode reads the required keys 0 to 3, so every node read whole
	// has them.
	n := root
	left, i := openNode(b, start, n)
	prev := schema.KeyNodeFlags
	if i == 0 {
		*root = Node{}
		return false
	}
	for {
		for left > 0 {
			if i+1 >= len(b) {
				goto fail
			}
			k := int(b[i])
			if k <= prev || k >= nodeKeys {
				goto fail
			}
			prev, left = k, left-1
			i++
			switch k { // keys 0 to 3 were read by openNode; the texts are the default's
			case schema.KeyNodeResPkg:
				n.ResPkg.Val, i = shape.U32At(b, i)
				n.ResPkg.Ok = true
			case schema.KeyNodeChildren:
				kn, h := cbor.ArrayAt(b, i)
				if h == 0 {
					goto fail
				}
				if i += h; kn == 0 {
					continue // as the general path: no children, nil
				}
				if len(stack) == schema.MaxNodeDepth-1 {
					goto fail // the general path reports it
				}
				if !d.fits(kn) {
					// Past the slab's room: reserved as the general
					// path reserves it (claimKids), or left to it.
					d.Seek(i) // the claim is checked against the bytes left
					p := 0
					for j := range stack {
						p += len(stack[j].kids) - stack[j].ki
					}
					if size, err := d.claimKids(p, kn, i-h); err != nil || size < kn {
						goto fail // not all there: the general path reports where
					}
				}
				kids, err := d.takeNodes(kn)
				if err != nil {
					goto fail // the general path meets it again, and reports it
				}
				if len(stack) == cap(stack) {
					stack = d.spill(stack)
				}
				stack = append(stack, fastFrame{node: n, kids: kids, ki: 1, left: left, prev: prev})
				n = &kids[0]
				if left, i = openNode(b, i, n); i == 0 {
					goto fail
				}
				prev = schema.KeyNodeFlags
				continue
			case schema.KeyNodeScroll:
				n.Scroll, i = d.scrollAt(b, i)
			default:
				t := n.textField(k)
				if t == nil {
					goto fail // a key of no text this path does not read
				}
				if *t, i = textAt(b, i); *t == "" {
					n.Empty |= 1 << k // present, and empty
				}
			}
			if i == 0 {
				goto fail
			}
		}
		// n is read whole: go on with its next sibling, or with the rest
		// of its parent.
		for {
			if len(stack) == 0 {
				d.unspill()
				d.Seek(i)
				return true
			}
			f := &stack[len(stack)-1]
			if f.ki < len(f.kids) {
				n = &f.kids[f.ki]
				f.ki++
				if left, i = openNode(b, i, n); i == 0 {
					goto fail
				}
				prev = schema.KeyNodeFlags
				break
			}
			f.node.Children = f.kids
			n, left, prev = f.node, f.left, f.prev
			stack = stack[:len(stack)-1]
			if left > 0 {
				break
			}
		}
	}
fail:
	d.unspill()
	*root = Node{}
	d.Seek(start)
	// A new chunk keeps its room for the general path, from its start.
	if unsafe.SliceData(d.slab) != nodeBase {
		nodeMark = 0
	}
	clear(d.slab[nodeMark:])
	d.slab = d.slab[:nodeMark]
	if unsafe.SliceData(d.scrolls) != scrollBase {
		scrollMark = 0
	}
	clear(d.scrolls[scrollMark:])
	d.scrolls = d.scrolls[:scrollMark]
	d.nodesTaken, d.scrollsTaken = nodesTaken, scrollsTaken
	return false
}
