package framebuffer

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wirebench/wirebench/internal/rfb"
)

// decodeAll applies every message of src to fb and returns the decoder and
// the first error (nil at a clean end).
func decodeAll(src io.Reader, fb *Framebuffer, lim Limits) (*Decoder, error) {
	d := NewDecoder(src, fb, lim)
	for {
		if _, err := d.Next(); err != nil {
			if err == io.EOF {
				return d, nil
			}
			return d, err
		}
	}
}

func newFB(t testing.TB, w, h int) *Framebuffer {
	t.Helper()
	fb, err := New(w, h, NoVNCFormat)
	if err != nil {
		t.Fatal(err)
	}
	return fb
}

// samePix fails t at the first pixel where got and want differ.
func samePix(t testing.TB, got, want []byte, w int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("framebuffer of %d bytes, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			p := i / 4
			t.Fatalf("pixel (%d,%d) channel %d = %d, want %d", p%w, p/w, i%4, got[i], want[i])
		}
	}
}

func TestRawAndCopyRect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const W, H = 40, 30
	m := noise(rng, W, H)
	var s stream
	s.update(1)
	s.rect(0, 0, W, H, rfb.EncodingRaw)
	s.raw(m)
	want := make([]byte, 4*W*H)
	paint(want, W, m, 0, 0)
	// overlapping copies in every direction, checked against a copy
	// through a temporary picture
	moves := [][4]int{{3, 4, 0, 0}, {0, 0, 3, 4}, {5, 0, 0, 0}, {0, 0, 0, 7}, {1, 1, 1, 1}}
	for _, mv := range moves {
		dx, dy, sx, sy := mv[0], mv[1], mv[2], mv[3]
		w, h := 20, 15
		s.update(1)
		s.rect(dx, dy, w, h, rfb.EncodingCopyRect)
		s.u16(sx)
		s.u16(sy)
		tmp := make([]byte, 0, 4*w*h)
		for r := range h {
			tmp = append(tmp, want[4*((sy+r)*W+sx):4*((sy+r)*W+sx+w)]...)
		}
		for r := range h {
			copy(want[4*((dy+r)*W+dx):], tmp[4*r*w:4*(r+1)*w])
		}
	}
	fb := newFB(t, W, H)
	d, err := decodeAll(&s, fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	samePix(t, fb.Pix(), want, W)
	if st := d.Stats(); st.Raw != 1 || st.CopyRect != uint64(len(moves)) || st.Updates != 1+uint64(len(moves)) {
		t.Fatalf("stats %+v", st)
	}
}

// zrleStream builds a stream of two ZRLE updates on one zlib stream,
// covering every sub-encoding in whole and partial tiles, and the picture
// it paints.
func zrleStream(rng *rand.Rand) (s *stream, want []byte, W, H int) {
	W, H = 150, 140
	s = &stream{}
	want = make([]byte, 4*W*H)
	z := newZW()
	// update 1: noise in raw tiles, then a solid rectangle
	m := noise(rng, 130, 70) // 3×2 tiles, partial on the right and bottom
	s.update(2)
	s.zrleRect(z, m, 5, 3, []int{zRaw}, nil)
	paint(want, W, m, 5, 3)
	solid := newImg(64, 64)
	for i := 0; i < len(solid.p); i += 3 {
		copy(solid.p[i:], []byte{9, 200, 77})
	}
	s.zrleRect(z, solid, 80, 70, []int{zSolid}, nil)
	paint(want, W, solid, 80, 70)
	// update 2, same zlib stream: palettes of 2, 3, 16 colours packed,
	// plain RLE with runs past 255 and 510, palette RLE of 2 and 127 colours
	s.update(6)
	for _, c := range []struct {
		n, maxRun, kind, x, y int
	}{{2, 1, zPacked, 0, 75}, {3, 2, zPacked, 13, 80}, {16, 1, zPacked, 60, 0}, {5, 600, zRLE, 0, 0}, {2, 300, zPalRLE, 70, 10}, {127, 3, zPalRLE, 20, 90}} {
		w, h := 33+c.n%7, 40+c.maxRun%9
		if c.kind == zRLE {
			w, h = 64, 64
		}
		m, pal := paletted(rng, w, h, c.n, c.maxRun)
		s.zrleRect(z, m, c.x, c.y, []int{c.kind}, pal)
		paint(want, W, m, c.x, c.y)
	}
	return s, want, W, H
}

func TestZRLE(t *testing.T) {
	s, want, W, H := zrleStream(rand.New(rand.NewPCG(3, 4)))
	fb := newFB(t, W, H)
	d, err := decodeAll(bytes.NewReader(s.Bytes()), fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	samePix(t, fb.Pix(), want, W)
	st := d.Stats()
	if st.ZRLE != 8 || st.ZRLERaw != 6 || st.ZRLESolid != 1 || st.ZRLEPacked != 3 || st.ZRLERLE != 1 || st.ZRLEPaletteRLE != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// tightStream builds a stream of Tight rectangles of every kind, on all
// four zlib streams continued across rectangles and updates, with a reset,
// and the picture it paints.
func tightStream(rng *rand.Rand) (s *stream, want []byte, W, H int) {
	W, H = 120, 100
	s = &stream{}
	want = make([]byte, 4*W*H)
	var z [4]*zw
	for i := range z {
		z[i] = newZW()
	}
	s.update(7)
	s.tightFill(0, 0, W, H, [3]byte{1, 2, 3})
	paint(want, W, func() *img {
		m := newImg(W, H)
		for i := 0; i < len(m.p); i += 3 {
			copy(m.p[i:], []byte{1, 2, 3})
		}
		return m
	}(), 0, 0)
	m := noise(rng, 30, 20)
	s.tightCopy(z[0], m, 2, 3, 0, 0)
	paint(want, W, m, 2, 3)
	small := noise(rng, 3, 1) // 9 bytes: sent as they are
	s.tightCopy(z[0], small, 100, 90, 0, 0)
	paint(want, W, small, 100, 90)
	m, pal := paletted(rng, 37, 11, 2, 4)
	s.tightPalette(z[1], m, pal, 40, 5, 1)
	paint(want, W, m, 40, 5)
	m, pal = paletted(rng, 25, 19, 5, 3)
	s.tightPalette(z[2], m, pal, 80, 30, 2)
	paint(want, W, m, 80, 30)
	m, pal = paletted(rng, 16, 16, 256, 1)
	s.tightPalette(z[2], m, pal, 0, 80, 2)
	paint(want, W, m, 0, 80)
	m = gradientImg(rng, 33, 27)
	s.tightGradient(z[3], m, 50, 60, 3)
	paint(want, W, m, 50, 60)
	// update 2: every stream continued, then stream 0 reset (a new zlib
	// stream from its header), and stream 3 reset by a fill
	s.update(5)
	m = noise(rng, 10, 10)
	s.tightCopy(z[0], m, 90, 0, 0, 0)
	paint(want, W, m, 90, 0)
	m, pal = paletted(rng, 8, 9, 2, 2)
	s.tightPalette(z[1], m, pal, 90, 12, 1)
	paint(want, W, m, 90, 12)
	z[0] = newZW()
	m = noise(rng, 12, 7)
	s.tightCopy(z[0], m, 60, 20, 0, 1)
	paint(want, W, m, 60, 20)
	s.rect(0, 0, 1, 1, rfb.EncodingTight) // a fill that resets stream 3
	s.u8(rfb.TightFill<<4 | 8)
	s.Write([]byte{7, 7, 7})
	want[0], want[1], want[2] = 7, 7, 7
	z[3] = newZW()
	m = gradientImg(rng, 20, 20)
	s.tightGradient(z[3], m, 5, 30, 3)
	paint(want, W, m, 5, 30)
	return s, want, W, H
}

// gradientImg is a smooth picture with a little noise.
func gradientImg(rng *rand.Rand, w, h int) *img {
	m := newImg(w, h)
	for y := range h {
		for x := range w {
			m.set(x, y, [3]byte{byte(4*x + rng.IntN(3)), byte(3*y + 2*x), byte(255 - 5*y)})
		}
	}
	return m
}

func TestTight(t *testing.T) {
	s, want, W, H := tightStream(rand.New(rand.NewPCG(5, 6)))
	fb := newFB(t, W, H)
	d, err := decodeAll(bytes.NewReader(s.Bytes()), fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	samePix(t, fb.Pix(), want, W)
	st := d.Stats()
	if st.Tight != 12 || st.TightFill != 2 || st.TightCopy != 4 || st.TightPalette != 4 || st.TightGradient != 2 || st.TightResets != 2 || st.TightUncompressed != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestTightJPEG(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const W, H = 64, 48
	m := gradientImg(rng, 50, 40)
	rgba := image.NewRGBA(image.Rect(0, 0, m.w, m.h))
	for y := range m.h {
		for x := range m.w {
			copy(rgba.Pix[rgba.PixOffset(x, y):], m.at(x, y))
			rgba.Pix[rgba.PixOffset(x, y)+3] = 255
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range gray.Pix {
		gray.Pix[i] = byte(i * 4)
	}
	var s stream
	s.update(2)
	for _, c := range []struct {
		im   image.Image
		x, y int
	}{{rgba, 3, 4}, {gray, 56, 40}} {
		var j bytes.Buffer
		if err := jpeg.Encode(&j, c.im, &jpeg.Options{Quality: 95}); err != nil {
			t.Fatal(err)
		}
		b := c.im.Bounds()
		s.rect(c.x, c.y, b.Dx(), b.Dy(), rfb.EncodingTight)
		s.u8(rfb.TightJPEG << 4)
		s.compact(j.Len())
		s.Write(j.Bytes())
	}
	fb := newFB(t, W, H)
	d, err := decodeAll(&s, fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Stats().TightJPEG != 2 {
		t.Fatalf("stats %+v", d.Stats())
	}
	var sum, worst int
	for y := range m.h {
		for x := range m.w {
			r, g, b := fb.At(3+x, 4+y)
			for c, v := range []uint8{r, g, b} {
				e := max(int(v)-int(m.at(x, y)[c]), int(m.at(x, y)[c])-int(v))
				sum += e
				worst = max(worst, e)
			}
		}
	}
	mean := float64(sum) / float64(3*m.w*m.h)
	t.Logf("JPEG quality 95: mean abs error %.2f, max %d", mean, worst)
	if mean > 2 || worst > 24 {
		t.Fatalf("JPEG decoded with mean abs error %.2f, max %d (limits 2 and 24)", mean, worst)
	}
	for i := range 64 {
		r, g, b := fb.At(56+i%8, 40+i/8)
		if e := max(int(r)-i*4, i*4-int(r)); e > 8 || r != g || g != b {
			t.Fatalf("grey pixel %d = %d,%d,%d, want about %d", i, r, g, b, i*4)
		}
	}
}

// pseudoStream builds a stream with every pseudo-encoding and skipped
// message, then a Raw rectangle, and the picture it paints.
func pseudoStream(rng *rand.Rand) (*stream, []byte) {
	var s stream
	s.u8(rfb.MsgBell)
	s.u8(rfb.MsgSetColourMapEntries)
	s.u8(0)
	s.u16(0)
	s.u16(2)
	s.Write(make([]byte, 12))
	s.u8(rfb.MsgServerCutText)
	s.Write([]byte{0, 0, 0})
	s.u32(5)
	s.WriteString("hello")
	s.u8(rfb.MsgServerCutText) // extended clipboard: negative length
	s.Write([]byte{0, 0, 0})
	s.u32(uint32(0xffffffff - 7 + 1)) // -7
	s.Write([]byte{1, 0, 0, 0, 2, 3, 4})
	s.u8(rfb.MsgEndOfContinuousUpdates)
	s.u8(rfb.MsgServerFence)
	s.Write([]byte{0, 0, 0})
	s.u32(1 << 31)
	s.u8(3)
	s.WriteString("abc")
	s.u8(rfb.MsgXvp)
	s.Write([]byte{0, 1, 0})
	s.update(9)
	s.rect(0, 0, 20, 10, rfb.EncodingDesktopSize)
	s.rect(1, 1, 30, 30, rfb.EncodingExtendedDesktop) // this client's request, refused: no resize
	s.u8(1)
	s.Write(make([]byte, 3+16))
	s.rect(0, 0, 16, 12, rfb.EncodingExtendedDesktop) // server change: resize
	s.u8(2)
	s.Write(make([]byte, 3+32))
	s.rect(2, 3, 5, 3, rfb.EncodingCursor)
	s.Write(make([]byte, 5*3*4+1*3))
	s.rect(0, 0, 2, 2, rfb.EncodingVMwareCursor)
	s.Write([]byte{0, 0})
	s.Write(make([]byte, 2*2*2*4))
	s.rect(0, 0, 2, 2, rfb.EncodingVMwareCursor)
	s.Write([]byte{1, 0})
	s.Write(make([]byte, 2*2*4))
	s.rect(0, 0, 0, 0, rfb.EncodingQEMULEDState)
	s.u8(5)
	s.rect(0, 0, 0, 0, rfb.EncodingDesktopName)
	s.u32(4)
	s.WriteString("desk")
	s.rect(0, 0, 0, 0, rfb.EncodingQEMUExtendedKey)
	m := noise(rng, 16, 12)
	s.update(0xffff) // ended by LastRect
	s.rect(0, 0, 16, 12, rfb.EncodingRaw)
	s.raw(m)
	s.rect(0, 0, 0, 0, rfb.EncodingLastRect)
	s.u8(rfb.MsgBell)
	want := make([]byte, 4*16*12)
	paint(want, 16, m, 0, 0)
	return &s, want
}

func TestPseudoAndMessages(t *testing.T) {
	s, want := pseudoStream(rand.New(rand.NewPCG(9, 10)))
	fb := newFB(t, 8, 8)
	d, err := decodeAll(s, fb, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if fb.Width() != 16 || fb.Height() != 12 {
		t.Fatalf("framebuffer %dx%d, want 16x12", fb.Width(), fb.Height())
	}
	samePix(t, fb.Pix(), want, 16)
	st := d.Stats()
	if st.Messages != 10 || st.Skipped != 8 || st.Resizes != 2 || st.Pseudo != 8 || st.Raw != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// splitReader gives a then b, as two reads.
type splitReader struct{ parts [][]byte }

func (r *splitReader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 && len(r.parts[0]) == 0 {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	return n, nil
}

// TestSplits feeds a small stream of every kind split at every byte, and
// one byte a read: the result is the same.
func TestSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s stream
	const W, H = 24, 16
	want := make([]byte, 4*W*H)
	z, tz := newZW(), newZW()
	s.update(6)
	m := noise(rng, 4, 2)
	s.rect(0, 0, 4, 2, rfb.EncodingRaw)
	s.raw(m)
	paint(want, W, m, 0, 0)
	m, pal := paletted(rng, 10, 6, 3, 5)
	s.zrleRect(z, m, 4, 0, []int{zPalRLE}, pal)
	paint(want, W, m, 4, 0)
	m, pal = paletted(rng, 8, 8, 2, 3)
	s.zrleRect(z, m, 14, 2, []int{zPacked}, pal)
	paint(want, W, m, 14, 2)
	m = noise(rng, 5, 4)
	s.tightCopy(tz, m, 0, 10, 0, 0)
	paint(want, W, m, 0, 10)
	m = gradientImg(rng, 6, 5)
	s.tightCopy(tz, m, 8, 10, 0, 0)
	paint(want, W, m, 8, 10)
	s.rect(0, 0, 0, 0, rfb.EncodingDesktopName)
	s.u32(3)
	s.WriteString("abc")
	s.u8(rfb.MsgBell)
	all := s.Bytes()
	check := func(name string, src io.Reader) {
		t.Helper()
		fb := newFB(t, W, H)
		if _, err := decodeAll(src, fb, Limits{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		samePix(t, fb.Pix(), want, W)
	}
	check("whole", bytes.NewReader(all))
	check("one byte a read", iotest.OneByteReader(bytes.NewReader(all)))
	for k := 1; k < len(all); k++ {
		check(fmt.Sprintf("split at %d", k), &splitReader{parts: [][]byte{bytes.Clone(all[:k]), bytes.Clone(all[k:])}})
	}
	// cut short anywhere: an error, never a panic, never a quiet success
	// (except at the message boundaries)
	for k := 1; k < len(all)-1; k++ {
		fb := newFB(t, W, H)
		_, err := decodeAll(bytes.NewReader(all[:k]), fb, Limits{})
		if err == nil {
			t.Fatalf("stream cut at %d of %d decoded without error", k, len(all))
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("stream cut at %d: %v, want unexpected EOF", k, err)
		}
	}
}

func TestPixelFormat(t *testing.T) {
	b := NoVNCFormat.Bytes()
	pf, err := ParsePixelFormat(b[:])
	if err != nil || pf != NoVNCFormat {
		t.Fatalf("noVNC's format: %+v, %v", pf, err)
	}
	for _, c := range []struct {
		i    int
		v    byte
		want string
	}{{0, 16, "16 bits per pixel"}, {1, 32, "depth 32"}, {2, 1, "big-endian"}, {3, 0, "colour map"},
		{5, 31, "maxima 31/255/255"}, {10, 16, "shifts 16/8/16"}, {12, 0, "shifts 0/8/0"}} {
		bad := NoVNCFormat.Bytes()
		bad[c.i] = c.v
		if _, err := ParsePixelFormat(bad[:]); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("byte %d = %d: %v, want an error saying %q", c.i, c.v, err, c.want)
		}
	}
	if _, err := ParsePixelFormat(b[:15]); err == nil {
		t.Error("15-byte pixel format accepted")
	}
	if _, err := New(2, 2, PixelFormat{BitsPerPixel: 8}); err == nil {
		t.Error("New accepted an 8-bit format")
	}
}

func TestResizeAndRegion(t *testing.T) {
	fb := newFB(t, 3, 2)
	copy(fb.Pix(), []byte{1, 1, 1, 0, 2, 2, 2, 0, 3, 3, 3, 0, 4, 4, 4, 0, 5, 5, 5, 0, 6, 6, 6, 0})
	if err := fb.Resize(2, 3); err != nil {
		t.Fatal(err)
	}
	got, err := fb.Region(nil, 0, 0, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 1, 1, 0, 2, 2, 2, 0, 4, 4, 4, 0, 5, 5, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Fatalf("after resize %v, want %v", got, want)
	}
	if _, err := fb.Region(nil, 1, 1, 2, 1); err == nil {
		t.Fatal("region past the right edge accepted")
	}
	if _, err := fb.Region(nil, 1, 2, 1, 1); err != nil {
		t.Fatalf("region at the corner: %v", err)
	}
	if err := fb.Resize(65536, 1); err == nil {
		t.Fatal("width 65536 accepted")
	}
}

// TestResizeInPlace checks resizes that reuse memory (rows moving up or
// down) against a naive model: shared pixels kept, new ones black.
func TestResizeInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	fb := newFB(t, 5, 5)
	model := func(pix []byte, w, h, nw, nh int) []byte {
		out := make([]byte, 4*nw*nh)
		for y := range min(h, nh) {
			copy(out[4*y*nw:4*(y*nw+min(w, nw))], pix[4*y*w:])
		}
		return out
	}
	for i := range 300 {
		for j := range fb.pix {
			fb.pix[j] = byte(rng.IntN(255) + 1)
		}
		nw, nh := 1+rng.IntN(20), 1+rng.IntN(20)
		want := model(fb.Pix(), fb.w, fb.h, nw, nh)
		if err := fb.resize(nw, nh, 4*20*20); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fb.Pix(), want) {
			t.Fatalf("resize %d to %dx%d: pixels differ from the model", i, nw, nh)
		}
	}
}
