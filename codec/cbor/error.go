package cbor

import "github.com/wirebench/wirebench/internal/cborerr"

// Kinds of decoding failure. Every *Error wraps exactly one of them, so
// errors.Is(err, cbor.ErrTruncated) and the like work on any decoding error.
var (
	ErrTruncated  = cborerr.ErrTruncated
	ErrTrailing   = cborerr.ErrTrailing
	ErrMalformed  = cborerr.ErrMalformed
	ErrType       = cborerr.ErrType
	ErrFloat      = cborerr.ErrFloat
	ErrTag        = cborerr.ErrTag
	ErrRange      = cborerr.ErrRange
	ErrUTF8       = cborerr.ErrUTF8
	ErrMissing    = cborerr.ErrMissing
	ErrDepth      = cborerr.ErrDepth
	ErrInvalid    = cborerr.ErrInvalid
	ErrIndefinite = cborerr.ErrIndefinite
)

// Error is a decoding failure: what went wrong (Kind, one of the Err*
// values), at which byte offset of the input, and in which field (Path,
// a dotted path such as "response.result.windows[2].root.bounds").
type Error = cborerr.Error

// errorf makes an *Error of the given kind at offset off.
func errorf(kind error, off int, detail string) *Error { return cborerr.Errorf(kind, off, detail) }
