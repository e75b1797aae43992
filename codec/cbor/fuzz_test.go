package cbor

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/allocbound"
)

// DecodeValue's bound for any input (see its doc): k·n + C.
const (
	valueK = ValueSize
	valueC = 16 << 10
)

// valueBound is the most Value may allocate for n bytes of any input:
// its own bound, or allocbound.Hostile when that is more.
func valueBound(n int) uint64 { return max(allocbound.Hostile(n), valueK*uint64(n)+valueC) }

// seedHostile adds the hostile frames' payloads (../testdata/hostile),
// cut to their first 4 KiB, to f's seed corpus, each followed by more.
func seedHostile(f *testing.F, more ...any) {
	for _, frame := range allocbound.Frames(f, "../testdata/hostile") {
		f.Add(append([]any{frame[4:min(len(frame), 4<<10)]}, more...)...)
	}
}

// FuzzValue: Skip and Value agree on where an item ends and on whether it
// is well-formed, a value re-encodes to something that decodes to the
// same value, and Value allocates at most valueBound of the input's size.
func FuzzValue(f *testing.F) {
	for _, h := range []string{"00", "1bffffffffffffffff", "3bffffffffffffffff", "9f018202039f0405ffff", "bf61610161629f0203ffff",
		"7f657374726561646d696e67ff", "5f42010243030405ff", "c11a514b67b0", "f97e00", "a26161016162820203", "9a7fffffff00"} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	seedHostile(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b)
		var v Value
		var verr error
		allocbound.Check(t, "Value", len(b), valueBound(len(b)), func() { v, verr = d.Value() })
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

// FuzzFieldIter: a FieldIter over any input reports the pairs of keys
// below known that a generic decoding of the same map holds, in order,
// with their nulls; it fails where that decoding fails; Seen has the bit
// of each such key whose last value is not null; its error lies inside
// the input; and it allocates nothing but its error.
func FuzzFieldIter(f *testing.F) {
	for _, h := range []string{"a30001050201f6", "bf0103 00f6ff", "a201f60107", "a2616182010200 09", "a0", "bf00f6", "a1", "b9ffff00"} {
		b, _ := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
		f.Add(b, uint8(2))
	}
	seedHostile(f, uint8(24))
	f.Fuzz(func(t *testing.T, b []byte, known uint8) {
		type pair struct {
			k    uint64
			null bool
		}
		var got []pair
		var seen uint32
		var iterErr error
		d := NewDecoder(b)
		allocbound.Check(t, "FieldIter", len(b), allocbound.Hostile(len(b)), func() {
			it, err := d.Fields(int(known))
			if err != nil {
				iterErr = err
				return
			}
			for it.Next(&d) {
				got = append(got, pair{it.Key(), it.Null()})
				if !it.Null() {
					if err := d.Skip(); err != nil {
						iterErr = err
						return
					}
				}
			}
			iterErr, seen = it.Err(), it.Seen()
		})
		if iterErr != nil {
			if e, ok := iterErr.(*Error); !ok || e.Offset < 0 || e.Offset > len(b) {
				t.Fatalf("error %v outside the input", iterErr)
			}
		}
		vd := NewDecoder(b)
		v, err := vd.Value()
		if err != nil || v.Kind != KindMap {
			if err == nil && iterErr == nil {
				t.Fatalf("a %v read as a map", v.Kind)
			}
			if err != nil && iterErr == nil && err.(*Error).Kind != ErrDepth {
				t.Fatalf("Value fails (%v), the iterator does not", err)
			}
			return
		}
		if iterErr != nil {
			t.Fatalf("the iterator fails (%v) on a map Value reads", iterErr)
		}
		var want []pair
		var wantSeen uint32
		for i := 0; i+1 < len(v.Items); i += 2 {
			k := v.Items[i]
			if k.Kind != KindUint || k.Uint >= uint64(min(known, 24)) {
				continue
			}
			null := v.Items[i+1].Kind == KindNull
			want = append(want, pair{k.Uint, null})
			if null {
				wantSeen &^= 1 << k.Uint
			} else {
				wantSeen |= 1 << k.Uint
			}
		}
		if len(got) != len(want) {
			t.Fatalf("pairs %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pairs %v, want %v", got, want)
			}
		}
		if seen != wantSeen {
			t.Fatalf("seen %b, want %b", seen, wantSeen)
		}
	})
}
