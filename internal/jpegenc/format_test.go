package jpegenc

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"
)

// segments returns the payloads of a JPEG's marker segments up to its
// scan, by marker, the payloads of repeated markers joined (libjpeg
// writes one DHT or DQT segment a table, image/jpeg one for all).
func segments(t *testing.T, j []byte) map[byte][]byte {
	t.Helper()
	seg := map[byte][]byte{}
	if len(j) < 2 || j[0] != 0xff || j[1] != 0xd8 {
		t.Fatalf("no SOI: % x", j[:min(len(j), 4)])
	}
	for i := 2; ; {
		if i+4 > len(j) || j[i] != 0xff {
			t.Fatalf("no marker at %d", i)
		}
		m, n := j[i+1], int(binary.BigEndian.Uint16(j[i+2:]))
		if n < 2 || i+2+n > len(j) {
			t.Fatalf("marker %#x at %d: length %d past the end", m, i, n)
		}
		seg[m] = append(seg[m], j[i+4:i+2+n]...)
		i += 2 + n
		if m == 0xda { // SOS: the scan follows
			return seg
		}
	}
}

// TestTables: both backends write what image/jpeg writes at the same
// quality, libjpeg's: Annex K's quantisation tables scaled by libjpeg's
// rule, its typical Huffman tables, a baseline frame with Y sampled 2×2
// and Cb and Cr 1×1 (4:2:0), one scan of the three.
func TestTables(t *testing.T) {
	pix := screen("photo", 40, 24, 5)
	for _, q := range []int{1, 15, 29, 41, 50, 79, 92, 100} {
		var e Encoder
		ours, err := e.Append(nil, pix, 4*40, 40, 24, q)
		if err != nil {
			t.Fatal(err)
		}
		var ref bytes.Buffer
		jpeg.Encode(&ref, &image.RGBA{Pix: pix, Stride: 4 * 40, Rect: image.Rect(0, 0, 40, 24)}, &jpeg.Options{Quality: q})
		got, want := segments(t, ours), segments(t, ref.Bytes())
		for _, m := range []byte{0xdb, 0xc4, 0xc0, 0xda} { // DQT, DHT, SOF0, SOS
			if !bytes.Equal(got[m], want[m]) {
				t.Errorf("q=%d: marker %#x holds\n% x\nwant (image/jpeg's)\n% x", q, m, got[m], want[m])
			}
		}
	}
}

// TestZigzag: the zig-zag order starts as Figure A.6 does and visits
// every coefficient once.
func TestZigzag(t *testing.T) {
	want := []uint8{0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5}
	if !bytes.Equal(zigzag[:len(want)], want) || zigzag[63] != 63 || zigzag[62] != 62 || zigzag[61] != 55 {
		t.Fatalf("zigzag = %v", zigzag)
	}
	var seen [64]bool
	for _, n := range zigzag {
		if seen[n] {
			t.Fatalf("zigzag visits %d twice", n)
		}
		seen[n] = true
	}
}

// TestFDCT: fdct is T.81's forward DCT (A.3.3) scaled by
// 8·aanScale[u]·aanScale[v], on random blocks and the block of largest
// AC terms.
func TestFDCT(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	blocks := make([][64]float32, 20)
	for i := range blocks[:19] {
		for k := range blocks[i] {
			blocks[i][k] = float32(rng.IntN(256) - 128)
		}
	}
	for k := range blocks[19] { // the signs of cos((2x+1)4π/16) in both directions
		s := func(x int) float32 { return float32(1 - 2*((x+1)/2%2)) }
		blocks[19][k] = 127.5*s(k/8)*s(k%8) - 0.5
	}
	for _, b := range blocks {
		f := b
		fdct(&f)
		for u := range 8 {
			for v := range 8 {
				var sum float64
				for y := range 8 {
					for x := range 8 {
						sum += float64(b[8*y+x]) * math.Cos(float64(2*y+1)*float64(u)*math.Pi/16) * math.Cos(float64(2*x+1)*float64(v)*math.Pi/16)
					}
				}
				cu, cv := 1.0, 1.0
				if u == 0 {
					cu = 1 / math.Sqrt2
				}
				if v == 0 {
					cv = 1 / math.Sqrt2
				}
				want := cu * cv * sum / 4
				got := float64(f[8*u+v]) / (8 * aanScale[u] * aanScale[v])
				if math.Abs(got-want) > 1e-3*max(1, math.Abs(want)) {
					t.Fatalf("F(%d,%d) = %.4f, want %.4f", u, v, got, want)
				}
			}
		}
	}
}

// TestExtremes: pictures that make the largest coefficients (Huffman
// sizes 10 for AC terms, 11 for DC differences) at quality 100, and
// the most zeros at 1, decode to their size; at 100, the grey patterns
// (no chrominance to subsample) and the yellow and blue squares come back
// nearly exact.
func TestExtremes(t *testing.T) {
	const W, H = 48, 40
	rng := rand.New(rand.NewPCG(11, 12))
	sign := func(x int) bool { return (x+1)/2%2 == 0 } // the sign of cos((2x+1)4π/16)
	patterns := map[string]func(x, y int) byte{
		"checks":  func(x, y int) byte { return byte(255 * ((x + y) % 2)) },
		"cos4":    func(x, y int) byte { return map[bool]byte{true: 255, false: 0}[sign(x) == sign(y)] },
		"squares": func(x, y int) byte { return byte(255 * ((x/16 + y/16) % 2)) },
		"noise":   func(x, y int) byte { return byte(rng.IntN(256)) },
	}
	grey := map[string]bool{"checks": true, "cos4": true}
	for name, p := range patterns {
		pix := make([]byte, 4*W*H)
		for y := range H {
			for x := range W {
				v := p(x, y)
				b := 255 - v
				if grey[name] {
					b = v
				}
				pix[4*(y*W+x)], pix[4*(y*W+x)+1], pix[4*(y*W+x)+2] = v, v, b
			}
		}
		for _, q := range []int{1, 100} {
			var e Encoder
			j, err := e.Append(nil, pix, 4*W, W, H, q)
			if err != nil {
				t.Fatal(err)
			}
			got := psnr(t, j, pix, 4*W, W, H)
			t.Logf("%s q=%d: %d bytes, %.2f dB", name, q, len(j), got)
			if (grey[name] || name == "squares") && q == 100 && got < 40 {
				t.Errorf("%s at q=100: %.2f dB, want at least 40", name, got)
			}
		}
	}
}

// TestStuff: a 0x00 follows each 0xff of the scan, at its start, its end
// and in runs; the headers before it are left as they are.
func TestStuff(t *testing.T) {
	var ffs []int
	for _, c := range []struct{ in, want []byte }{
		{[]byte{1, 2, 3}, []byte{1, 2, 3}},
		{[]byte{0xff}, []byte{0xff, 0}},
		{[]byte{0xff, 1, 0xff, 0xff, 2, 0xff}, []byte{0xff, 0, 1, 0xff, 0, 0xff, 0, 2, 0xff, 0}},
		{[]byte{}, []byte{}},
	} {
		head := []byte{0xff, 0xd8, 0xff}
		w := bitWriter{out: append(append([]byte(nil), head...), c.in...), scan: len(head), ffs: &ffs}
		got := w.stuff(w.out)
		if !bytes.Equal(got[:len(head)], head) || !bytes.Equal(got[len(head):], c.want) {
			t.Errorf("stuff(% x after % x) = % x, want % x after it", c.in, head, got[len(head):], c.want)
		}
	}
}
