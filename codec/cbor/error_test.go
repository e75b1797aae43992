package cbor

import (
	"errors"
	"io"
	"testing"
)

// TestPath: WithField and WithIndex build the path innermost first and Path prints it
// outermost first; other errors pass through untouched.
func TestPath(t *testing.T) {
	err := WithIndex(WithField(Errorf(ErrType, 7, "a text where a u32 was expected"), "id"), 2)
	err = WithField(WithField(err, "windows"), "result")
	var e *Error
	if !errors.As(err, &e) || e.Path() != "result.windows[2].id" || !errors.Is(err, ErrType) || e.Offset != 7 {
		t.Fatalf("%v: path %q", err, e.Path())
	}
	if want := "wrong type in result.windows[2].id: a text where a u32 was expected at byte 7"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if WithField(io.EOF, "x") != io.EOF || WithIndex(nil, 1) != nil {
		t.Error("WithField or WithIndex changed an error that is not an *Error")
	}
	if got := Errorf(ErrMissing, 0, "").Error(); got != "missing required field at byte 0" {
		t.Errorf("no path, no detail: %q", got)
	}
}
