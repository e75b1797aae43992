package cbor

import (
	"errors"
	"testing"
)

// TestFixed: a fixed-layout array at its length, past it (an appended
// element is skipped), short of it (ErrMissing) and indefinite.
func TestFixed(t *testing.T) {
	var got []uint64
	read := func(d *Decoder) func(int) error {
		return func(int) error { v, err := d.Uint(); got = append(got, v); return err }
	}
	for _, c := range []struct {
		in   []byte
		ok   bool
		want int
	}{{[]byte{0x82, 1, 2}, true, 2}, {[]byte{0x83, 1, 2, 0x63, 'x', 'y', 'z'}, true, 2}, {[]byte{0x81, 1}, false, 1}, {[]byte{0x9f, 1, 2, 3, 0xff}, true, 2}} {
		got = got[:0]
		d := NewDecoder(c.in)
		err := d.FixedArray("pair", []string{"a", "b"}, read(&d))
		if (err == nil) != c.ok || len(got) != c.want || (c.ok && d.Done() != nil) {
			t.Errorf("%x: err %v, read %v, done %v", c.in, err, got, d.Done())
		}
	}
	// A bad element is named in the error's path.
	d := NewDecoder([]byte{0x82, 1, 0x61, 'x'})
	var e *Error
	if err := d.FixedArray("pair", []string{"a", "b"}, read(&d)); !errors.As(err, &e) || !errors.Is(err, ErrType) || e.Path() != "b" {
		t.Errorf("bad element: %v", err)
	}
}

// TestInt32s: past the length (skipped), short of it, and an element out
// of range (its index in the path).
func TestInt32s(t *testing.T) {
	var v [2]int32
	d := NewDecoder([]byte{0x83, 0x20, 0x19, 0x01, 0x00, 0x00})
	if err := d.Int32Array(v[:], "xy"); err != nil || v != [2]int32{-1, 256} || d.Done() != nil {
		t.Errorf("Int32s: %v %v", v, err)
	}
	d = NewDecoder([]byte{0x81, 0x00})
	if err := d.Int32Array(v[:], "xy"); !errors.Is(err, ErrMissing) {
		t.Errorf("Int32s short: %v", err)
	}
	d = NewDecoder([]byte{0x82, 0x00, 0x1a, 0x80, 0, 0, 0})
	var e *Error
	if err := d.Int32Array(v[:], "xy"); !errors.As(err, &e) || !errors.Is(err, ErrRange) || e.Path() != "[1]" {
		t.Errorf("Int32s out of range: %v", err)
	}
}

// TestArrayHeadOf: a count the bytes left can hold, at the limit, and one
// past it (ErrTruncated at the head); an indefinite array is -1.
func TestArrayHeadOf(t *testing.T) {
	head := func(in ...byte) (int, error) {
		d := NewDecoder(in)
		return d.ArrayHeadOf(2, "items")
	}
	// 4 bytes left: 2 items of at least 2 bytes fit, 3 do not.
	if n, err := head(0x82, 0, 0, 0, 0); n != 2 || err != nil {
		t.Errorf("at the limit: %d, %v", n, err)
	}
	var e *Error
	if _, err := head(0x83, 0, 0, 0, 0); !errors.As(err, &e) || !errors.Is(err, ErrTruncated) || e.Offset != 0 {
		t.Errorf("past the limit: %v; want ErrTruncated at 0", err)
	}
	if n, err := head(0x9f, 0xff); n != -1 || err != nil {
		t.Errorf("indefinite: %d, %v", n, err)
	}
}
