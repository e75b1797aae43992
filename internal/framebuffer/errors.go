package framebuffer

import (
	"errors"
	"fmt"

	"github.com/wirebench/wirebench/internal/rfb"
)

// ErrDecode is the kind of every error about the stream's content;
// errors.Is works. (A failing io.Reader's error is wrapped as it is.)
var ErrDecode = errors.New("server stream cannot be decoded")

// DecodeError says what in the server stream could not be decoded, and
// where.
type DecodeError struct {
	Type     uint8 // the server message type
	Message  int64 // offset of the message's first byte (after ServerInit)
	Rect     int   // index of the rectangle in its update, or -1
	X, Y     int   // the rectangle's position and size, when Rect >= 0
	W, H     int
	Encoding rfb.Encoding
	Offset   int64 // offset of the byte at which the error was found
	Err      error
}

// Error reports what and where.
func (e *DecodeError) Error() string {
	if e.Rect >= 0 {
		return fmt.Sprintf("framebuffer: %v: rectangle %d (%dx%d at %d,%d, encoding %d) of the update at server byte %d, at byte %d: %v",
			ErrDecode, e.Rect, e.W, e.H, e.X, e.Y, e.Encoding, e.Message, e.Offset, e.Err)
	}
	return fmt.Sprintf("framebuffer: %v: server message type %d at server byte %d, at byte %d: %v", ErrDecode, e.Type, e.Message, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is matches ErrDecode.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }
