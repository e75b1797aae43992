package codec

import (
	"errors"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Memory for the decoded nodes and scroll semantics of a snapshot: they
// are carved from slabs, so that a snapshot's nodes cost one allocation,
// or a few, rather than one per parent.
//
// A slab chunk is sized from the bytes left in the payload, since each
// node takes at least schema.MinNodeLen of them (no reserve is larger than the
// input can hold). How many bytes a node takes on average is learned:
// the decoder (pooled, so it lives on from message to message) keeps the
// ratio of the last snapshot it read and sizes the first chunk of the
// next one by it, with a little to spare. A daemon reads snapshot after
// snapshot of the same screens, so the first chunk mostly fits them all;
// one that is too small costs a second chunk sized the same way from the
// bytes then left.

const (
	// typicalNodeLen is the bytes an app's node takes on the wire, for a
	// decoder that has read no snapshot yet.
	typicalNodeLen = 48
	// typicalScrollGap is the bytes between scrolling nodes in an app's
	// tree, likewise.
	typicalScrollGap = 512
	minScrollLen     = 5 // map head, keys 0 and 1, two one-byte values
	// maxArenaGap caps the scrolls reserved after the input's copy at
	// one per maxArenaGap bytes left (half a byte of room per byte), what
	// ever the last snapshot taught: more come from takeScroll as they
	// arrive.
	maxArenaGap = 128
)

// slabs is the decoder's memory for nodes and scrolls.
type slabs struct {
	slab    []Node   // nodes not yet handed out
	scrolls []Scroll // scrolls not yet handed out

	// What the snapshot being read has taken, from the bytes of its
	// windows array.
	treeBytes, nodesTaken, scrollsTaken int

	// Learned from the last snapshot: bytes per node and per scroll.
	nodeLen, scrollGap int
}

// startTrees begins the windows array of a snapshot, at the decoder's
// position.
func (d *decoder) startTrees() {
	d.treeBytes, d.nodesTaken, d.scrollsTaken = d.Len(), 0, 0
}

// endTrees learns the bytes per node and per scroll of the windows array
// just read.
func (d *decoder) endTrees() {
	used := d.treeBytes - d.Len()
	if d.nodesTaken > 0 {
		d.nodeLen = max(schema.MinNodeLen, used/d.nodesTaken)
	}
	if d.scrollsTaken > 0 {
		d.scrollGap = max(minScrollLen, used/d.scrollsTaken)
	}
}

// chunk is the number of items to reserve for the bytes left at per
// bytes an item, with 1/16 to spare, at least twice the last chunk (so
// that a snapshot far denser than the last one still takes few chunks),
// and at least n; never more than the bytes left can hold at least bytes
// an item.
func chunk(n, last, left, per, least int) int {
	size := max(left/per+left/(16*per)+1, 2*last)
	return max(n, min(size, left/least+1))
}

// takeNodes returns n zeroed nodes for one children array (or a root),
// capped at n, so that appending to it cannot reach the next array's
// nodes. A new chunk is sized as chunk says; the first of a snapshot,
// which rests on the last snapshot alone, holds at most a node per
// firstChunkLen bytes left; a later one, beside the claim that needs it,
// room for at most as many nodes as the snapshot took so far. A claim
// past the room is taken only once claimKids has shown its nodes are
// there, so chunks grow with the items that arrived.
func (d *decoder) takeNodes(n int) ([]Node, error) {
	if len(d.slab)+n > cap(d.slab) {
		per := d.nodeLen
		if per == 0 {
			per = typicalNodeLen
		}
		left := d.Len()
		size := chunk(n, cap(d.slab), left, per, schema.MinNodeLen)
		if cap(d.slab) == 0 {
			size = max(n, min(size, left/firstChunkLen+1)) // the first, on a guess alone
		} else {
			size = max(n, min(size, n+d.nodesTaken)) // room for as many more as came so far
		}
		if err := d.afford(size * nodeSize); err != nil {
			return nil, err
		}
		d.slab = make([]Node, 0, size)
	}
	d.nodesTaken += n
	i := len(d.slab)
	d.slab = d.slab[:i+n]
	return d.slab[i : i+n : i+n], nil
}

// fits reports whether n nodes fit in the room of the slab: a claim that
// does is taken from memory already reserved.
func (d *decoder) fits(n int) bool { return len(d.slab)+n <= cap(d.slab) }

// firstChunkLen is the least bytes a node of a new chunk is reserved
// for, when no claim asks for more: about twice schema.MinNodeLen. A chunk
// reserved on a guess that a claim then finds too small (itemsPresent
// shows its nodes are there, and they get a chunk of their own) is lost room,
// and this keeps it under half of what the nodes that follow need:
// honest snapshots of an app take about 47 bytes a node, and their guess
// stays well under it.
const firstChunkLen = 28

// itemsPresent counts the items, of n claimed, that follow the decoder's
// position whole, each a well-formed item of at least least bytes, up to
// the first that is not; the decoder does not move. An array whose
// items are not all there cannot decode (an item Skip refuses, or too
// short to be one, is one the decoding refuses too): a claim that does
// not fit in memory already reserved is reserved only when they are.
func (d *decoder) itemsPresent(n, least int) int {
	s := d.Decoder // a copy: d stays where it is
	for i := 0; i < n; i++ {
		start := s.Offset()
		if s.Skip() != nil || s.Offset()-start < least {
			return i
		}
	}
	return n
}

// takeScroll returns a zeroed Scroll.
func (d *decoder) takeScroll() (*Scroll, error) {
	if len(d.scrolls) == cap(d.scrolls) {
		per := d.scrollGap
		if per == 0 {
			per = typicalScrollGap
		}
		// Sized by the scrolls that came so far, not only by the bytes
		// left: each new chunk holds half as many as came before it.
		size := min(chunk(4, cap(d.scrolls), d.Len(), per, minScrollLen), d.scrollsTaken/2+4)
		if err := d.afford(size * scrollSize); err != nil {
			return nil, err
		}
		d.scrolls = make([]Scroll, 0, size)
	}
	d.scrollsTaken++
	d.scrolls = d.scrolls[:len(d.scrolls)+1]
	return &d.scrolls[len(d.scrolls)-1], nil
}

// reserveArena makes the decoder's copy of its input (see keep) at the
// start of a snapshot, with room after it for the scrolls the snapshot
// will likely have: Scroll holds no pointers, so it may live in the
// copy's memory, and the two cost one allocation. The room is carved
// 8-byte aligned as a []Scroll; when the snapshot has more scrolls,
// takeScroll allocates on.
func (d *decoder) reserveArena() {
	if !d.copyInput || d.own != nil || len(d.scrolls) < cap(d.scrolls) {
		return
	}
	per := d.scrollGap
	if per == 0 {
		per = typicalScrollGap
	}
	const size, align = int(unsafe.Sizeof(Scroll{})), int(unsafe.Alignof(Scroll{}))
	k := min(chunk(4, 0, d.Len(), per, minScrollLen), d.Len()/maxArenaGap+4)
	// Exactly the size asked (append would grow it by a quarter and
	// round it up to a size class: 32 KiB for a 24 KB snapshot); clearing
	// the copy's part before it is written costs about a byte's store
	// per byte, well under the copy itself.
	n := len(d.src)
	d.spent += n + align + k*size
	arena := make([]byte, n+align+k*size)
	copy(arena, d.src)
	d.own = arena[:n:n]
	room := arena[n:]
	room = room[(align-int(uintptr(unsafe.Pointer(unsafe.SliceData(room))))%align)%align:]
	d.scrolls = unsafe.Slice((*Scroll)(unsafe.Pointer(unsafe.SliceData(room))), len(room)/size)[:0]
}

// hostileSlack is what a frame may cost past 16 bytes a byte before
// its reservations are checked against a walk of the whole frame: 1 MiB
// (the slack of the hostile bound, allocbound.Hostile) less 256 KiB for
// what the decoder allocates without asking afford (the message and
// response structs, a short string table, a scroll room, errors).
const hostileSlack = 1<<20 - 256<<10

// afford charges a reservation of size bytes to the message being read,
// and refuses it when the message has cost more than 16 bytes a byte and
// hostileSlack and its input is not well-formed. The first reservation
// past that mark walks the whole input once (cbor Skip) and keeps what
// the walk found: a frame whose heads claim more items than it holds
// fails the walk, and its decoding ends there, with the walk's error
// (kind, offset and what was wrong), before the reservation is made; a
// well-formed frame goes on, and costs what its items cost (k·n + C, see
// Guarantees in the package doc, and docs/codec.md). So no frame whose heads lie costs more
// than 16·n + 1 MiB, however much its honest part before the lie costs,
// and a frame that does not pass the mark is never walked twice.
func (d *decoder) afford(size int) error {
	d.spent += size
	if d.spent <= 16*len(d.src)+hostileSlack {
		return nil
	}
	if !d.walked {
		d.walked = true
		w := d.Decoder
		w.Reset(d.src)
		err := w.Skip()
		if err == nil {
			err = w.Done()
		}
		if err != nil {
			var ce *cbor.Error
			if !errors.As(err, &ce) {
				ce = cbor.Errorf(cbor.ErrInvalid, 0, err.Error())
			}
			d.walkErr = ce
		}
	}
	if e := d.walkErr; e != nil {
		d.spent -= size
		return cbor.Errorf(e.Kind, e.Offset, e.Detail+" (found by a walk of the whole frame, before reserving "+itoa(d.spent+size)+" bytes for its "+itoa(len(d.src))+")")
	}
	return nil
}
