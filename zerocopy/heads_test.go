package zerocopy

import (
	"encoding/binary"
	"testing"

	"github.com/wirebench/wirebench/internal/cborat"
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
				v, w := cborat.Int32At(p, 0)
				if w > 0 && (werr32 != nil || v != want32 || w != wn) {
					t.Fatalf("cborat.Int32At(% x) = %d, %d; decoder %d, %d, %v", p, v, w, want32, wn, werr32)
				}
				if w == 0 && werr32 == nil && wn <= 5 {
					t.Fatalf("cborat.Int32At(% x) refuses what the decoder reads", p)
				}
				if cut >= 3 {
					v, w := shortHead[int32](p, 0)
					if w > 0 && (werr32 != nil || v != want32 || w != wn) {
						t.Fatalf("shortHead[int32](% x) = %d, %d; decoder %d, %d, %v", p, v, w, want32, wn, werr32)
					}
					if w == 0 && werr32 == nil && wn <= 3 && c < 0x20 {
						t.Fatalf("shortHead[int32](% x) refuses a head of %d bytes", p, wn)
					}
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
				u, w := cborat.Uint32At(p, 0)
				if w > 0 && (werrU != nil || u != wantU || w != wn) {
					t.Fatalf("cborat.Uint32At(% x) = %d, %d; decoder %d, %d, %v", p, u, w, wantU, wn, werrU)
				}
				if w == 0 && werrU == nil && wn <= 5 {
					t.Fatalf("cborat.Uint32At(% x) refuses what the decoder reads", p)
				}
				if cut >= 3 {
					u, w := shortHead[uint32](p, 0)
					if w > 0 && (werrU != nil || u != wantU || w != wn) {
						t.Fatalf("shortHead[uint32](% x) = %d, %d; decoder %d, %d, %v", p, u, w, wantU, wn, werrU)
					}
					if w == 0 && werrU == nil && wn <= 3 {
						t.Fatalf("shortHead[uint32](% x) refuses a head of %d bytes", p, wn)
					}
				}
				d = newDec(p)
				want64, werr64 := d.Int()
				wn = d.Offset()
				if v, w := cborat.IntAt(p, 0); w > 0 && (werr64 != nil || v != want64 || w != wn) {
					t.Fatalf("cborat.IntAt(% x) = %d, %d; decoder %d, %d, %v", p, v, w, want64, wn, werr64)
				} else if w == 0 && werr64 == nil {
					t.Fatalf("cborat.IntAt(% x) refuses what the decoder reads", p)
				}
				d = newDec(p)
				wantU64, werrU64 := d.Uint()
				wn = d.Offset()
				if v, w := cborat.UintAt(p, 0); w > 0 && (werrU64 != nil || v != wantU64 || w != wn) {
					t.Fatalf("UintAt(% x) = %d, %d; decoder %d, %d, %v", p, v, w, wantU64, wn, werrU64)
				} else if w == 0 && werrU64 == nil {
					t.Fatalf("UintAt(% x) refuses what the decoder reads", p)
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("shortHead[int32] read only %d heads", n)
	}
}
