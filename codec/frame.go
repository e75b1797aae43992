package codec

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/valyala/bytebufferpool"
	"github.com/wirebench/wirebench/codec/cbor"
)

// Framing constants of docs/protocol.md section 1.
const (
	HeaderLen       = 4        // the big-endian u32 payload length
	DefaultMaxFrame = 16 << 20 // each side's limit before the handshake
	MinMaxFrame     = 4096     // the smallest limit a side may announce
	PeekLen         = 32       // bytes of an oversized payload read for its kind, id and method
)

// ErrFrameTooLarge is the kind of *FrameTooLargeError, for errors.Is.
var ErrFrameTooLarge = errors.New("frame too large")

// FrameTooLargeError is a message whose payload exceeds the frame limit;
// nothing of it was written.
type FrameTooLargeError struct {
	Size  int    // the payload length
	Limit uint32 // the limit in force
}

// Error reports size and limit.
func (e *FrameTooLargeError) Error() string {
	return "codec: payload of " + strconv.Itoa(e.Size) + " bytes exceeds the frame limit of " + strconv.FormatUint(uint64(e.Limit), 10)
}

// Unwrap returns ErrFrameTooLarge.
func (e *FrameTooLargeError) Unwrap() error { return ErrFrameTooLarge }

// AppendFrame appends m as a frame (length header and payload) to dst.
// When the payload would exceed limit it returns dst unchanged and a
// *FrameTooLargeError: a refused message writes none of its bytes.
func AppendFrame(dst []byte, m Message, limit uint32) ([]byte, error) {
	n := len(dst)
	out, err := Append(append(dst, 0, 0, 0, 0), m)
	if err != nil {
		return dst[:n], err
	}
	size := len(out) - n - HeaderLen
	if uint64(size) > uint64(limit) {
		return dst[:n], &FrameTooLargeError{Size: size, Limit: limit}
	}
	binary.BigEndian.PutUint32(out[n:], uint32(size))
	return out, nil
}

// Frame is one received frame's payload, in a pooled buffer.
//
// Payload is valid until Release; after it the bytes may belong to another
// frame. A message from Frame.Decode owns its memory and outlives Release.
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

// Decode decodes the frame's payload into a message that owns its memory
// (see Decode); the frame may be released right after.
func (f *Frame) Decode() (Message, error) { return Decode(f.Payload) }

// Take decodes the payload into a message that keeps the frame's buffer
// for itself, with no copy: the buffer leaves the pool and the frame is
// released.
func (f *Frame) Take() (Message, error) {
	p := f.Payload
	f.buf, f.Payload = nil, nil
	return DecodeOwned(p)
}

// Oversized describes a frame whose header exceeds the limit, with what
// its first PeekLen payload bytes tell of it. Its payload is discarded.
type Oversized struct {
	Length uint32      // the payload length the header claims
	Limit  uint32      // the limit in force
	Kind   Opt[Kind]   // the message kind, when the peek holds it
	ID     Opt[uint64] // key 1 of a request or response, when the peek holds it
	Method Opt[Method] // key 2 of a request or response, when the peek holds it
}

// PeekOversized reads what it can of a message's kind, id and method from
// the first bytes of its payload, which may end anywhere.
func PeekOversized(peek []byte) (kind Opt[Kind], id Opt[uint64], method Opt[Method]) {
	d := cbor.NewDecoder(peek)
	b, ok := d.PeekByte()
	if !ok {
		return
	}
	switch b >> 5 {
	case byte(cbor.MajorArray):
		if _, err := d.ArrayHead(); err != nil {
			return
		}
		if v, err := d.Uint(); err == nil {
			kind = Some(Kind(v))
		}
		return
	case byte(cbor.MajorMap):
	default:
		return
	}
	h, err := d.ReadHead()
	if err != nil {
		return
	}
	for i := uint64(0); h.Indefinite || i < h.Arg; i++ {
		if h.Indefinite && d.Break() {
			return
		}
		k, err := d.Uint()
		if err != nil {
			return
		}
		switch k {
		case 0, 1, 2:
			v, err := d.Uint()
			if err != nil {
				return
			}
			switch k {
			case 0:
				kind = Some(Kind(v))
			case 1:
				id = Some(v)
			case 2:
				if v <= 0xffffffff {
					method = Some(Method(v))
				}
			}
		default:
			// Keys after 2 are past what the peek reports.
			return
		}
	}
	return
}

// Splitter cuts a byte stream into frames without doing I/O: the caller
// feeds it bytes as they arrive. It enforces the frame limit, reports an
// over-limit frame as Oversized once its first PeekLen bytes are in, and
// discards the rest of its payload as it arrives, never buffering it.
type Splitter struct {
	limit uint32

	hdr  [HeaderLen]byte
	hdrN int

	state  splitState
	length uint32 // the current frame's payload length
	buf    *bytebufferpool.ByteBuffer

	peek    [PeekLen]byte
	peekN   int
	discard uint32 // payload bytes of an oversized frame still to drop
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
	GotOversized                 // Step.Oversized describes an over-limit frame
)

// Step is the outcome of one Feed.
type Step struct {
	Kind StepKind
	N    int // bytes of the input consumed
	// Discarded counts the bytes among N that belong to an oversized
	// frame: header, peek and dropped payload. They are no sign of life.
	Discarded int
	Frame     Frame     // when Kind is GotFrame; the caller releases it
	Oversized Oversized // when Kind is GotOversized
}

// Feed consumes bytes of b until it completes a frame, completes the peek
// of an oversized frame, or uses b up. Call it again with b[step.N:] while
// bytes remain.
func (s *Splitter) Feed(b []byte) Step {
	var st Step
	for st.N < len(b) {
		in := b[st.N:]
		switch s.state {
		case stateHeader:
			c := copy(s.hdr[s.hdrN:], in)
			s.hdrN += c
			st.N += c
			if s.hdrN < HeaderLen {
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
			s.buf = getBuffer(int(s.length))
			s.state = statePayload
			if s.length == 0 {
				return s.deliver(st)
			}
		case statePayload:
			need := int(s.length) - len(s.buf.B)
			c := min(need, len(in))
			s.buf.B = append(s.buf.B, in[:c]...)
			st.N += c
			if c == need {
				return s.deliver(st)
			}
		case statePeek:
			want := min(PeekLen, int(s.length)) - s.peekN
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
				st.Oversized = Oversized{Length: s.length, Limit: s.limit}
				st.Oversized.Kind, st.Oversized.ID, st.Oversized.Method = PeekOversized(s.peek[:s.peekN])
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
