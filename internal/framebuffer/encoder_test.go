package framebuffer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfb"
)

// encTestFB is a framebuffer of every kind of content the Encoder chooses
// between: a solid block, two colours, a dozen colours, noise.
func encTestFB(t *testing.T, rng *rand.Rand) *Framebuffer {
	const W, H = 300, 260
	fb := newFB(t, W, H)
	pix := make([]byte, 4*W*H)
	m := noise(rng, W, H)
	paint(pix, W, m, 0, 0)
	two, _ := paletted(rng, 150, 100, 2, 9)
	paint(pix, W, two, 0, 0)
	dozen, _ := paletted(rng, 150, 100, 12, 5)
	paint(pix, W, dozen, 150, 0)
	solid, _ := paletted(rng, 100, 60, 1, 1)
	paint(pix, W, solid, 10, 150)
	copy(fb.Pix(), pix)
	return fb
}

// TestEncoderRoundTrip: what the Encoder writes, the Decoder decodes to the
// same pixels; each rectangle decodes on its own with a fresh decoder and
// after another stream left zlib stream 0 in any state.
func TestEncoderRoundTrip(t *testing.T) {
	for _, level := range []int{1, 6} { // stateless deflate, and a zlib writer
		t.Run(fmt.Sprintf("level=%d", level), func(t *testing.T) { testEncoderRoundTrip(t, level) })
	}
}

func testEncoderRoundTrip(t *testing.T, level int) {
	rng := rand.New(rand.NewPCG(21, 22))
	src := encTestFB(t, rng)
	e, err := NewEncoder(level)
	if err != nil {
		t.Fatal(err)
	}
	regions := [][4]int{{0, 0, 300, 260}, {0, 0, 150, 100}, {150, 0, 150, 100}, {10, 150, 100, 60}, {3, 5, 7, 1}, {200, 200, 3, 1}}
	var all []byte
	total := 0
	var pieces [][]byte
	for _, r := range regions {
		var n int
		before := len(all)
		all, n, err = e.AppendTight(all, src, r[0], r[1], r[2], r[3])
		if err != nil {
			t.Fatal(err)
		}
		total += n
		pieces = append(pieces, all[before:])
	}
	// one update with every rectangle, after a stream that used stream 0
	var s stream
	z := newZW()
	s.update(1)
	s.tightCopy(z, noise(rng, 20, 20), 0, 0, 0, 0)
	s.update(total)
	s.Write(all)
	fb := newFB(t, 300, 260)
	d, err := decodeAll(bytes.NewReader(s.Bytes()), fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	samePix(t, fb.Pix(), src.Pix(), 300)
	st := d.Stats()
	t.Logf("%d rectangles for %d regions: fill %d palette %d copy %d uncompressed %d; %d bytes for %d pixels", total, len(regions), st.TightFill, st.TightPalette, st.TightCopy, st.TightUncompressed, len(all), 300*260)
	if st.TightFill == 0 || st.TightPalette == 0 || st.TightCopy == 0 || st.TightUncompressed == 0 {
		t.Fatalf("the encoder did not use every kind: %+v", st)
	}
	// each region alone, in reverse order, into a fresh decoder
	for i := len(pieces) - 1; i >= 0; i-- {
		r := regions[i]
		n := countRects(t, pieces[i])
		var one stream
		one.update(n)
		one.Write(pieces[i])
		fb := newFB(t, 300, 260)
		if _, err := decodeAll(bytes.NewReader(one.Bytes()), fb, Limits{}); err != nil {
			t.Fatalf("region %v alone: %v", r, err)
		}
		want, _ := src.Region(nil, r[0], r[1], r[2], r[3])
		got, _ := fb.Region(nil, r[0], r[1], r[2], r[3])
		if !bytes.Equal(got, want) {
			t.Fatalf("region %v alone decodes to other pixels", r)
		}
	}
	if _, _, err := e.AppendTight(nil, src, 299, 0, 2, 1); err == nil {
		t.Fatal("a region past the edge was encoded")
	}
}

// TestEncoderJPEG: with SetJPEG, pieces of many colours go as Tight JPEG
// (also when SetManyColours skips the palette scan), decode within a JPEG's
// error, and fills and palettes stay lossless.
func TestEncoderJPEG(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	src := newFB(t, 300, 260)
	for y := range 260 { // smooth, photo-like, many colours
		for x := range 300 {
			p := src.Pix()[4*(y*300+x):]
			p[0], p[1], p[2] = byte(x*255/300), byte(y*255/260), byte((x+y)/3)+byte(rng.IntN(3))
		}
	}
	e, err := NewEncoder(1)
	if err != nil {
		t.Fatal(err)
	}
	e.SetJPEG(JPEGQuality(8))
	all, n, err := e.AppendTight(nil, src, 0, 0, 300, 260)
	if err != nil {
		t.Fatal(err)
	}
	e.SetManyColours(true)
	more, k, err := e.AppendTight(nil, src, 10, 10, 40, 40)
	if err != nil {
		t.Fatal(err)
	}
	e.SetManyColours(false)
	var s stream
	s.update(n + k)
	s.Write(all)
	s.Write(more)
	fb := newFB(t, 300, 260)
	d, err := decodeAll(bytes.NewReader(s.Bytes()), fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Stats(); st.TightJPEG != uint64(n+k) || e.Counts()[rfb.KindTightJPEG] != uint64(n+k) {
		t.Fatalf("%d JPEG rectangles decoded, %d counted, want %d", st.TightJPEG, e.Counts()[rfb.KindTightJPEG], n+k)
	}
	var sum, worst int
	for i, v := range fb.Pix() {
		if i%4 == 3 {
			continue
		}
		d := int(v) - int(src.Pix()[i])
		sum += max(d, -d)
		worst = max(worst, max(d, -d))
	}
	mean := float64(sum) / float64(3*300*260)
	t.Logf("JPEG at quality %d: %d bytes for %d pixels, mean error %.2f, worst %d", JPEGQuality(8), len(all), 300*260, mean, worst)
	if mean > 3 {
		t.Fatalf("mean error %.2f per channel, want at most 3 at quality %d", mean, JPEGQuality(8))
	}
}

// countRects counts the rectangles in Encoder output by walking it with a
// fresh decoder over a big framebuffer.
func countRects(t *testing.T, b []byte) int {
	t.Helper()
	var s stream
	s.update(0xffff)
	s.Write(b)
	s.rect(0, 0, 0, 0, rfb.EncodingLastRect)
	fb := newFB(t, 300, 260)
	d := NewDecoder(bytes.NewReader(s.Bytes()), fb, Limits{})
	m, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	return m.Rects - 1
}

// TestEncoderSplits: a region wider than 2048 or larger than 65536
// pixels is sent in pieces within both.
func TestEncoderSplits(t *testing.T) {
	fb := newFB(t, 3000, 100)
	rng := rand.New(rand.NewPCG(23, 24))
	for i := range fb.Pix() {
		if i%4 != 3 { // the padding byte stays 0, as decoders write it
			fb.Pix()[i] = byte(rng.IntN(256))
		}
	}
	e, _ := NewEncoder(1)
	out, n, err := e.AppendTight(nil, fb, 0, 0, 3000, 100)
	if err != nil {
		t.Fatal(err)
	}
	b := out
	for k := range n {
		w, h := int(binary.BigEndian.Uint16(b[4:])), int(binary.BigEndian.Uint16(b[6:]))
		if w > encMaxWidth || w*h > encMaxArea {
			t.Fatalf("piece %d is %dx%d", k, w, h)
		}
		// skip it: decode it alone
		var s stream
		s.update(1)
		s.Write(b)
		d := NewDecoder(bytes.NewReader(s.Bytes()), newFB(t, 3000, 100), Limits{})
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
		b = b[d.Offset()-4:]
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes after %d pieces", len(b), n)
	}
	var s stream
	s.update(n)
	s.Write(out)
	got := newFB(t, 3000, 100)
	if _, err := decodeAll(bytes.NewReader(s.Bytes()), got, Limits{}); err != nil {
		t.Fatal(err)
	}
	samePix(t, got.Pix(), fb.Pix(), 3000)
}

// TestEncoderNoVNC: noVNC's own TightDecoder (the real peer, run in node)
// decodes what the Encoder writes to the same pixels, each region after
// the others with no state in common.
func TestEncoderNoVNC(t *testing.T) {
	node := peertest.Program(t, "node")
	novnc := peertest.NoVNC(t)
	rng := rand.New(rand.NewPCG(25, 26))
	src := encTestFB(t, rng)
	e, _ := NewEncoder(1) // the hub's: stateless deflate
	var all []byte
	regions := [][4]int{{150, 0, 150, 100}, {0, 0, 300, 260}, {0, 0, 150, 100}, {10, 150, 100, 60}, {3, 5, 7, 1}}
	for _, r := range regions {
		var err error
		if all, _, err = e.AppendTight(all, src, r[0], r[1], r[2], r[3]); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "rects")
	if err := os.WriteFile(file, all, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/novnc_tight.mjs", novnc, file, "300", "260")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("noVNC in node: %v: %s", err, stderr.String())
	}
	t.Logf("noVNC: %s", strings.TrimSpace(stderr.String()))
	samePix(t, out, src.Pix(), 300)
}

// FuzzEncoderRoundTrip: any pixels, any region, encoded and decoded again
// (by a decoder whose stream 0 holds other state) are the same pixels.
func FuzzEncoderRoundTrip(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(0), uint8(0), uint8(40), uint8(30), uint8(3))
	f.Add(bytes.Repeat([]byte{9, 9, 9, 0}, 64), uint8(5), uint8(5), uint8(20), uint8(20), uint8(1))
	f.Fuzz(func(t *testing.T, seed []byte, x, y, w, h, colours uint8) {
		const W, H = 64, 48
		fb := newFB(t, W, H)
		if len(seed) == 0 {
			seed = []byte{0}
		}
		k := int(colours%20) + 1 // draw from k colours, so every kind of rectangle happens
		for i := range W * H {
			c := int(seed[i%len(seed)]) % k
			copy(fb.pix[4*i:], []byte{byte(37 * c), byte(91 * c), byte(seed[(i+c)%len(seed)] * byte(c)), 0})
		}
		rx, ry := int(x)%W, int(y)%H
		rw, rh := min(int(w)%W+1, W-rx), min(int(h)%H+1, H-ry)
		e, _ := NewEncoder(1)
		out, n, err := e.AppendTight(nil, fb, rx, ry, rw, rh)
		if err != nil {
			t.Fatal(err)
		}
		var s stream
		z := newZW()
		s.update(1)
		s.tightCopy(z, noise(rand.New(rand.NewPCG(1, 2)), 8, 8), 0, 0, 0, 0)
		s.update(n)
		s.Write(out)
		got := newFB(t, W, H)
		if _, err := decodeAll(bytes.NewReader(s.Bytes()), got, Limits{}); err != nil {
			t.Fatalf("%dx%d at %d,%d: %v", rw, rh, rx, ry, err)
		}
		a, _ := fb.Region(nil, rx, ry, rw, rh)
		b, _ := got.Region(nil, rx, ry, rw, rh)
		if !bytes.Equal(a, b) {
			t.Fatalf("%dx%d at %d,%d decodes to other pixels", rw, rh, rx, ry)
		}
	})
}

// TestEncoderTightBasic: a server's copy and palette rectangles, on zlib
// streams that run across rectangles, passed on by AppendTightBasic from
// the Decoder's TightBasic, decode on their own to the same pixels (after
// another stream left zlib stream 0 in any state); a gradient rectangle is
// refused.
func TestEncoderTightBasic(t *testing.T) {
	const W, H = 200, 120
	rng := rand.New(rand.NewPCG(31, 32))
	var s stream
	z := [4]*zw{newZW(), newZW(), newZW(), newZW()}
	two, pal2 := paletted(rng, 90, 40, 2, 7)
	dozen, pal12 := paletted(rng, 61, 33, 12, 4)
	tiny := noise(rng, 3, 1) // 9 bytes: sent without zlib
	s.update(6)
	s.tightCopy(z[0], noise(rng, W, H), 0, 0, 0, 0)
	s.tightPalette(z[1], two, pal2, 5, 7, 1)
	s.tightPalette(z[2], dozen, pal12, 100, 50, 2)
	s.tightCopy(z[0], noise(rng, 77, 45), 120, 70, 0, 0) // stream 0 again: its zlib stream goes on
	s.tightCopy(z[3], tiny, 1, 110, 3, 0)
	s.tightGradient(z[1], noise(rng, 20, 10), 30, 90, 1)

	e, err := NewEncoder(1)
	if err != nil {
		t.Fatal(err)
	}
	src := newFB(t, W, H)
	d := NewDecoder(bytes.NewReader(s.Bytes()), src, Limits{})
	var out []byte
	passed, refused := 0, 0
	d.OnRect = func(r Rect) {
		b, err := e.AppendTightBasic(out, r.X, r.Y, r.W, r.H, d.TightBasic())
		if err != nil {
			if r.Kind != rfb.KindTightGradient {
				t.Errorf("%v rectangle at (%d,%d) refused: %v", r.Kind, r.X, r.Y, err)
			}
			if len(b) != len(out) {
				t.Errorf("a refused rectangle appended %d bytes", len(b)-len(out))
			}
			b, _, err = e.AppendTight(out, src, r.X, r.Y, r.W, r.H)
			if err != nil {
				t.Fatal(err)
			}
			refused++
		} else {
			passed++
		}
		out = b
	}
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if passed != 5 || refused != 1 {
		t.Fatalf("passed on %d rectangles and refused %d; want 5 and 1 (the gradient)", passed, refused)
	}

	var again stream
	again.update(1)
	again.tightCopy(newZW(), noise(rng, 20, 20), 0, 0, 0, 0)
	again.update(6)
	again.Write(out)
	fb := newFB(t, W, H)
	d2, err := decodeAll(bytes.NewReader(again.Bytes()), fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	samePix(t, fb.Pix(), src.Pix(), W)
	// The two palettes passed on, and the gradient's 200 pixels encoded
	// again as a palette of at most 256 colours.
	if st := d2.Stats(); st.TightPalette != 3 || st.TightUncompressed == 0 {
		t.Errorf("decoded %d palette rectangles and %d uncompressed; want 3 and at least 1", st.TightPalette, st.TightUncompressed)
	}
}

// TestPixelPacking: widening 3-byte pixels to 4 and packing them back
// again, at every length from none to a few (the last pixel is copied
// byte by byte: nothing is written past the end).
func TestPixelPacking(t *testing.T) {
	for n := range 6 {
		src := make([]byte, 3*n)
		for i := range src {
			src[i] = byte(7*i + 1)
		}
		wide := make([]byte, 4*n+4)
		for i := range wide {
			wide[i] = 0xee
		}
		copyPixels(wide[:4*n], src)
		for i := range n {
			if got, want := wide[4*i:4*i+4], []byte{src[3*i], src[3*i+1], src[3*i+2], 0}; !bytes.Equal(got, want) {
				t.Fatalf("%d pixels: pixel %d widened to %v, want %v", n, i, got, want)
			}
		}
		if !bytes.Equal(wide[4*n:], []byte{0xee, 0xee, 0xee, 0xee}) {
			t.Fatalf("%d pixels: copyPixels wrote past its end: %v", n, wide[4*n:])
		}
		packed := appendPacked([]byte{9}, wide[:4*n])
		if !bytes.Equal(packed, append([]byte{9}, src...)) {
			t.Fatalf("%d pixels: packed to %v, want 9 then %v", n, packed, src)
		}
	}
}

// TestEncoderPaletteLimits: a piece goes as a palette up to the colours
// its JPEG quality allows (256 lossless, 96 with JPEG, 24 at the lowest
// qualities) and as JPEG, or the copy filter, one colour past.
func TestEncoderPaletteLimits(t *testing.T) {
	for _, c := range []struct {
		name  string
		q     int
		limit int
		past  rfb.Kind
	}{
		{"lossless", 0, encMaxPal, rfb.KindTightCopy},
		{"jpeg level 6", JPEGQuality(6), encMaxPalJPEG, rfb.KindTightJPEG},
		{"jpeg level 0", JPEGQuality(0), encMaxPalLow, rfb.KindTightJPEG},
	} {
		for _, n := range []int{c.limit, c.limit + 1} {
			fb := newFB(t, 32, 32)
			for i := range 32 * 32 { // n colours, each at least once
				k := i % n
				fb.pix[4*i], fb.pix[4*i+1], fb.pix[4*i+2] = byte(k), byte(k>>8), 7
			}
			e, err := NewEncoder(1)
			if err != nil {
				t.Fatal(err)
			}
			e.SetJPEG(c.q)
			out, _, err := e.AppendTight(nil, fb, 0, 0, 32, 32)
			if err != nil {
				t.Fatal(err)
			}
			want := rfb.KindTightPalette
			if n > c.limit {
				want = c.past
			}
			if got := e.Counts(); got[want] != 1 {
				t.Errorf("%s, %d colours: kinds %v, want one %v", c.name, n, got, want)
			}
			dec := newFB(t, 32, 32)
			if _, err := decodeAll(bytes.NewReader(append([]byte{0, 0, 0, 1}, out...)), dec, Limits{}); err != nil {
				t.Fatalf("%s, %d colours: %v", c.name, n, err)
			}
			if want == rfb.KindTightPalette {
				samePix(t, dec.Pix(), fb.Pix(), 32)
			}
		}
	}
}
