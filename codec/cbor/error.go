package cbor

import (
	"errors"
	"strconv"
	"strings"
)

// Kinds of decoding failure. Every *Error wraps exactly one of them, so
// errors.Is(err, cbor.ErrTruncated) and the like work on any decoding error.
var (
	ErrTruncated  = errors.New("truncated input")
	ErrTrailing   = errors.New("trailing bytes after the item")
	ErrMalformed  = errors.New("malformed CBOR")
	ErrType       = errors.New("wrong type")
	ErrFloat      = errors.New("float in a typed field")
	ErrTag        = errors.New("tag in a typed field")
	ErrRange      = errors.New("integer out of range")
	ErrUTF8       = errors.New("invalid UTF-8")
	ErrMissing    = errors.New("missing required field")
	ErrDepth      = errors.New("nesting too deep")
	ErrInvalid    = errors.New("invalid value")
	ErrIndefinite = errors.New("indefinite length not allowed here")
)

// Error is a decoding failure: what went wrong, at which byte offset of the
// input, and in which field (a dotted path such as
// "response.result.windows[2].root.children[0].bounds").
type Error struct {
	Kind   error  // one of the Err* sentinels
	Offset int    // byte offset in the decoded input where the problem was found
	Detail string // what was found, in words
	// path holds the field path segments innermost first; see Path.
	path []string
}

// Errorf makes an *Error of the given kind at offset off. It is for the
// decoders built on this package (the message codec, the borrowed views),
// so that their errors read like the Decoder's own.
func Errorf(kind error, off int, detail string) *Error {
	return &Error{Kind: kind, Offset: off, Detail: detail}
}

// Path is the field path of the failure, outermost field first.
func (e *Error) Path() string {
	if len(e.path) == 0 {
		return ""
	}
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		s := e.path[i]
		if b.Len() > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// Error reports kind, path, detail and offset in one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if p := e.Path(); p != "" {
		b.WriteString(" in ")
		b.WriteString(p)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	b.WriteString(" at byte ")
	b.WriteString(strconv.Itoa(e.Offset))
	return b.String()
}

// Unwrap returns the kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// WithField adds an enclosing field name to the path of err, if err is an
// *Error, and returns err: a decoder built on this package calls it as an
// error travels up through the readers of nested maps. It costs nothing on
// success paths: call it only with a non-nil error.
func WithField(err error, field string) error {
	if e, ok := err.(*Error); ok {
		e.path = append(e.path, field)
	}
	return err
}

// WithIndex adds an enclosing element index to the path of err, like
// WithField.
func WithIndex(err error, index int) error {
	if e, ok := err.(*Error); ok {
		e.path = append(e.path, "["+strconv.Itoa(index)+"]")
	}
	return err
}
