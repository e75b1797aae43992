package zerocopy

import (
	"encoding/binary"
	"testing"

	"github.com/wirebench/wirebench/codec/cbor"
)

// TestHeads: the fast head readers agree with cbor.Decoder where they
// read an item, for every initial byte and a set of arguments.
func TestHeads(t *testing.T) {
	args := []uint64{0, 1, 23, 24, 255, 256, 0x7fff, 0xffff, 0x10000, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	n := 0
	for c := 0; c < 256; c++ {
		for _, a := range args {
			b := []byte{byte(c)}
			b = binary.BigEndian.AppendUint64(b, a)
			b = append(b, 0, 0, 0, 0) // room for the readers that need it
			for _, cut := range []int{1, 2, 3, 5, 9, len(b)} {
				p := b[:cut]
				d := newDec(p)
				want32, werr32 := d.Int32()
				wn := d.Offset()
				v, w := cbor.Int32At(p, 0)
				agrees(t, "cbor.Int32At", p, v, w, want32, wn, werr32, 5)
				if cut >= 3 {
					most := 0 // shortHead[int32] must read the short heads of unsigned integers
					if c < 0x20 {
						most = 3
					}
					v, w := shortHead[int32](p, 0)
					agrees(t, "shortHead[int32]", p, v, w, want32, wn, werr32, most)
					if w > 0 {
						n++
					}
					var win [32]byte
					copy(win[5:], p)
					if v2, w2 := winHead[int32](&win, 5); v2 != v || w2 != w {
						t.Fatalf("winHead[int32](% x) = %d, %d; shortHead %d, %d", p, v2, w2, v, w)
					}
					u, uw := shortHead[uint32](p, 0)
					if u2, w2 := winHead[uint32](&win, 5); u2 != u || w2 != uw {
						t.Fatalf("winHead[uint32](% x) = %d, %d; shortHead %d, %d", p, u2, w2, u, uw)
					}
				}
				d = newDec(p)
				wantU, werrU := d.Uint32()
				wn = d.Offset()
				u, w := cbor.Uint32At(p, 0)
				agrees(t, "cbor.Uint32At", p, u, w, wantU, wn, werrU, 5)
				if cut >= 3 {
					u, w := shortHead[uint32](p, 0)
					agrees(t, "shortHead[uint32]", p, u, w, wantU, wn, werrU, 3)
				}
				d = newDec(p)
				want64, werr64 := d.Int()
				wn = d.Offset()
				v64, w := cbor.IntAt(p, 0)
				agrees(t, "cbor.IntAt", p, v64, w, want64, wn, werr64, len(p))
				d = newDec(p)
				wantU64, werrU64 := d.Uint()
				wn = d.Offset()
				u64, w := cbor.UintAt(p, 0)
				agrees(t, "cbor.UintAt", p, u64, w, wantU64, wn, werrU64, len(p))
			}
		}
	}
	if n < 1000 {
		t.Errorf("shortHead[int32] read only %d heads", n)
	}
}

// agrees checks what a head reader made of p, (v, w), against the
// decoder's (want, wn, werr): where the reader reads an item it reads the
// decoder's, and where the decoder reads one of at most most bytes the
// reader reads it too (most 0: the reader may refuse any).
func agrees[T comparable](t *testing.T, name string, p []byte, v T, w int, want T, wn int, werr error, most int) {
	t.Helper()
	if w > 0 && (werr != nil || v != want || w != wn) {
		t.Fatalf("%s(% x) = %v, %d; decoder %v, %d, %v", name, p, v, w, want, wn, werr)
	}
	if w == 0 && werr == nil && wn <= most {
		t.Fatalf("%s(% x) refuses the %d-byte item the decoder reads", name, p, wn)
	}
}
