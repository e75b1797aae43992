package codec

import "strings"

// Code is an error code: text on the wire, so unknown codes survive.
type Code string

// The error codes of docs/protocol.md section 7.
const (
	CodeBadRequest        Code = "bad_request"
	CodeUnknownMethod     Code = "unknown_method"
	CodeMissingCapability Code = "missing_capability"
	CodeFrameTooLarge     Code = "frame_too_large"
	CodeDeadlineExceeded  Code = "deadline_exceeded"
	CodeBusy              Code = "busy"
	CodeNotFound          Code = "not_found"
	CodeNoCommonVersion   Code = "no_common_version"
	CodeBadToken          Code = "bad_token"
	CodeDisconnected      Code = "disconnected"
	CodeInternal          Code = "internal"
)

// codes is the error code table: each code and whether retrying the same
// request is meaningful. NewError reads the flag from here.
var codes = []struct {
	code      Code
	retryable bool
}{
	{CodeBadRequest, false},
	{CodeUnknownMethod, false},
	{CodeMissingCapability, false},
	{CodeFrameTooLarge, false},
	{CodeDeadlineExceeded, true},
	{CodeBusy, true},
	{CodeNotFound, false},
	{CodeNoCommonVersion, false},
	{CodeBadToken, false},
	{CodeDisconnected, true},
	{CodeInternal, false},
}

// Codes lists every code of this protocol version in table order.
func Codes() []Code {
	out := make([]Code, len(codes))
	for i, c := range codes {
		out[i] = c.code
	}
	return out
}

// Known reports whether c is a code of this protocol version.
func (c Code) Known() bool {
	for _, e := range codes {
		if e.code == c {
			return true
		}
	}
	return false
}

// Retryable is the table's flag for c (false for an unknown code).
func (c Code) Retryable() bool {
	for _, e := range codes {
		if e.code == c {
			return e.retryable
		}
	}
	return false
}

// Error is a structured protocol error, as carried by a welcome or a
// response. It is also a Go error.
type Error struct {
	Code      Code
	Message   string
	Retryable bool
}

// NewError returns an error with code c and message msg, retryable as the
// code table says.
func NewError(c Code, msg string) *Error {
	return &Error{Code: c, Message: msg, Retryable: c.Retryable()}
}

// Error formats the error as "code: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Retryable {
		b.WriteString(" (retryable)")
	}
	return b.String()
}

// Is makes errors.Is(err, &Error{Code: c}) match any error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}
