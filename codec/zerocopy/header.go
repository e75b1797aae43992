package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// HeaderView is what a frame's envelope says about it, read without
// decoding the rest, so that a receive loop can route the frame. Code is
// borrowed from the frame (valid until Release).
type HeaderView struct {
	Kind codec.Kind // key 0 of a message map, element 0 of an event array

	// Request and response.
	ID        uint64       // key 1
	HasID     bool         // key 1 was read
	Method    codec.Method // key 2
	HasMethod bool         // key 2 was read
	// HasResult reports that a response carries a result (key 3); a
	// request always carries params there.
	HasResult bool

	// IsError reports that a response (key 4) or welcome (key 3) carries
	// an error; Code is the error's code.
	IsError bool
	Code    string

	// Nonce is a ping's or pong's nonce (key 1).
	Nonce uint64

	// Event.
	Stream codec.Stream
	Seq    uint64
	Type   codec.EventType
}

// Header reads the envelope of a payload: the kind, and for a request or
// response its id and method, for a response whether it carries an error
// (and its code), for a ping or pong the nonce, for an event its stream,
// seq and type. It allocates nothing on success.
//
// Header is a router's peek, not a validation: it stops at the result or
// params (key 3) once the kind, id and method are known, as the canonical
// order puts them first, and leaves the rest of the frame unread. A
// payload Header accepts may still fail to decode; one the codec decodes,
// Header reads alike.
func Header(payload []byte) (HeaderView, error) {
	var h HeaderView
	d := newDec(payload)
	b, ok := d.PeekByte()
	if !ok {
		return h, cbor.WithField(cbor.Errorf(cbor.ErrTruncated, 0, "empty input where a message was expected"), "message")
	}
	switch b >> 5 {
	case byte(cbor.MajorArray):
		_, err := eventHead(&d, &h)
		return h, err
	case byte(cbor.MajorMap):
	default:
		if _, err := d.ReadHead(); err != nil {
			return h, cbor.WithField(err, "message")
		}
		return h, cbor.WithField(cbor.Errorf(cbor.ErrType, 0, cbor.Major(b>>5).String()+" where a message map or event array was expected"), "message")
	}
	if headerFast(payload, &h) {
		return h, nil
	}
	kind, err := peekKind(payload)
	if err != nil {
		return h, cbor.WithField(err, "message")
	}
	h.Kind = kind
	switch kind {
	case codec.KindRequest, codec.KindResponse, codec.KindPing, codec.KindPong, codec.KindWelcome:
	default:
		return h, nil
	}
	name := kind.String()
	n, _ := d.MapHead() // read by peekKind
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return h, cbor.WithField(err, name)
		}
		null := d.Null()
		switch {
		case null:
			switch k {
			case schema.KeyRequestID: // KeyResponseID, KeyNonce
				h.HasID, h.ID, h.Nonce = false, 0, 0
			case schema.KeyRequestMethod: // KeyResponseMethod
				h.HasMethod, h.Method = false, 0
			case schema.KeyResponseResult: // KeyWelcomeError
				if kind == codec.KindResponse {
					h.HasResult = false
				} else if kind == codec.KindWelcome {
					h.IsError, h.Code = false, ""
				}
			case schema.KeyResponseError:
				if kind == codec.KindResponse {
					h.IsError, h.Code = false, ""
				}
			}
			continue
		case k == schema.KeyRequestID && kind != codec.KindWelcome: // KeyResponseID, KeyNonce
			v, err := d.Uint()
			if err != nil {
				return h, cbor.WithField(cbor.WithField(err, idName(kind)), name)
			}
			if kind == codec.KindPing || kind == codec.KindPong {
				h.Nonce = v
			} else {
				h.ID = v
			}
			h.HasID = true
		case k == schema.KeyRequestMethod && (kind == codec.KindRequest || kind == codec.KindResponse): // KeyResponseMethod
			v, err := d.Uint32()
			if err != nil {
				return h, cbor.WithField(cbor.WithField(err, "method"), name)
			}
			h.Method, h.HasMethod = codec.Method(v), true
		case k == schema.KeyRequestParams && (kind == codec.KindRequest || kind == codec.KindResponse): // KeyResponseResult
			if kind == codec.KindResponse {
				h.HasResult = true
			}
			if h.HasID && h.HasMethod {
				return h, nil
			}
			if err := d.Skip(); err != nil {
				return h, cbor.WithField(err, name)
			}
		case (k == schema.KeyResponseError && kind == codec.KindResponse) || (k == schema.KeyWelcomeError && kind == codec.KindWelcome):
			code, err := errorCode(&d)
			if err != nil {
				return h, cbor.WithField(cbor.WithField(err, "error"), name)
			}
			h.IsError, h.Code = true, code
		default:
			if err := d.Skip(); err != nil {
				return h, cbor.WithField(err, name)
			}
		}
	}
	return h, nil
}

func idName(k codec.Kind) string {
	if k == codec.KindPing || k == codec.KindPong {
		return "nonce"
	}
	return "id"
}

// peekKind finds key 0 of the map at the start of b, scanning the whole
// map only when the kind does not come first.
func peekKind(b []byte) (codec.Kind, error) {
	d := newDec(b)
	n, err := d.MapHead()
	if err != nil {
		return 0, err
	}
	var kind codec.Kind
	found := false
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return 0, err
		}
		if k == schema.KeyKind && !d.Null() {
			v, err := d.Uint()
			if err != nil {
				return 0, cbor.WithField(err, "kind")
			}
			if i == 0 {
				return codec.Kind(v), nil
			}
			kind, found = codec.Kind(v), true
			continue
		}
		if k == schema.KeyKind {
			found = false
			continue
		}
		if err := d.Skip(); err != nil {
			return 0, err
		}
	}
	if !found {
		return 0, cbor.WithField(cbor.Errorf(cbor.ErrMissing, 0, "key 0 (kind) is required"), "kind")
	}
	return kind, nil
}

// errorCode reads an Error map and returns its code (key 0), borrowed.
func errorCode(d *dec) (string, error) {
	it, err := d.Fields(schema.KeyErrorCode + 1)
	if err != nil {
		return "", err
	}
	var code string
	for it.Next(d) {
		if it.Null() {
			code = ""
		} else if code, err = text(d); err != nil {
			return "", schema.Error.In(err, schema.KeyErrorCode)
		}
	}
	return code, it.Err()
}

// eventHead reads [kind, stream, seq, type] of an event array.
func eventHead(d *dec, h *HeaderView) (int, error) {
	n, err := d.ArrayHead()
	if err != nil {
		return n, cbor.WithField(err, "message")
	}
	var head [4]uint64
	for i := range head {
		if !d.More(n, i) {
			if i == 0 {
				return n, cbor.WithField(cbor.Errorf(cbor.ErrMissing, 0, "an empty array is not a message"), "message")
			}
			return n, cbor.WithField(cbor.Errorf(cbor.ErrMissing, 0, "an event has at least 4 elements, not "+itoa(i)), "event")
		}
		at := d.Offset()
		if head[i], err = d.Uint(); err != nil {
			if i == 0 {
				return n, cbor.WithField(err, "kind")
			}
			return n, cbor.WithField(cbor.WithField(err, eventNames[i]), "event")
		}
		if i == 0 && codec.Kind(head[0]) != codec.KindEvent {
			h.Kind = codec.Kind(head[0])
			return n, nil
		}
		if (i == 1 || i == 3) && head[i] > 0xffffffff {
			return n, cbor.WithField(cbor.WithField(cbor.Errorf(cbor.ErrRange, at, "does not fit in u32"), eventNames[i]), "event")
		}
	}
	h.Kind = codec.KindEvent
	h.Stream, h.Seq, h.Type = codec.Stream(head[1]), head[2], codec.EventType(head[3])
	return n, nil
}

var eventNames = [...]string{"kind", "stream", "seq", "type"}

// headerFast reads the canonical envelope of a request or a response with
// a result, a ping or a pong: a definite map that starts with kind, then
// id (or nonce), then method, then params or result. It reports false for
// anything else, which Header then reads in full.
func headerFast(b []byte, h *HeaderView) bool {
	if len(b) < 5 || b[0] < 0xa2 || b[0] > 0xb7 || b[1] != schema.KeyKind || b[3] != schema.KeyRequestID {
		return false
	}
	kind := codec.Kind(b[2])
	id, n := cbor.UintAt(b, 4)
	if n == 0 {
		return false
	}
	i := 4 + n
	switch kind {
	case codec.KindPing, codec.KindPong:
		if b[0] != 0xa2 {
			return false
		}
		h.Kind, h.Nonce, h.HasID = kind, id, true
		return true
	case codec.KindRequest, codec.KindResponse:
		if b[0] < 0xa4 {
			return false
		}
	default:
		return false
	}
	if i+1 >= len(b) || b[i] != schema.KeyRequestMethod {
		return false
	}
	m, n := cbor.Uint32At(b, i+1)
	if n == 0 || i+1+n >= len(b) || b[i+1+n] != schema.KeyRequestParams {
		return false
	}
	h.Kind, h.ID, h.HasID, h.Method, h.HasMethod = kind, id, true, codec.Method(m), true
	h.HasResult = kind == codec.KindResponse
	return true
}
