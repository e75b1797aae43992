package cborerr

import (
	"errors"
	"io"
	"testing"
)

// TestPath: In and At build the path innermost first and Path prints it
// outermost first; other errors pass through untouched.
func TestPath(t *testing.T) {
	err := At(In(Errorf(ErrType, 7, "a text where a u32 was expected"), "id"), 2)
	err = In(In(err, "windows"), "result")
	var e *Error
	if !errors.As(err, &e) || e.Path() != "result.windows[2].id" || !errors.Is(err, ErrType) || e.Offset != 7 {
		t.Fatalf("%v: path %q", err, e.Path())
	}
	if want := "wrong type in result.windows[2].id: a text where a u32 was expected at byte 7"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if In(io.EOF, "x") != io.EOF || At(nil, 1) != nil {
		t.Error("In or At changed an error that is not an *Error")
	}
	if got := Errorf(ErrMissing, 0, "").Error(); got != "missing required field at byte 0" {
		t.Errorf("no path, no detail: %q", got)
	}
}
