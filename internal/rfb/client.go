package rfb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// msgInfo is one row of the client message table.
type msgInfo struct {
	name string
	base int // bytes of the fixed part, type byte included; 0 for a message the parser does not frame
}

// Lengths of the fixed-size client messages, written once: msgTable's rows
// and FixedLen both read them.
const (
	KeyEventLen      = 8
	PointerEventLen  = 6
	UpdateRequestLen = 10 // FramebufferUpdateRequest and EnableContinuousUpdates
	QEMUKeyEventLen  = 12 // a QEMU extended key event, the one QEMU subtype framed
)

// msgTable is the one table of client-to-server message types: their names
// and the length of their fixed part (its first stage, when the rest
// follows from it). Type 255 is refined by its subtype.
var msgTable = [256]msgInfo{
	MsgSetPixelFormat:           {"SetPixelFormat", 20},
	MsgSetEncodings:             {"SetEncodings", 4},
	MsgFramebufferUpdateRequest: {"FramebufferUpdateRequest", UpdateRequestLen},
	MsgKeyEvent:                 {"KeyEvent", KeyEventLen},
	MsgPointerEvent:             {"PointerEvent", PointerEventLen},
	MsgClientCutText:            {"ClientCutText", 8},
	MsgEnableContinuousUpdates:  {"EnableContinuousUpdates", UpdateRequestLen},
	MsgClientFence:              {"ClientFence", 9},
	MsgXvp:                      {"xvp", 0},
	MsgSetDesktopSize:           {"SetDesktopSize", 8},
	MsgGii:                      {"gii", 0},
	MsgQEMU:                     {"QEMU", 2},
}

// FixedLen is the length of the client message at the start of in (not
// empty) when it is one of the fixed-size messages noVNC sends most (key,
// pointer, the two update requests, a QEMU extended key event) and 0
// otherwise: a caller may take those whole without Step. A switch, not a
// table load, keeps that path cheap; its lengths are msgTable's
// (TestFixedLenTable holds them together).
func FixedLen(in []byte) int {
	switch in[0] {
	case MsgPointerEvent:
		return PointerEventLen
	case MsgKeyEvent:
		return KeyEventLen
	case MsgFramebufferUpdateRequest, MsgEnableContinuousUpdates:
		return UpdateRequestLen
	case MsgQEMU:
		if len(in) >= 2 && in[1] == QEMUExtendedKeyEvent {
			return QEMUKeyEventLen
		}
	}
	return 0
}

// MessageName names a client message type ("type 7" for an unknown one).
func MessageName(t uint8) string {
	if n := msgTable[t].name; n != "" {
		return n
	}
	return fmt.Sprintf("type %d", t)
}

// Error kinds; errors.Is matches a *ProtocolError against them.
var (
	// ErrUnknownMessage: a message type (or QEMU subtype) the parser does not know.
	ErrUnknownMessage = errors.New("unknown client message type")
	// ErrForbiddenMessage: a known message the parser does not frame, so
	// glass never relays it (xvp, gii, QEMU audio).
	ErrForbiddenMessage = errors.New("forbidden client message")
	// ErrLimit: a message over one of the limits (the parser's, or its caller's).
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
	return fmt.Sprintf("rfb: %v: %s at client byte %d: %s", e.Kind, MessageName(e.Type), e.Offset, e.Detail)
}

// Unwrap returns the kind, for errors.Is.
func (e *ProtocolError) Unwrap() error { return e.Kind }

// Event is what one ClientParser.Step reports.
type Event uint8

const (
	// EvNeedMore: the input is used up in the middle of a message (or
	// between messages); call Step again with more input.
	EvNeedMore Event = iota
	// EvStart: the first byte of a message was read; Type is known.
	EvStart
	// EvHeader: the fixed part of the message is complete; Header holds it.
	// For SetEncodings the fixed part includes the whole encoding list.
	EvHeader
	// EvBody: the returned bytes are a piece of the message's payload
	// (ClientCutText text, ClientFence payload, SetDesktopSize screens).
	EvBody
	// EvEnd: the message is complete.
	EvEnd
)

type parserState uint8

const (
	stIdle parserState = iota
	stHeader
	stBody
	stEnd
	stFailed
)

// ClientParser is a resumable streaming parser of the RFB client-to-server
// stream (after the handshake). It holds at most one message's fixed part
// (for SetEncodings its capped encoding list); payloads are handed out in
// pieces as they arrive and never buffered. It does not allocate after
// NewClientParser.
type ClientParser struct {
	maxEncodings int
	state        parserState
	typ          uint8
	hdr          []byte
	need         int   // bytes of header wanted
	extended     bool  // the header's variable part was added to need
	body         int64 // payload bytes still to come
	bodyLen      int64 // the whole payload length
	off          int64 // bytes consumed so far
	start        int64 // offset of the current message
	err          error
}

// NewClientParser returns a parser that takes a SetEncodings of at most
// maxEncodings encodings (more is ErrLimit).
func NewClientParser(maxEncodings int) *ClientParser {
	n := max(4+4*maxEncodings, 20)
	return &ClientParser{maxEncodings: maxEncodings, hdr: make([]byte, 0, n)}
}

// Type is the current message's type (valid from EvStart to EvEnd).
func (p *ClientParser) Type() uint8 { return p.typ }

// Header is the current message's fixed part, valid from EvHeader until
// the next Step that starts a new message.
func (p *ClientParser) Header() []byte { return p.hdr }

// BodyLen is the current message's payload length (valid from EvHeader).
func (p *ClientParser) BodyLen() int64 { return p.bodyLen }

// Offset is the number of client bytes consumed so far.
func (p *ClientParser) Offset() int64 { return p.off }

// MessageOffset is the offset of the current message's first byte.
func (p *ClientParser) MessageOffset() int64 { return p.start }

// AtBoundary reports whether the parser is between messages.
func (p *ClientParser) AtBoundary() bool { return p.state == stIdle }

// TookWhole records a whole message of type t and n bytes (FixedLen), read
// by the caller without Step while the parser was between messages, as Step
// would have by the message's EvEnd: its type, its offset, no payload. The
// parser stays between messages.
func (p *ClientParser) TookWhole(t uint8, n int) {
	p.typ, p.start, p.bodyLen = t, p.off, 0
	p.off += int64(n)
}

// Err is the error that stopped the parser, if any.
func (p *ClientParser) Err() error { return p.err }

// Fail stops the parser with a *ProtocolError of kind about the current
// message: the caller's own rule broken. Every Step then returns it.
func (p *ClientParser) Fail(kind error, detail string) error {
	p.err = &ProtocolError{Kind: kind, Type: p.typ, Offset: p.start, Detail: detail}
	p.state = stFailed
	return p.err
}

// Step consumes a prefix of in and reports one event. It returns how many
// bytes it consumed and, for EvBody, the payload piece (a sub-slice of in).
// Call it until it returns EvNeedMore, then feed the next chunk. After an
// error every Step returns that error.
func (p *ClientParser) Step(in []byte) (n int, ev Event, body []byte, err error) {
	switch p.state {
	case stFailed:
		return 0, EvNeedMore, nil, p.err
	case stEnd:
		p.state = stIdle
		return 0, EvEnd, nil, nil
	case stIdle:
		if len(in) == 0 {
			return 0, EvNeedMore, nil, nil
		}
		p.typ = in[0]
		p.start = p.off
		p.off++
		info := &msgTable[p.typ]
		switch {
		case info.name == "":
			return 1, EvNeedMore, nil, p.Fail(ErrUnknownMessage, "a stream that cannot be parsed cannot be gated")
		case info.base == 0:
			return 1, EvNeedMore, nil, p.Fail(ErrForbiddenMessage, "not relayed")
		}
		p.hdr = append(p.hdr[:0], p.typ)
		p.need = info.base
		p.extended = false
		p.body, p.bodyLen = 0, 0
		p.state = stHeader
		return 1, EvStart, nil, nil
	case stHeader:
		total := 0
		for {
			k := copy(p.hdr[len(p.hdr):p.need], in[total:])
			p.hdr = p.hdr[:len(p.hdr)+k]
			p.off += int64(k)
			total += k
			if len(p.hdr) < p.need {
				return total, EvNeedMore, nil, nil
			}
			if p.extended {
				break
			}
			// The first stage is complete: it says how long the rest is.
			p.extended = true
			if err := p.extend(); err != nil {
				return total, EvNeedMore, nil, err
			}
		}
		if p.body > 0 {
			p.state = stBody
		} else {
			p.state = stEnd
		}
		return total, EvHeader, nil, nil
	case stBody:
		if len(in) == 0 {
			return 0, EvNeedMore, nil, nil
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
		return k, EvBody, in[:k], nil
	}
	return 0, EvNeedMore, nil, p.Fail(ErrMalformed, "parser in an impossible state")
}

// extend reads the fixed part's first stage and sets the variable part.
func (p *ClientParser) extend() error {
	h := p.hdr
	switch p.typ {
	case MsgSetEncodings:
		n := int(binary.BigEndian.Uint16(h[2:4]))
		if n > p.maxEncodings {
			return p.Fail(ErrLimit, fmt.Sprintf("%d encodings, limit %d", n, p.maxEncodings))
		}
		p.need = 4 + 4*n
	case MsgClientCutText:
		l := int64(int32(binary.BigEndian.Uint32(h[4:8])))
		if l < 0 {
			l = -l // int64: abs(math.MinInt32) does not overflow
			if l < 4 {
				return p.Fail(ErrMalformed, fmt.Sprintf("extended clipboard length %d is shorter than its 4-byte flags", l))
			}
		}
		p.body, p.bodyLen = l, l
	case MsgClientFence:
		l := int64(h[8])
		if l > MaxFencePayload {
			return p.Fail(ErrLimit, fmt.Sprintf("fence payload of %d bytes, limit %d", l, MaxFencePayload))
		}
		p.body, p.bodyLen = l, l
	case MsgSetDesktopSize:
		l := int64(h[6]) * 16
		p.body, p.bodyLen = l, l
	case MsgQEMU:
		switch h[1] {
		case QEMUExtendedKeyEvent:
			p.need = QEMUKeyEventLen
		case QEMUAudio:
			return p.Fail(ErrForbiddenMessage, "QEMU audio is not relayed")
		default:
			return p.Fail(ErrUnknownMessage, fmt.Sprintf("QEMU subtype %d", h[1]))
		}
	}
	return nil
}
