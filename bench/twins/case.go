package twins

import (
	"bytes"
	"fmt"

	"github.com/fxamacker/cbor/v2"
	"github.com/wirebench/wirebench/codec"
)

// Case is one message as a user of fxamacker or msgp holds it: its twins,
// built once (New), outside any timed loop, as such a user has the data in
// them already, with the encode and decode paths that user writes. The
// benchmarks time EncodeCBOR and DecodeCBOR (impl=fxamacker), EncodeMsgp
// and DecodeMsgp (impl=msgp).
type Case struct {
	env  Twin
	body Twin             // a request's params or a response's result, or nil
	raw  *cbor.RawMessage // where body's encoding goes in env
	dec  decoder          // the decode paths of the message's kind
}

// decoder is one kind's decode paths: fxamacker's and msgp's.
type decoder struct {
	cbor, msgp func([]byte) (env, body Twin, err error)
}

// decoders are the decode paths of each kind.
var decoders = [...]decoder{
	codec.KindHello: {decodeCBORMap[Hello], decodeMsgpAs[Hello]}, codec.KindWelcome: {decodeCBORMap[Welcome], decodeMsgpAs[Welcome]},
	codec.KindRequest: {decodeCBORMap[Request], decodeMsgpRequest}, codec.KindResponse: {decodeCBORMap[Response], decodeMsgpResponse},
	codec.KindPing: {decodeCBORMap[Ping], decodeMsgpAs[Ping]}, codec.KindPong: {decodeCBORMap[Pong], decodeMsgpAs[Pong]},
	codec.KindEvent: {decodeCBOREvent, decodeMsgpEvent},
}

// New returns the case of m, any message with twins (every kind but an
// unknown one).
func New(m codec.Message) (*Case, error) {
	env, body, err := Of(m)
	if err != nil {
		return nil, err
	}
	c := &Case{env: env, body: body, raw: rawOf(env), dec: decoders[m.Kind()]}
	if c.body != nil && c.raw == nil {
		return nil, fmt.Errorf("twins: a %T with a body", env)
	}
	return c, nil
}

// EncodeCBOR writes the message with fxamacker into buf, as a user must:
// for a request or response, the params or result twin into scratch
// first, then the envelope twin holding those bytes as a cbor.RawMessage.
// It encodes with MarshalToBuffer into the reused buffers.
func (c *Case) EncodeCBOR(buf, scratch *bytes.Buffer) error {
	if c.body != nil {
		scratch.Reset()
		if err := encBuf.MarshalToBuffer(c.body, scratch); err != nil {
			return err
		}
		*c.raw = scratch.Bytes()
	}
	buf.Reset()
	return encBuf.MarshalToBuffer(c.env, buf)
}

// DecodeCBOR reads b with fxamacker into new twins as a receiver must:
// the envelope (params or result kept as a cbor.RawMessage), then the
// params or result twin the method picks; for an event, a generic array
// first for the head, then the event twin its stream and type pick.
func (c *Case) DecodeCBOR(b []byte) (env, body Twin, err error) { return c.dec.cbor(b) }

// EncodeMsgp appends the message with msgp to buf[:0]: for a request or
// response, the params or result into scratch[:0] first, then the
// envelope holding them as msgp.Raw. It returns both buffers, grown if
// needed.
func (c *Case) EncodeMsgp(buf, scratch []byte) (out, scratchOut []byte, err error) {
	if c.body != nil {
		if scratch, err = c.body.MarshalMsg(scratch[:0]); err != nil {
			return buf, scratch, err
		}
		*c.raw = scratch
	}
	buf, err = c.env.MarshalMsg(buf[:0])
	return buf, scratch, err
}

// DecodeMsgp reads b, msgp's encoding, into new twins as a receiver must:
// the envelope, then the params or result twin the method picks; for an
// event, its head (kind, stream, seq, type) with msgp's readers first,
// then the event twin the stream and type pick.
func (c *Case) DecodeMsgp(b []byte) (env, body Twin, err error) { return c.dec.msgp(b) }
