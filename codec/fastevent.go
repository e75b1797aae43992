package codec

import "github.com/wirebench/wirebench/codec/cbor"

// The canonical tree-event fast path. The tree stream's events are the
// messages a host reads most, a few bytes each, and an encoder that
// follows docs/protocol.md writes them as
//
//	[6, 0, seq, 0, window, change]        window_changed
//	[6, 0, seq, 1, window, node, change]  content_changed
//
// treeEventFields reads exactly that layout straight from the bytes, and
// decodeEventFast makes the event of it with its one allocation. Anything
// else (another stream or type, elements past the known ones, a value out
// of range, an indefinite length) makes them report false, and the general
// decoder reads the message from the start: the fast path accepts only
// what the general path accepts, and reads it alike.

// treeEventFields reads b if it is a window_changed or content_changed
// event in the canonical layout: its seq, type and body fields (window,
// then node for content_changed, then change).
func treeEventFields(b []byte) (seq uint64, t EventType, body [3]uint32, ok bool) {
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

// decodeEventFast is the fast path of Decode for the tree events.
func decodeEventFast(b []byte) (*Event, bool) {
	seq, t, f, ok := treeEventFields(b)
	if !ok {
		return nil, false
	}
	var e *Event
	if t == TypeWindowChanged {
		e = eventFor(WindowChanged{Window: f[0], Change: f[1]})
	} else {
		e = eventFor(ContentChanged{Window: f[0], Node: f[1], Change: f[2]})
	}
	e.Stream, e.Seq, e.Type = StreamTree, seq, t
	return e, true
}
