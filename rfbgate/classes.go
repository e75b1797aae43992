package rfbgate

import (
	"github.com/wirebench/wirebench/internal/rfb"
)

// The gate's policy for each client message, and its limits. The parser of
// the client stream is internal/rfb's ClientParser; what it frames, the
// gate passes, drops or closes on, by class and by who holds the keyboard.

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

// classes is what the gate does with each client message type; a type
// without a row is classClose.
var classes = [256]msgClass{
	rfb.MsgSetPixelFormat:           classPass,
	rfb.MsgSetEncodings:             classPass,
	rfb.MsgFramebufferUpdateRequest: classPass,
	rfb.MsgKeyEvent:                 classInput,
	rfb.MsgPointerEvent:             classInput,
	rfb.MsgClientCutText:            classInput,
	rfb.MsgEnableContinuousUpdates:  classPass,
	rfb.MsgClientFence:              classPass,
	rfb.MsgSetDesktopSize:           classInput,
	rfb.MsgQEMU:                     classInput,
}

// classOf says what the gate does with client message type t. Unknown types
// and those the parser does not frame (xvp, gii) are classClose. Type 255
// is classInput here; its audio subtype closes (the parser refuses it).
func classOf(t uint8) msgClass {
	if c := classes[t]; c != 0 {
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

// Error kinds; errors.Is matches a *ProtocolError against them (they are
// internal/rfb's, the parser's).
var (
	// ErrUnknownMessage: a message type (or QEMU subtype) the gate cannot parse.
	ErrUnknownMessage = rfb.ErrUnknownMessage
	// ErrForbiddenMessage: a known message the gate never relays (xvp, gii, QEMU audio).
	ErrForbiddenMessage = rfb.ErrForbiddenMessage
	// ErrLimit: a message over one of the gate's limits.
	ErrLimit = rfb.ErrLimit
	// ErrMalformed: a message whose fields contradict each other.
	ErrMalformed = rfb.ErrMalformed
)

// ProtocolError describes bad client input: what kind, which message, and
// the byte offset of that message's first byte in the client stream.
type ProtocolError = rfb.ProtocolError

// messageName names a client message type ("type 7" for an unknown one).
func messageName(t uint8) string { return rfb.MessageName(t) }
