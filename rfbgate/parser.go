package rfbgate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/wirebench/wirebench/internal/rfb"
)

// msgClass says what the gate does with a client message.
type msgClass uint8

const (
	// classPass messages are needed to see the screen; they pass for every viewer.
	classPass msgClass = iota + 1
	// classInput messages pass only while the viewer holds the keyboard.
	classInput
	// classClose messages close the connection.
	classClose
)

// String names the class.
func (c msgClass) String() string {
	switch c {
	case classPass:
		return "pass"
	case classInput:
		return "input"
	case classClose:
		return "close"
	}
	return "unknown"
}

// msgInfo is one row of the client message table.
type msgInfo struct {
	name  string
	class msgClass
	base  int // bytes of the fixed part, type byte included; 0 for unknown
}

// Lengths of the fixed-size messages, written once: msgTable's rows and the
// gate's fast path (wholeLen) both read them.
const (
	keyEventLen     = 8
	pointerLen      = 6
	updateReqLen    = 10 // FramebufferUpdateRequest and EnableContinuousUpdates
	qemuKeyEventLen = 12 // a QEMU extended key event, the one QEMU subtype relayed
)

// msgTable is the one table of client-to-server message types. Every other
// part of the package reads it. Type 255 is refined by its subtype.
var msgTable = [256]msgInfo{
	rfb.MsgSetPixelFormat:           {"SetPixelFormat", classPass, 20},
	rfb.MsgSetEncodings:             {"SetEncodings", classPass, 4},
	rfb.MsgFramebufferUpdateRequest: {"FramebufferUpdateRequest", classPass, updateReqLen},
	rfb.MsgKeyEvent:                 {"KeyEvent", classInput, keyEventLen},
	rfb.MsgPointerEvent:             {"PointerEvent", classInput, pointerLen},
	rfb.MsgClientCutText:            {"ClientCutText", classInput, 8},
	rfb.MsgEnableContinuousUpdates:  {"EnableContinuousUpdates", classPass, updateReqLen},
	rfb.MsgClientFence:              {"ClientFence", classPass, 9},
	rfb.MsgXvp:                      {"xvp", classClose, 0},
	rfb.MsgSetDesktopSize:           {"SetDesktopSize", classInput, 8},
	rfb.MsgGii:                      {"gii", classClose, 0},
	rfb.MsgQEMU:                     {"QEMU", classInput, 2},
}

// wholeLen is the length of the message at the start of in (not empty)
// when it is one the gate's fast path takes whole, and 0 otherwise: the
// fixed-size messages that noVNC sends most (keys, pointer, update
// requests) and that have no rule at their header beyond the gate's own. SetPixelFormat
// (sent once) takes Step's path, where framePixelFormat's rule is applied.
// A switch, not a table load, keeps the fast path as cheap as it was; its
// lengths are msgTable's (TestWholeLenTable holds them together).
func wholeLen(in []byte) int {
	switch in[0] {
	case rfb.MsgPointerEvent:
		return pointerLen
	case rfb.MsgKeyEvent:
		return keyEventLen
	case rfb.MsgFramebufferUpdateRequest, rfb.MsgEnableContinuousUpdates:
		return updateReqLen
	case rfb.MsgQEMU:
		if len(in) >= 2 && in[1] == rfb.QEMUExtendedKeyEvent {
			return qemuKeyEventLen
		}
	}
	return 0
}

// messageName names a client message type ("type 7" for an unknown one).
func messageName(t uint8) string {
	if n := msgTable[t].name; n != "" {
		return n
	}
	return fmt.Sprintf("type %d", t)
}

// classOf says what the gate does with client message type t. Unknown types
// are classClose. Type 255 is classInput here; its audio subtype closes.
func classOf(t uint8) msgClass {
	if c := msgTable[t].class; c != 0 {
		return c
	}
	return classClose
}

// Limits bound what one client message may make the gate hold.
type Limits struct {
	// MaxCutText is the largest ClientCutText payload (either form) that is
	// forwarded; a longer one is read and dropped. Default 256 KiB.
	MaxCutText int
	// MaxEncodings is the largest SetEncodings count accepted; more closes
	// the connection. Default 128.
	MaxEncodings int
	// MaxHeldKeys is how many keys a viewer may hold down at once; a further
	// key press is dropped. Default 64.
	MaxHeldKeys int
}

// Default limits.
const (
	DefaultMaxCutText   = 256 << 10
	defaultMaxEncodings = 128
	defaultMaxHeldKeys  = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxCutText <= 0 {
		l.MaxCutText = DefaultMaxCutText
	}
	if l.MaxEncodings <= 0 {
		l.MaxEncodings = defaultMaxEncodings
	}
	if l.MaxHeldKeys <= 0 {
		l.MaxHeldKeys = defaultMaxHeldKeys
	}
	return l
}

// Error kinds; errors.Is matches a *ProtocolError against them.
var (
	// ErrUnknownMessage: a message type (or QEMU subtype) the gate cannot parse.
	ErrUnknownMessage = errors.New("unknown client message type")
	// ErrForbiddenMessage: a known message the gate never relays (xvp, gii, QEMU audio).
	ErrForbiddenMessage = errors.New("forbidden client message")
	// ErrLimit: a message over one of the gate's limits.
	ErrLimit = errors.New("client message over limit")
	// ErrMalformed: a message whose fields contradict each other.
	ErrMalformed = errors.New("malformed client message")
)

// ProtocolError describes bad client input: what kind, which message, and
// the byte offset of that message's first byte in the client stream.
type ProtocolError struct {
	Kind   error  // one of the Err* kinds above
	Type   uint8  // the message type
	Offset int64  // offset of the message's first byte in the client stream
	Detail string // what was wrong
}

// Error reports what went wrong and where.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("rfbgate: %v: %s at client byte %d: %s", e.Kind, messageName(e.Type), e.Offset, e.Detail)
}

// Unwrap returns the kind, for errors.Is.
func (e *ProtocolError) Unwrap() error { return e.Kind }

// event is what one parser.Step reports.
type event uint8

const (
	// evNeedMore: the input is used up in the middle of a message (or
	// between messages); call Step again with more input.
	evNeedMore event = iota
	// evStart: the first byte of a message was read; Type is known.
	evStart
	// evHeader: the fixed part of the message is complete; Header holds it.
	// For SetEncodings the fixed part includes the whole encoding list.
	evHeader
	// evBody: the returned bytes are a piece of the message's payload
	// (ClientCutText text, ClientFence payload, SetDesktopSize screens).
	evBody
	// evEnd: the message is complete.
	evEnd
)

type parserState uint8

const (
	stIdle parserState = iota
	stHeader
	stBody
	stEnd
	stFailed
)

// parser is a resumable streaming parser of the RFB client-to-server stream
// (after the handshake). It holds at most one message's fixed part (for
// SetEncodings its capped encoding list); payloads are handed out in pieces
// as they arrive and never buffered. It does not allocate after newParser.
type parser struct {
	lim      Limits
	state    parserState
	typ      uint8
	hdr      []byte
	need     int   // bytes of header wanted
	extended bool  // the header's variable part was added to need
	body     int64 // payload bytes still to come
	bodyLen  int64 // the whole payload length
	off      int64 // bytes consumed so far
	start    int64 // offset of the current message
	err      error
}

// newParser returns a parser with the given limits (zero fields take defaults).
func newParser(lim Limits) *parser {
	lim = lim.withDefaults()
	n := 4 + 4*lim.MaxEncodings
	if n < 20 {
		n = 20
	}
	return &parser{lim: lim, hdr: make([]byte, 0, n)}
}

// Type is the current message's type (valid from evStart to evEnd).
func (p *parser) Type() uint8 { return p.typ }

// Header is the current message's fixed part, valid from evHeader until
// the next Step that starts a new message.
func (p *parser) Header() []byte { return p.hdr }

// BodyLen is the current message's payload length (valid from evHeader).
func (p *parser) BodyLen() int64 { return p.bodyLen }

// Offset is the number of client bytes consumed so far.
func (p *parser) Offset() int64 { return p.off }

// MessageOffset is the offset of the current message's first byte.
func (p *parser) MessageOffset() int64 { return p.start }

// AtBoundary reports whether the parser is between messages.
func (p *parser) AtBoundary() bool { return p.state == stIdle }

// tookWhole records a whole message of type t and n bytes (wholeLen), read
// by the gate's fast path while the parser was between messages, as Step
// would have by the message's evEnd: its type, its offset, no payload. The
// parser stays between messages.
func (p *parser) tookWhole(t uint8, n int) {
	p.typ, p.start, p.bodyLen = t, p.off, 0
	p.off += int64(n)
}

// Err is the error that stopped the parser, if any.
func (p *parser) Err() error { return p.err }

func (p *parser) fail(kind error, detail string) error {
	p.err = &ProtocolError{Kind: kind, Type: p.typ, Offset: p.start, Detail: detail}
	p.state = stFailed
	return p.err
}

// Step consumes a prefix of in and reports one event. It returns how many
// bytes it consumed and, for evBody, the payload piece (a sub-slice of in).
// Call it until it returns evNeedMore, then feed the next chunk. After an
// error every Step returns that error.
func (p *parser) Step(in []byte) (n int, ev event, body []byte, err error) {
	switch p.state {
	case stFailed:
		return 0, evNeedMore, nil, p.err
	case stEnd:
		p.state = stIdle
		return 0, evEnd, nil, nil
	case stIdle:
		if len(in) == 0 {
			return 0, evNeedMore, nil, nil
		}
		p.typ = in[0]
		p.start = p.off
		p.off++
		info := &msgTable[p.typ]
		switch {
		case info.class == 0:
			return 1, evNeedMore, nil, p.fail(ErrUnknownMessage, "a stream that cannot be parsed cannot be gated")
		case info.class == classClose:
			return 1, evNeedMore, nil, p.fail(ErrForbiddenMessage, "not relayed")
		}
		p.hdr = append(p.hdr[:0], p.typ)
		p.need = info.base
		p.extended = false
		p.body, p.bodyLen = 0, 0
		p.state = stHeader
		return 1, evStart, nil, nil
	case stHeader:
		total := 0
		for {
			k := copy(p.hdr[len(p.hdr):p.need], in[total:])
			p.hdr = p.hdr[:len(p.hdr)+k]
			p.off += int64(k)
			total += k
			if len(p.hdr) < p.need {
				return total, evNeedMore, nil, nil
			}
			if p.extended {
				break
			}
			// The first stage is complete: it says how long the rest is.
			p.extended = true
			if err := p.extend(); err != nil {
				return total, evNeedMore, nil, err
			}
		}
		if p.body > 0 {
			p.state = stBody
		} else {
			p.state = stEnd
		}
		return total, evHeader, nil, nil
	case stBody:
		if len(in) == 0 {
			return 0, evNeedMore, nil, nil
		}
		k := len(in)
		if int64(k) > p.body {
			k = int(p.body)
		}
		p.body -= int64(k)
		p.off += int64(k)
		if p.body == 0 {
			p.state = stEnd
		}
		return k, evBody, in[:k], nil
	}
	return 0, evNeedMore, nil, p.fail(ErrMalformed, "parser in an impossible state")
}

// extend reads the fixed part's first stage and sets the variable part.
func (p *parser) extend() error {
	h := p.hdr
	switch p.typ {
	case rfb.MsgSetEncodings:
		n := int(binary.BigEndian.Uint16(h[2:4]))
		if n > p.lim.MaxEncodings {
			return p.fail(ErrLimit, fmt.Sprintf("%d encodings, limit %d", n, p.lim.MaxEncodings))
		}
		p.need = 4 + 4*n
	case rfb.MsgClientCutText:
		l := int64(int32(binary.BigEndian.Uint32(h[4:8])))
		if l < 0 {
			l = -l // int64: abs(math.MinInt32) does not overflow
			if l < 4 {
				return p.fail(ErrMalformed, fmt.Sprintf("extended clipboard length %d is shorter than its 4-byte flags", l))
			}
		}
		p.body, p.bodyLen = l, l
	case rfb.MsgClientFence:
		l := int64(h[8])
		if l > rfb.MaxFencePayload {
			return p.fail(ErrLimit, fmt.Sprintf("fence payload of %d bytes, limit %d", l, rfb.MaxFencePayload))
		}
		p.body, p.bodyLen = l, l
	case rfb.MsgSetDesktopSize:
		l := int64(h[6]) * 16
		p.body, p.bodyLen = l, l
	case rfb.MsgQEMU:
		switch h[1] {
		case rfb.QEMUExtendedKeyEvent:
			p.need = qemuKeyEventLen
		case rfb.QEMUAudio:
			return p.fail(ErrForbiddenMessage, "QEMU audio is not relayed")
		default:
			return p.fail(ErrUnknownMessage, fmt.Sprintf("QEMU subtype %d", h[1]))
		}
	}
	return nil
}
