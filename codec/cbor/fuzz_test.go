package cbor

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// FuzzValue: Skip and Value agree on where an item ends and on whether it
// is well-formed, and a value re-encodes to something that decodes to the
// same value.
func FuzzValue(f *testing.F) {
	for _, h := range []string{"00", "1bffffffffffffffff", "3bffffffffffffffff", "9f018202039f0405ffff", "bf61610161629f0203ffff",
		"7f657374726561646d696e67ff", "5f42010243030405ff", "c11a514b67b0", "f97e00", "a26161016162820203", "9a7fffffff00"} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b)
		v, verr := d.Value()
		s := NewDecoder(b)
		serr := s.Skip()
		if (verr == nil) != (serr == nil) {
			// Value refuses nesting Skip accepts (MaxValueDepth) and Skip
			// refuses indefinite nesting Value accepts (MaxSkipNesting).
			if verr != nil && verr.(*Error).Kind == ErrDepth || serr != nil && serr.(*Error).Kind == ErrDepth {
				return
			}
			t.Fatalf("Value: %v, Skip: %v", verr, serr)
		}
		if verr != nil {
			if e := verr.(*Error); e.Offset < 0 || e.Offset > len(b) {
				t.Fatalf("offset %d", e.Offset)
			}
			return
		}
		if d.Offset() != s.Offset() {
			t.Fatalf("Value ends at %d, Skip at %d", d.Offset(), s.Offset())
		}
		enc := AppendValue(nil, v)
		v2, err := DecodeValue(enc)
		if err != nil {
			t.Fatalf("re-decode %x: %v", enc, err)
		}
		if enc2 := AppendValue(nil, v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("unstable: %x %x", enc, enc2)
		}
		if streamed, err := AppendDiag(nil, b[:d.Offset()]); err != nil || string(streamed) != Diag(v) {
			t.Fatalf("AppendDiag %q (%v), Diag %q", streamed, err, Diag(v))
		}
	})
}
