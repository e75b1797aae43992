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
}

func TestTrustAndSkipDefinite(t *testing.T) {
	bad := []byte{0x62, 0xc3, 0x28} // invalid UTF-8
	d := NewDecoder(bad)
	if _, err := d.Text(); !errors.Is(err, ErrUTF8) {
		t.Fatalf("untrusted: %v", err)
	}
	d = TrustedAt(bad, 0)
	if _, err := d.Text(); err != nil || !d.trusted {
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
