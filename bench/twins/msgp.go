package twins

import (
	"errors"

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
	_, err := env.UnmarshalMsg(b)
	return msgpBody(&env, err)
}

func decodeMsgpResponse(b []byte) (Twin, Twin, error) {
	var env Response
	_, err := env.UnmarshalMsg(b)
	return msgpBody(&env, err)
}

// msgpBody decodes the params or result of env, a request or response
// that decoded with err, into the twin its method picks.
func msgpBody(env envelope, err error) (Twin, Twin, error) {
	if err != nil {
		return nil, nil, err
	}
	body, raw := env.body()
	if body != nil {
		_, err = body.UnmarshalMsg(raw)
	}
	return env, body, err
}

// decodeMsgpEvent reads the head's kind, stream, seq and type with msgp's
// readers, then the whole event into the twin they pick.
func decodeMsgpEvent(b []byte) (Twin, Twin, error) {
	n, rest, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, nil, err
	}
	if n < 4 {
		return nil, nil, errors.New("twins: event shorter than its head")
	}
	kind, rest, err := msgp.ReadUint64Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	stream, rest, err := msgp.ReadUint32Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	seqAt := rest
	if rest, err = msgp.Skip(rest); err != nil {
		return nil, nil, err
	}
	typ, _, err := msgp.ReadUint32Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	if kind != uint64(codec.KindEvent) {
		return nil, nil, errors.New("twins: not an event")
	}
	t := newEvent(stream, typ)
	if t == nil { // a type this version does not know: its head
		seq, _, err := msgp.ReadUint64Bytes(seqAt)
		return &EventHead{Kind: kind, Stream: stream, Seq: seq, Type: typ}, nil, err
	}
	_, err = t.UnmarshalMsg(b)
	return t, nil, err
}
