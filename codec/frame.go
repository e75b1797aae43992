package codec

import (
	"encoding/binary"
	"strconv"

	"github.com/valyala/bytebufferpool"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// FrameTooLargeError is a frame over the frame limit: a message that
// AppendFrame and Writer refuse (nothing of it is written, and Offset is
// -1), or a frame that Reader meets in the stream (its payload is
// discarded, and the next call to Next reads on).
type FrameTooLargeError struct {
	Size   uint64 // the payload length
	Limit  uint32 // the limit in force
	Offset int64  // stream offset of the frame's header; -1 for a refused message
	// Envelope is what the frame tells of its message: for a frame met in
	// the stream, what its first schema.PeekLen payload bytes hold.
	Envelope
}

// Error reports size and limit, and what is known of the message.
func (e *FrameTooLargeError) Error() string {
	s := "codec: payload of " + strconv.FormatUint(e.Size, 10) + " bytes exceeds the frame limit of " + strconv.FormatUint(uint64(e.Limit), 10)
	if e.Offset >= 0 {
		s = "codec: frame at stream offset " + strconv.FormatInt(e.Offset, 10) + " of " + strconv.FormatUint(e.Size, 10) +
			" bytes exceeds the limit of " + strconv.FormatUint(uint64(e.Limit), 10)
	}
	if e.Kind.Ok {
		s += " (" + e.Envelope.String() + ")"
	}
	return s
}

// AppendFrame appends m as a frame (length header and payload) to dst.
// When the payload would exceed limit it returns dst unchanged and a
// *FrameTooLargeError: a refused message writes none of its bytes.
func AppendFrame(dst []byte, m Message, limit uint32) ([]byte, error) {
	n := len(dst)
	out, err := Append(append(dst, 0, 0, 0, 0), m)
	if err != nil {
		return dst[:n], err
	}
	size := len(out) - n - schema.HeaderLen
	if uint64(size) > uint64(limit) {
		return dst[:n], &FrameTooLargeError{Size: uint64(size), Limit: limit, Offset: -1, Envelope: PeekEnvelope(out[n+schema.HeaderLen:])}
	}
	binary.BigEndian.PutUint32(out[n:], uint32(size))
	return out, nil
}

// Frame is one received frame's payload, in a pooled buffer.
//
// The lifetime rule: Payload, and every view borrowed from it (package
// zerocopy's), is valid until Release; after it the bytes belong to
// another frame. A message from Decode(Payload) owns its memory and stays
// valid after Release.
type Frame struct {
	Payload []byte
	buf     *bytebufferpool.ByteBuffer
}

// Release returns the frame's buffer to the pool. The frame must not be
// used afterwards; releasing twice is harmless.
func (f *Frame) Release() {
	if f.buf != nil {
		putBuffer(f.buf)
		f.buf = nil
	}
	f.Payload = nil
}

// Envelope is what the first bytes of a payload tell of its message: its
// kind, and for a request or a response its id and method. Each is
// present only when the bytes hold it.
type Envelope struct {
	Kind   Opt[Kind]
	ID     Opt[uint64] // key 1 of a request or response
	Method Opt[Method] // key 2 of a request or response
}

// PeekEnvelope reads what it can of a message's kind, id and method from
// the start of payload, which may end anywhere (the first schema.PeekLen bytes
// of an oversized frame) or not decode past them (a malformed frame): it
// reads the leading keys 0 to 2 of a map, or the kind of an event array,
// and stops at the first thing it cannot read.
func PeekEnvelope(payload []byte) Envelope {
	var e Envelope
	d := cbor.NewDecoder(payload)
	b, ok := d.PeekByte()
	if !ok {
		return e
	}
	switch b >> 5 {
	case byte(cbor.MajorArray):
		if _, err := d.ArrayHead(); err != nil {
			return e
		}
		if v, err := d.Uint(); err == nil {
			e.Kind = Some(Kind(v))
		}
		return e
	case byte(cbor.MajorMap):
	default:
		return e
	}
	h, err := d.ReadHead()
	if err != nil {
		return e
	}
	for i := uint64(0); h.Indefinite || i < h.Arg; i++ {
		if h.Indefinite && d.Break() {
			return e
		}
		k, err := d.Uint()
		if err != nil || k > schema.KeyRequestMethod {
			return e // keys past the method are past what the peek reports
		}
		v, err := d.Uint()
		if err != nil {
			return e
		}
		switch k {
		case schema.KeyKind:
			e.Kind = Some(Kind(v))
		case schema.KeyRequestID: // schema.KeyResponseID
			e.ID = Some(v)
		case schema.KeyRequestMethod: // schema.KeyResponseMethod
			if v <= 0xffffffff {
				e.Method = Some(Method(v))
			}
		}
	}
	return e
}

// String describes the envelope: "kind response, id 7, method snapshot",
// with what is known of it.
func (e Envelope) String() string {
	if !e.Kind.Ok {
		return "kind unknown"
	}
	s := "kind " + e.Kind.Val.String()
	if e.ID.Ok {
		s += ", id " + strconv.FormatUint(e.ID.Val, 10)
	}
	if e.Method.Ok {
		s += ", method " + e.Method.Val.String()
	}
	return s
}

// Splitter cuts a byte stream into frames without doing I/O: the caller
// feeds it bytes as they arrive. It enforces the frame limit, reports an
// over-limit frame once its first schema.PeekLen bytes are in, and discards the
// rest of its payload as it arrives, never buffering it. Reader is a
// loop over a Splitter.
type Splitter struct {
	limit uint32

	hdr  [schema.HeaderLen]byte
	hdrN int

	state  splitState
	length uint32 // the current frame's payload length
	buf    *bytebufferpool.ByteBuffer

	peek    [schema.PeekLen]byte
	peekN   int
	discard uint32             // payload bytes of an oversized frame still to drop
	over    FrameTooLargeError // the last oversized frame, for Step.Oversized
}

type splitState uint8

const (
	stateHeader splitState = iota
	statePayload
	statePeek
	stateDiscard
)

// NewSplitter returns a Splitter with the given frame limit.
func NewSplitter(limit uint32) *Splitter { return &Splitter{limit: limit} }

// SetLimit changes the frame limit, for instance after the handshake. It
// applies from the next frame header on.
func (s *Splitter) SetLimit(limit uint32) { s.limit = limit }

// Limit is the frame limit in force.
func (s *Splitter) Limit() uint32 { return s.limit }

// Mid reports whether the splitter holds part of a frame: the stream
// ending now would truncate it.
func (s *Splitter) Mid() bool { return s.state != stateHeader || s.hdrN > 0 }

// StepKind says what a Feed step produced.
type StepKind uint8

// What a Feed step produced.
const (
	NeedMore     StepKind = iota // every byte was consumed without completing anything
	GotFrame                     // Step.Frame holds a whole frame
	GotOversized                 // *Step.Oversized describes an over-limit frame (its Offset is -1)
)

// Step is the outcome of one Feed.
type Step struct {
	Kind StepKind
	N    int // bytes of the input consumed
	// Discarded counts the bytes among N that belong to an oversized
	// frame: header, peek and dropped payload. They are no sign of life.
	Discarded int
	Frame     Frame               // when Kind is GotFrame; the caller releases it
	Oversized *FrameTooLargeError // when Kind is GotOversized; the Splitter's own, valid until the next Feed
}

// Feed consumes bytes of b until it completes a frame, completes the peek
// of an oversized frame, or uses b up. Call it again with b[step.N:] while
// bytes remain.
func (s *Splitter) Feed(b []byte) Step {
	if f, n, ok := s.whole(b); ok {
		return Step{Kind: GotFrame, N: n, Frame: f}
	}
	return s.feed(b)
}

// feed is Feed past its common case (whole): a byte at a time through the
// header, the payload, or an oversized frame's peek and discard.
func (s *Splitter) feed(b []byte) Step {
	var st Step
	for st.N < len(b) {
		in := b[st.N:]
		switch s.state {
		case stateHeader:
			c := copy(s.hdr[s.hdrN:], in)
			s.hdrN += c
			st.N += c
			if s.hdrN < schema.HeaderLen {
				continue
			}
			s.hdrN = 0
			s.length = binary.BigEndian.Uint32(s.hdr[:])
			if s.length > s.limit {
				// The header bytes of this call feed the discard; any fed
				// by an earlier call were reported before the length was known.
				st.Discarded += c
				s.state, s.peekN = statePeek, 0
				continue
			}
			s.buf = getBuffer(int(s.length), min(int(s.length), firstRoom))
			s.state = statePayload
			if s.length == 0 {
				return s.deliver(st)
			}
		case statePayload:
			need := int(s.length) - len(s.buf.B)
			c := min(need, len(in))
			s.buf.B = append(grow(s.buf.B, c, int(s.length)), in[:c]...)
			st.N += c
			if c == need {
				return s.deliver(st)
			}
		case statePeek:
			want := min(schema.PeekLen, int(s.length)) - s.peekN
			c := min(want, len(in))
			copy(s.peek[s.peekN:], in[:c])
			s.peekN += c
			st.N += c
			st.Discarded += c
			if c == want {
				s.discard = s.length - uint32(s.peekN)
				s.state = stateDiscard
				if s.discard == 0 {
					s.state = stateHeader
				}
				st.Kind = GotOversized
				s.over = FrameTooLargeError{Size: uint64(s.length), Limit: s.limit, Offset: -1, Envelope: PeekEnvelope(s.peek[:s.peekN])}
				st.Oversized = &s.over
				return st
			}
		case stateDiscard:
			c := uint32(min(uint64(s.discard), uint64(len(in))))
			s.discard -= c
			st.N += int(c)
			st.Discarded += int(c)
			if s.discard == 0 {
				s.state = stateHeader
			}
		}
	}
	return st
}

// whole is Feed's common case: between frames, with a whole frame
// within the limit at the start of b, it takes that frame and reports the
// bytes it used.
func (s *Splitter) whole(b []byte) (f Frame, n int, ok bool) {
	if s.state != stateHeader || s.hdrN != 0 || len(b) < schema.HeaderLen {
		return Frame{}, 0, false
	}
	length := binary.BigEndian.Uint32(b)
	if length > s.limit || uint64(length) > uint64(len(b)-schema.HeaderLen) {
		return Frame{}, 0, false
	}
	buf := getBuffer(int(length), int(length)) // the whole payload is here
	buf.B = append(buf.B, b[schema.HeaderLen:schema.HeaderLen+int(length)]...)
	return Frame{Payload: buf.B, buf: buf}, schema.HeaderLen + int(length), true
}

// payloadRoom is room for the part of the payload being collected that
// has not arrived yet, for a reader to fill in place (then it calls
// filled); nil between payloads. The buffer grows as it fills: the
// room is what it holds, not all the header claimed.
func (s *Splitter) payloadRoom() []byte {
	if s.state != statePayload {
		return nil
	}
	b := grow(s.buf.B, 1, int(s.length))
	s.buf.B = b
	return b[len(b):min(cap(b), int(s.length))]
}

// filled takes n bytes written into payloadRoom as fed, and completes
// the frame when they were the last.
func (s *Splitter) filled(n int) Step {
	s.buf.B = s.buf.B[:len(s.buf.B)+n]
	st := Step{N: n}
	if len(s.buf.B) == int(s.length) {
		return s.deliver(st)
	}
	return st
}

// inside names what the splitter is in the middle of, for the error of a
// stream that ends there.
func (s *Splitter) inside() string {
	switch s.state {
	case statePayload:
		return "a frame's payload"
	case statePeek, stateDiscard:
		return "an oversized frame's payload"
	}
	return "a frame header"
}

func (s *Splitter) deliver(st Step) Step {
	st.Kind = GotFrame
	st.Frame = Frame{Payload: s.buf.B, buf: s.buf}
	s.buf = nil
	s.state = stateHeader
	return st
}

// Reset drops any partial frame, returning its buffer to the pool.
func (s *Splitter) Reset() {
	if s.buf != nil {
		putBuffer(s.buf)
		s.buf = nil
	}
	limit := s.limit
	*s = Splitter{limit: limit}
}
