//go:build !race

package framebuffer

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// TestSteadyAllocs: once its zlib states and scratch exist, the decoder
// decodes ZRLE, Tight basic, Raw and CopyRect updates without allocating.
func TestSteadyAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const W, H, runs = 128, 96, 20
	var s stream
	z, tz := newZW(), newZW()
	for range runs + 2 {
		s.update(5)
		m, pal := paletted(rng, 100, 70, 6, 8)
		s.zrleRect(z, m, 0, 0, []int{zRaw, zPacked, zPalRLE, zRLE}, pal)
		s.tightCopy(tz, noise(rng, 40, 30), 80, 60, 0, 0)
		m, pal = paletted(rng, 30, 20, 2, 4)
		s.tightPalette(tz, m, pal, 0, 70, 0)
		s.rect(100, 0, 4, 4, rfb.EncodingRaw)
		s.raw(noise(rng, 4, 4))
		s.rect(0, 90, 10, 5, rfb.EncodingCopyRect)
		s.u16(50)
		s.u16(50)
	}
	fb := newFB(t, W, H)
	d := NewDecoder(bytes.NewReader(s.Bytes()), fb, Limits{})
	if _, err := d.Next(); err != nil { // warm-up: zlib states, scratch
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(runs, func() {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations an update of 5 rectangles (ZRLE, Tight copy, Tight palette, Raw, CopyRect)", allocs)
	if allocs != 0 {
		t.Fatalf("%.1f allocations an update, want 0", allocs)
	}
}

// TestEncoderSteadyAllocs: once warm, the Encoder allocates nothing but
// the growth of the caller's buffer, lossless or with JPEG (the noise
// goes as JPEG; fills and palettes stay).
func TestEncoderSteadyAllocs(t *testing.T) {
	src := encTestFB(t, rand.New(rand.NewPCG(27, 28)))
	for _, q := range []int{0, JPEGQuality(0), JPEGQuality(6)} {
		e, err := NewEncoder(1)
		if err != nil {
			t.Fatal(err)
		}
		e.SetJPEG(q)
		dst, _, _ := e.AppendTight(nil, src, 0, 0, 300, 260) // warm-up: scratch, zlib state, dst's room
		allocs := testing.AllocsPerRun(10, func() {
			if _, _, err := e.AppendTight(dst[:0], src, 0, 0, 300, 260); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("JPEG quality %d: %.1f allocations to encode 300x260, want 0", q, allocs)
		}
		if got := e.Counts()[rfb.KindTightJPEG] > 0; got != (q > 0) {
			t.Errorf("JPEG quality %d: %d JPEG rectangles", q, e.Counts()[rfb.KindTightJPEG])
		}
	}
}
