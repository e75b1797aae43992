package codec

import (
	"encoding/binary"

	"github.com/wirebench/wirebench/codec/cbor"
)

// The canonical tree-event fast path. The tree stream's events are the
// messages a host reads most, a few bytes each, and an encoder that
// follows docs/protocol.md writes them as
//
//	[6, 0, seq, 0, window, change]        window_changed
//	[6, 0, seq, 1, window, node, change]  content_changed
//
// the kind, stream and type in a byte each. treeEventFields (for a
// Decoder, which keeps its events) and decodeEventFast (for Decode, which
// allocates the event and its body together) read exactly that layout
// straight from the bytes: the seq at any width, the body fields with
// heads of up to 3 bytes in line, and any other widths (a non-minimal
// head too, which the general decoder accepts) with the array reader,
// treeEventArray. Anything else (another stream or type, elements past
// the known ones, a value out of range, an indefinite length) makes them
// report false, and the general decoder reads the message from the
// start: the fast path accepts only what the general path accepts, and
// reads it alike.
//
// Both read through treeEventHeads; TestTreeEventEveryWidth holds it to
// the array reader.

// treeEventFields reads b if it is a window_changed or content_changed
// event in the canonical layout: its seq, type and body fields (window,
// then node for content_changed, then change).
func treeEventFields(b []byte) (seq uint64, t EventType, body [3]uint32, ok bool) {
	seq, t, f0, f1, f2, r := treeEventHeads(b)
	switch r {
	case headsRead:
		return seq, t, [3]uint32{f0, f1, f2}, true
	case headsOther:
		return treeEventArray(b)
	}
	return 0, 0, body, false
}

// What treeEventHeads found.
const (
	headsRefused = iota // not a tree event, at any width
	headsRead           // a tree event, read
	headsOther          // another layout: the array reader decides
)

// treeEventHeads reads b if it is a tree event as an encoder writes it:
// the kind, stream and type in a byte each, the seq's head at most 9
// bytes and the body fields' at most 3 (values below 65536). It calls
// nothing; any other bytes it leaves to the array reader, treeEventArray,
// which reads every element at any width (a non-minimal head too, as the
// general decoder does).
func treeEventHeads(b []byte) (seq uint64, t EventType, f0, f1, f2 uint32, r int) {
	// [6, 0, seq, type, ...]: a 6- or 7-element array.
	if len(b) < 7 || b[0]&^1 != 0x86 {
		return 0, 0, 0, 0, 0, headsRefused
	}
	if b[1] != byte(KindEvent) || b[2] != byte(StreamTree) {
		return 0, 0, 0, 0, 0, headsOther
	}
	i := 4
	if seq = uint64(b[3]); seq >= 24 {
		switch {
		case seq == 0x18:
			seq, i = uint64(b[4]), 5
		case seq == 0x19:
			seq, i = uint64(b[4])<<8|uint64(b[5]), 6
		case seq == 0x1a && len(b) >= 8:
			seq, i = uint64(binary.BigEndian.Uint32(b[4:8])), 8
		case seq == 0x1b && len(b) >= 12:
			seq, i = binary.BigEndian.Uint64(b[4:12]), 12
		default:
			return 0, 0, 0, 0, 0, headsOther
		}
	}
	// The type, 0 in 6 elements and 1 in 7, then its 2 or 3 fields. A
	// one-byte head, the commonest, is tested before shortUintAt, which
	// tests it too: without that test first, content_changed takes 9
	// instructions more.
	var v, w uint64
	if i < len(b) && b[i] < 24 {
		v, i = uint64(b[i]), i+1
	} else if v, i = shortUintAt(b, i); i == 0 {
		return 0, 0, 0, 0, 0, headsOther
	}
	if v != uint64(b[0]&1) {
		return 0, 0, 0, 0, 0, headsRefused
	}
	t = EventType(v)
	if i < len(b) && b[i] < 24 {
		v, i = uint64(b[i]), i+1
	} else if v, i = shortUintAt(b, i); i == 0 {
		return 0, 0, 0, 0, 0, headsOther
	}
	if i < len(b) && b[i] < 24 {
		w, i = uint64(b[i]), i+1
	} else if w, i = shortUintAt(b, i); i == 0 {
		return 0, 0, 0, 0, 0, headsOther
	}
	f0, f1 = uint32(v), uint32(w)
	if t == TypeContentChanged {
		if i < len(b) && b[i] < 24 {
			v, i = uint64(b[i]), i+1
		} else if v, i = shortUintAt(b, i); i == 0 {
			return 0, 0, 0, 0, 0, headsOther
		}
		f2 = uint32(v)
	}
	if i != len(b) {
		// Bytes after the last element, read at the width the array
		// reader reads them: refused.
		return 0, 0, 0, 0, 0, headsRefused
	}
	return seq, t, f0, f1, f2, headsRead
}

// shortUintAt reads an unsigned integer with a head of at most 3 bytes
// at b[i] (i > 0), returning the offset past it, or 0 for anything else.
func shortUintAt(b []byte, i int) (uint64, int) {
	if i < len(b) {
		switch c := b[i]; {
		case c < 24:
			return uint64(c), i + 1
		case c == 0x18 && i+1 < len(b):
			return uint64(b[i+1]), i + 2
		case c == 0x19 && i+2 < len(b):
			return uint64(b[i+1])<<8 | uint64(b[i+2]), i + 3
		}
	}
	return 0, 0
}

// treeEventArray is treeEventFields for elements of any width: it reads
// the array with cbor.UintArray.
func treeEventArray(b []byte) (seq uint64, t EventType, body [3]uint32, ok bool) {
	var v [7]uint64
	n := cbor.UintArray(b, v[:])
	if n < 4 || v[0] != uint64(KindEvent) || v[1] != uint64(StreamTree) {
		return 0, 0, body, false
	}
	switch {
	case v[3] == uint64(TypeWindowChanged) && n == 6:
	case v[3] == uint64(TypeContentChanged) && n == 7:
	default:
		return 0, 0, body, false
	}
	for k, x := range v[4:n] {
		if x > 0xffffffff {
			return 0, 0, body, false
		}
		body[k] = uint32(x)
	}
	return v[2], EventType(v[3]), body, true
}

// decodeEventFast is the fast path of Decode for the tree events: the
// reading of treeEventHeads, then the one allocation.
func decodeEventFast(b []byte) (*Event, bool) {
	seq, t, f0, f1, f2, r := treeEventHeads(b)
	switch r {
	case headsRead:
		return newTreeEvent(seq, t, f0, f1, f2), true
	case headsOther:
		return decodeEventAny(b)
	}
	return nil, false
}

// decodeEventAny is decodeEventFast for elements of any width.
func decodeEventAny(b []byte) (*Event, bool) {
	seq, t, f, ok := treeEventArray(b)
	if !ok {
		return nil, false
	}
	return newTreeEvent(seq, t, f[0], f[1], f[2]), true
}

// What newTreeEvent leaves to the zeroed memory: this does not compile
// unless StreamTree and TypeWindowChanged are 0.
const _ uint = -uint(StreamTree) - uint(TypeWindowChanged)

// newTreeEvent allocates a tree event and its body together, the body
// fields f0, f1 (and f2) in the order treeEventFields reads them.
func newTreeEvent(seq uint64, t EventType, f0, f1, f2 uint32) *Event {
	// The fields one by one into the fresh, zeroed memory: its Stream is
	// StreamTree already, and a window_changed's Type (treeStreamZero).
	if t == TypeWindowChanged {
		x := new(with[Event, WindowChanged])
		x.body.Window, x.body.Change = f0, f1
		x.head.Seq, x.head.Body = seq, &x.body
		return &x.head
	}
	x := new(with[Event, ContentChanged])
	x.body.Window, x.body.Node, x.body.Change = f0, f1, f2
	x.head.Seq, x.head.Type, x.head.Body = seq, TypeContentChanged, &x.body
	return &x.head
}
