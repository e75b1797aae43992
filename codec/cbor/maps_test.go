package cbor

import (
	"errors"
	"testing"
)

func TestMapHelpers(t *testing.T) {
	d := NewDecoder([]byte{0x05, 0x18, 0x2a, 0x61, 'k'})
	for _, want := range []uint64{5, 42, UnknownKey} {
		if k, err := d.Key(); err != nil || k != want {
			t.Fatalf("Key = %d, %v; want %d", k, err, want)
		}
	}
	// Fixed at its length, past it (an appended element is skipped) and short of it.
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
		err := d.Fixed("pair", []string{"a", "b"}, read(&d))
		if (err == nil) != c.ok || len(got) != c.want || (c.ok && d.Done() != nil) {
			t.Errorf("%x: err %v, read %v, done %v", c.in, err, got, d.Done())
		}
	}
	var v [2]int32
	d = NewDecoder([]byte{0x83, 0x20, 0x19, 0x01, 0x00, 0x00})
	if err := d.Int32s(v[:], "xy"); err != nil || v != [2]int32{-1, 256} || d.Done() != nil {
		t.Errorf("Int32s: %v %v", v, err)
	}
	d = NewDecoder([]byte{0x81, 0x00})
	if err := d.Int32s(v[:], "xy"); !errors.Is(err, ErrMissing) {
		t.Errorf("Int32s short: %v", err)
	}
}

func TestTrustAndSkipDefinite(t *testing.T) {
	bad := []byte{0x62, 0xc3, 0x28} // invalid UTF-8
	d := NewDecoder(bad)
	if _, err := d.Text(); !errors.Is(err, ErrUTF8) {
		t.Fatalf("untrusted: %v", err)
	}
	d = NewDecoder(bad)
	d.Trust()
	if _, err := d.Text(); err != nil || !d.Trusted() {
		t.Fatalf("trusted: %v", err)
	}
	d = NewDecoder([]byte{0xa1, 0x01, 0x82, 0x61, 'a', 0x19, 0x01, 0x00})
	if !d.SkipDefinite() || d.Len() != 0 {
		t.Fatal("SkipDefinite of a definite map")
	}
	for _, in := range [][]byte{{0x9f, 0xff}, {0xc1, 0x00}, {0xf9, 0x3c, 0x00}, {0x82, 0x01}, bad} {
		d := NewDecoder(in)
		if d.SkipDefinite() || d.Offset() != 0 {
			t.Errorf("%x: SkipDefinite moved", in)
		}
	}
}
