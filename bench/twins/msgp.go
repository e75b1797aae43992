package twins

import (
	"errors"
	"math"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/codec"
)

// msgp's encoding of the twins: MessagePack maps keyed by one-character
// strings, positional arrays as tuples, params and results embedded as
// msgp.Raw. It is msgp's own format, not CBOR: the benchmarks compare the
// work, not the bytes.

func decodeMsgpAs[T any, P interface {
	*T
	Twin
}](b []byte) (Twin, Twin, error) {
	t := P(new(T))
	_, err := t.UnmarshalMsg(b)
	return t, nil, err
}

func decodeMsgpRequest(b []byte) (Twin, Twin, error) {
	var env Request
	if _, err := env.UnmarshalMsg(b); err != nil {
		return nil, nil, err
	}
	return msgpBody(&env, newParams(env.Method), env.Params)
}

func decodeMsgpResponse(b []byte) (Twin, Twin, error) {
	var env Response
	_, err := env.UnmarshalMsg(b)
	if err != nil || env.Result == nil { // an error response has no result
		return &env, nil, err
	}
	return msgpBody(&env, newResult(env.Method), env.Result)
}

// msgpBody decodes raw, a request's params or a response's result, into
// body, the twin the method picked; nil (a method this version does not
// know) skips them.
func msgpBody(env, body Twin, raw []byte) (Twin, Twin, error) {
	if body == nil {
		return env, nil, nil
	}
	_, err := body.UnmarshalMsg(raw)
	return env, body, err
}

// decodeMsgpEvent reads the head's kind, stream, seq and type with msgp's
// readers, then the whole event into the twin the stream and type pick.
func decodeMsgpEvent(b []byte) (Twin, Twin, error) {
	n, rest, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, nil, err
	}
	if n < 4 {
		return nil, nil, errors.New("twins: event shorter than its head")
	}
	var head [4]uint64 // kind, stream, seq, type
	for i := range head {
		if head[i], rest, err = msgp.ReadUint64Bytes(rest); err != nil {
			return nil, nil, err
		}
	}
	kind, stream, seq, typ := head[0], head[1], head[2], head[3]
	if kind != uint64(codec.KindEvent) || stream > math.MaxUint32 || typ > math.MaxUint32 {
		return nil, nil, errors.New("twins: not an event, or its stream or type over 32 bits")
	}
	t := newEvent(uint32(stream), uint32(typ))
	if t == nil { // a type this version does not know: its head
		return &EventHead{Kind: kind, Stream: uint32(stream), Seq: seq, Type: uint32(typ)}, nil, nil
	}
	_, err = t.UnmarshalMsg(b)
	return t, nil, err
}
