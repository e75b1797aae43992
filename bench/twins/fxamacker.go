package twins

import (
	"errors"

	"github.com/fxamacker/cbor/v2"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// The reference codec, github.com/fxamacker/cbor/v2, set to check what our
// codec checks: no more, no less, as far as its options reach.

// EncMode writes what our encoder writes.
var EncMode = func() cbor.EncMode {
	opts := cbor.CoreDetEncOptions()              // RFC 8949 core deterministic: shortest heads, sorted keys
	opts.IndefLength = cbor.IndefLengthForbidden  // definite lengths only (rule 2)
	opts.NilContainers = cbor.NilContainerAsEmpty // lists are always present, [] when empty (rule 4)
	opts.TagsMd = cbor.TagsForbidden              // no tags (rule 7)
	em, err := opts.EncMode()
	if err != nil {
		panic(err)
	}
	return em
}()

// encBuf is EncMode with MarshalToBuffer, for the benchmarks' reused
// buffers.
var encBuf = EncMode.(cbor.UserBufferEncMode)

// DecMode accepts what our decoder accepts.
var DecMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		// A node of level L sits at CBOR nesting 2L+3 (response, result,
		// windows, window, root, then children array and node map per
		// level) and its bounds one deeper, so 517 admits 256 node levels
		// and refuses 257, like our MaxNodeDepth.
		MaxNestedLevels: 2*schema.MaxNodeDepth + 5,
		// Receivers accept indefinite lengths, as the seed's Rust decoder does.
		IndefLength: cbor.IndefLengthAllowed,
		// Text must be valid UTF-8.
		UTF8: cbor.UTF8RejectInvalid,
		// Ours lets a repeated key's last value win; fxamacker has no
		// such mode, and Quiet (no error, first or last) is the closest.
		DupMapKey: cbor.DupMapKeyQuiet,
		// No tags anywhere.
		TagsMd: cbor.TagsForbidden,
		// Large enough for a 5 000-node snapshot's arrays.
		MaxArrayElements: 1 << 20,
		MaxMapPairs:      1 << 20,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}()

// Marshal encodes m with fxamacker through its twins: the params or
// result first, then the envelope holding their bytes.
func Marshal(m codec.Message) ([]byte, error) {
	env, body, err := Of(m)
	if err != nil {
		return nil, err
	}
	return MarshalTwins(env, body)
}

// MarshalTwins encodes twins with fxamacker: body (if any) into env's raw
// params or result, then env. It sets env's raw field.
func MarshalTwins(env, body Twin) ([]byte, error) {
	if body != nil {
		raw, err := EncMode.Marshal(body)
		if err != nil {
			return nil, err
		}
		if r := rawOf(env); r != nil {
			*r = raw
		}
	}
	return EncMode.Marshal(env)
}

// rawOf is where a request's params or a response's result go in env; nil
// for other messages.
func rawOf(env Twin) *cbor.RawMessage {
	switch e := env.(type) {
	case *Request:
		return &e.Params
	case *Response:
		return &e.Result
	}
	return nil
}

// Unmarshal decodes b with fxamacker: the kind first, then the twins of
// that kind (DecodeCBOR's paths), then converts them to our message. A
// kind this version does not know is a *codec.UnknownKind, as from our
// decoder.
func Unmarshal(b []byte) (codec.Message, error) {
	if len(b) == 0 {
		return nil, errors.New("twins: empty input")
	}
	var kind uint64
	if b[0]>>5 == 4 { // an array: an event
		var elems []cbor.RawMessage
		if err := DecMode.Unmarshal(b, &elems); err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			return nil, errors.New("twins: an empty array")
		}
		if err := DecMode.Unmarshal(elems[0], &kind); err != nil {
			return nil, err
		}
	} else {
		var head struct {
			Kind uint64 `cbor:"0,keyasint"`
		}
		if err := DecMode.Unmarshal(b, &head); err != nil {
			return nil, err
		}
		kind = head.Kind
	}
	if !codec.Kind(kind).Known() || (kind == uint64(codec.KindEvent)) != (b[0]>>5 == 4) {
		return &codec.UnknownKind{Value: kind}, nil
	}
	env, body, err := decoders[kind].cbor(b)
	if err != nil {
		return nil, err
	}
	return Message(env, body)
}

// decodeCBORMap reads a map kind's envelope twin; for a request or
// response, its params or result kept raw first, then those into the twin
// the method picks.
func decodeCBORMap[T any, P interface {
	*T
	Twin
}](b []byte) (Twin, Twin, error) {
	env := P(new(T))
	if err := DecMode.Unmarshal(b, env); err != nil {
		return nil, nil, err
	}
	body, raw := bodyTwin(env)
	if body == nil {
		return env, nil, nil
	}
	return env, body, DecMode.Unmarshal(raw, body)
}

// bodyTwin returns a new twin of env's params or result, as its method
// picks it, and their raw bytes; nil for other kinds, an error response
// and a method this version does not know (its bytes are skipped).
func bodyTwin(env Twin) (Twin, []byte) {
	switch e := env.(type) {
	case *Request:
		return newParams(e.Method), e.Params
	case *Response:
		if e.Result != nil {
			return newResult(e.Method), e.Result
		}
	}
	return nil, nil
}

// decodeCBOREvent reads the head through a generic array first:
// fxamacker decodes a toarray struct only from an array of exactly its
// length, and the length depends on the type.
func decodeCBOREvent(b []byte) (Twin, Twin, error) {
	var elems []cbor.RawMessage
	if err := DecMode.Unmarshal(b, &elems); err != nil {
		return nil, nil, err
	}
	if len(elems) < 4 {
		return nil, nil, errors.New("twins: event shorter than its head")
	}
	var kind uint64
	var stream, typ uint32
	for i, dst := range []any{&kind, &stream, &typ} {
		if err := DecMode.Unmarshal(elems[[]int{0, 1, 3}[i]], dst); err != nil {
			return nil, nil, err
		}
	}
	if kind != uint64(codec.KindEvent) {
		return nil, nil, errors.New("twins: not an event")
	}
	t := newEvent(stream, typ)
	if t == nil { // a type this version does not know: its head
		h := &EventHead{Kind: kind, Stream: stream, Type: typ}
		return h, nil, DecMode.Unmarshal(elems[2], &h.Seq)
	}
	return t, nil, DecMode.Unmarshal(b, t)
}
