package framebuffer

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// errOf decodes s into a w×h framebuffer and returns the error (nil at a
// clean end).
func errOf(s []byte, w, h int, lim Limits) error {
	fb, err := New(w, h, NoVNCFormat)
	if err != nil {
		return err
	}
	_, err = decodeAll(bytes.NewReader(s), fb, lim)
	return err
}

// wantErr fails t unless err is a DecodeError whose text has every part.
func wantErr(t *testing.T, name string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: decoded without error", name)
	}
	if !errors.Is(err, ErrDecode) {
		t.Fatalf("%s: %v is not an ErrDecode", name, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %q does not say %q", name, err, p)
		}
	}
}

// accepted fails t unless the stream's claim was accepted: the decoder
// went on to read the payload and found the stream cut short.
func accepted(t *testing.T, name string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%s: %v (want it accepted)", name, err)
	}
}

func TestLimits(t *testing.T) {
	const W, H = 32, 24
	one := func(f func(s *stream)) []byte {
		var s stream
		s.update(1)
		f(&s)
		return s.Bytes()
	}
	raw := func(x, y, w, h int) []byte {
		return one(func(s *stream) { s.rect(x, y, w, h, rfb.EncodingRaw); s.Write(make([]byte, 4*w*h)) })
	}
	if err := errOf(raw(W-2, H-3, 2, 3), W, H, Limits{}); err != nil {
		t.Fatalf("rectangle at the corner: %v", err)
	}
	wantErr(t, "rectangle one past the right", errOf(raw(W-1, 0, 2, 1), W, H, Limits{}), "rectangle 0 (2x1 at 31,0, encoding 0)", "outside the 32x24 framebuffer", "at byte 16")
	wantErr(t, "rectangle one past the bottom", errOf(raw(0, H, 1, 1), W, H, Limits{}), "outside")

	copyRect := func(sx, sy int) []byte {
		return one(func(s *stream) { s.rect(0, 0, 4, 4, rfb.EncodingCopyRect); s.u16(sx); s.u16(sy) })
	}
	if err := errOf(copyRect(W-4, H-4), W, H, Limits{}); err != nil {
		t.Fatalf("CopyRect from the corner: %v", err)
	}
	wantErr(t, "CopyRect source past the edge", errOf(copyRect(W-3, 0), W, H, Limits{}), "CopyRect source at (29,0) outside")

	size := func(w, h int) []byte { return one(func(s *stream) { s.rect(0, 0, w, h, rfb.EncodingDesktopSize) }) }
	lim := Limits{MaxWidth: 100, MaxHeight: 50}
	if err := errOf(size(100, 50), W, H, lim); err != nil {
		t.Fatalf("desktop size at the limit: %v", err)
	}
	wantErr(t, "desktop size past the limit", errOf(size(101, 50), W, H, lim), "desktop size 101x50 beyond the limit 100x50")
	wantErr(t, "desktop size past the limit", errOf(size(100, 51), W, H, lim), "beyond the limit")
	ext := func(w, h int) []byte {
		return one(func(s *stream) { s.rect(0, 0, w, h, rfb.EncodingExtendedDesktop); s.u8(1); s.Write(make([]byte, 19)) })
	}
	wantErr(t, "extended desktop size past the limit", errOf(ext(101, 1), W, H, lim), "beyond the limit")

	// ZRLE's length, at and one past what a 32x24 rectangle can take
	zrleLen := func(n int) []byte {
		return one(func(s *stream) { s.rect(0, 0, W, H, rfb.EncodingZRLE); s.u32(uint32(n)) })
	}
	zmax := zlibBound(zrleBound(W, H))
	accepted(t, "ZRLE length at the bound", errOf(zrleLen(zmax), W, H, Limits{}))
	wantErr(t, "ZRLE length past the bound", errOf(zrleLen(zmax+1), W, H, Limits{}), "ZRLE length", "beyond")
	wantErr(t, "ZRLE length of 4 GiB", errOf(zrleLen(1<<32-1), W, H, Limits{}), "beyond")

	// Tight JPEG, at and past Limits.MaxJPEG, and past what the rectangle justifies
	jpegLen := func(w, h, n int) []byte {
		return one(func(s *stream) { s.rect(0, 0, w, h, rfb.EncodingTight); s.u8(rfb.TightJPEG << 4); s.compact(n) })
	}
	jl := Limits{MaxJPEG: 1000}
	accepted(t, "JPEG at MaxJPEG", errOf(jpegLen(W, H, 1000), W, H, jl))
	wantErr(t, "JPEG past MaxJPEG", errOf(jpegLen(W, H, 1001), W, H, jl), "JPEG of 1001 bytes beyond the limit 1000")
	accepted(t, "JPEG at the rectangle's bound", errOf(jpegLen(1, 1, 6+4096), W, H, Limits{}))
	wantErr(t, "JPEG past the rectangle's bound", errOf(jpegLen(1, 1, 6+4097), W, H, Limits{}), "beyond the limit 4102 for a 1x1")

	// Tight basic: the compressed length against the pixels' bound
	basicLen := func(n int) []byte {
		return one(func(s *stream) { s.rect(0, 0, 10, 10, rfb.EncodingTight); s.u8(0); s.compact(n) })
	}
	accepted(t, "Tight zlib length at the bound", errOf(basicLen(zlibBound(300)), W, H, Limits{}))
	wantErr(t, "Tight zlib length past the bound", errOf(basicLen(zlibBound(300)+1), W, H, Limits{}), "Tight zlib data of 369 bytes beyond the 368 that 300 bytes")

	// the compact length's largest value, three bytes
	var c stream
	c.compact(rfb.TightMaxCompactLen)
	if c.Len() != 3 {
		t.Fatalf("compact %d took %d bytes", rfb.TightMaxCompactLen, c.Len())
	}
	var fr rfb.ServerFramer // as the Decoder frames: an update, a Tight JPEG rectangle, its length
	pf := NoVNCFormat.Bytes()
	fr.SetPixelFormat(pf[:])
	fr.MaxCompactLen = rfb.TightMaxCompactLen
	in := append([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 7, 0x90}, c.Bytes()...)
	var h *rfb.Header
	for off := 0; off < len(in); {
		n, hh, err := fr.Next(in[off:])
		if err != nil || n == 0 {
			t.Fatalf("framing at %d: %d, %v", off, n, err)
		}
		off, h = off+n, hh
	}
	if h.Part != rfb.PartTightLength || h.Payload != rfb.TightMaxCompactLen {
		t.Fatalf("compact length %d (part %d); want %d", h.Payload, h.Part, rfb.TightMaxCompactLen)
	}

	// a fence payload at RFB's 64 and past
	fence := func(n int) []byte {
		var s stream
		s.u8(rfb.MsgServerFence)
		s.Write([]byte{0, 0, 0})
		s.u32(0)
		s.u8(byte(n))
		s.Write(make([]byte, n))
		return s.Bytes()
	}
	if err := errOf(fence(64), W, H, Limits{}); err != nil {
		t.Fatalf("fence of 64: %v", err)
	}
	wantErr(t, "fence of 65", errOf(fence(65), W, H, Limits{}), "fence payload of 65 bytes")
}

// TestZlibCarry: compressed bytes a rectangle leaves unread are carried to
// the stream's next rectangle, up to MaxZlibCarry; more is an error.
func TestZlibCarry(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const W, H = 20, 10
	a, _ := paletted(rng, 10, 10, 2, 30) // compresses well: room for extra bytes under the length's bound
	b := noise(rng, 10, 10)
	build := func(extra []byte) []byte {
		var s stream
		z := newZW()
		s.update(2)
		s.rect(0, 0, 10, 10, rfb.EncodingTight)
		s.u8(0)
		ca := append(z.chunk(a.p), extra...)
		s.compact(len(ca))
		s.Write(ca)
		s.tightCopy(z, b, 10, 0, 0, 0)
		return s.Bytes()
	}
	// two more empty sync-flush blocks: legal, and the next rectangle
	// inflates them first
	var flushes bytes.Buffer
	fw := newZW()
	fw.chunk(nil) // the header
	for range 2 {
		fw.w.Flush()
	}
	flushes.Write(fw.buf.Bytes())
	want := make([]byte, 4*W*H)
	paint(want, W, a, 0, 0)
	paint(want, W, b, 10, 0)
	fb := newFB(t, W, H)
	if _, err := decodeAll(bytes.NewReader(build(flushes.Bytes())), fb, Limits{}); err != nil {
		t.Fatalf("with %d bytes of empty blocks carried: %v", flushes.Len(), err)
	}
	samePix(t, fb.Pix(), want, W)
	wantErr(t, "100 bytes past", errOf(build(make([]byte, 100)), W, H, Limits{}), "compressed bytes past the rectangle's pixels (limit 64)", "rectangle 0")

	// a chunk cut short: the rectangle's data ends before its pixels
	var s stream
	z := newZW()
	s.update(1)
	s.rect(0, 0, 10, 10, rfb.EncodingTight)
	s.u8(0)
	ca := z.chunk(a.p)
	s.compact(len(ca) - 10)
	s.Write(ca[:len(ca)-10])
	wantErr(t, "chunk cut short", errOf(s.Bytes(), W, H, Limits{}), "zlib data ends before the rectangle's pixels", "zlib stream 0")

	// a ZRLE rectangle whose data inflates to more than its tiles use:
	// the extra is found at the end of the rectangle
	var zs stream
	zz := newZW()
	zs.update(1)
	zs.rect(0, 0, 4, 4, rfb.EncodingZRLE)
	cz := zz.chunk(append(zrleTileBytes(noise(rng, 4, 4), zSolid, nil), make([]byte, 40)...))
	zs.u32(uint32(len(cz)))
	zs.Write(cz)
	wantErr(t, "ZRLE inflating past its tiles", errOf(zs.Bytes(), W, H, Limits{}), "inflates to at least 40 bytes past")
}

// TestBadContent: each kind of content the decoder refuses, with what it
// says.
func TestBadContent(t *testing.T) {
	const W, H = 32, 24
	rng := rand.New(rand.NewPCG(17, 18))
	jpegOf := func(w, h int) []byte {
		var j bytes.Buffer
		jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, w, h)), nil)
		return j.Bytes()
	}
	for _, c := range []struct {
		name  string
		build func(s *stream)
		parts []string
	}{
		{"unknown message", func(s *stream) { s.u8(7) }, []string{"unknown server message type 7", "at server byte 0"}},
		{"unknown encoding", func(s *stream) { s.update(1); s.rect(0, 0, 1, 1, 5) }, []string{"encoding 5 is not one"}},
		{"VMware cursor type 2", func(s *stream) { s.update(1); s.rect(0, 0, 1, 1, rfb.EncodingVMwareCursor); s.u8(2); s.u8(0) }, []string{"VMware cursor type 2"}},
		{"Tight PNG", func(s *stream) { s.update(1); s.rect(0, 0, 1, 1, rfb.EncodingTight); s.u8(rfb.TightPNG << 4) }, []string{"PNG, which only TightPNG has"}},
		{"Tight control 0xb0", func(s *stream) { s.update(1); s.rect(0, 0, 1, 1, rfb.EncodingTight); s.u8(0xb0) }, []string{"control byte 0xb0: compression type 11 is invalid"}},
		{"Tight filter 3", func(s *stream) { s.update(1); s.rect(0, 0, 1, 1, rfb.EncodingTight); s.u8(0x40); s.u8(3) }, []string{"filter id 3 is invalid"}},
		{"Tight palette index", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 2, 2, rfb.EncodingTight)
			s.Write([]byte{0x40, 1, 2}) // three colours
			s.Write(make([]byte, 9))
			s.Write([]byte{0, 1, 2, 3}) // four bytes: under 12, as they are
		}, []string{"palette index 3 of a 3-colour palette at (1,1)"}},
		{"ZRLE packed index", func(s *stream) {
			z := newZW()
			s.update(1)
			s.rect(0, 0, 2, 1, rfb.EncodingZRLE)
			c := z.chunk([]byte{3, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0x3c}) // 2 bits: 0, 3
			s.u32(uint32(len(c)))
			s.Write(c)
		}, []string{"tile at (0,0): palette index 3 of a 3-colour palette"}},
		{"ZRLE run past the tile", func(s *stream) {
			z := newZW()
			s.update(1)
			s.rect(0, 0, 4, 4, rfb.EncodingZRLE)
			c := z.chunk([]byte{128, 1, 2, 3, 16}) // a run of 17 in 16 pixels
			s.u32(uint32(len(c)))
			s.Write(c)
		}, []string{"run of at least 17 pixels with 16 left"}},
		{"ZRLE unused sub-encoding", func(s *stream) {
			z := newZW()
			s.update(1)
			s.rect(0, 0, 4, 4, rfb.EncodingZRLE)
			c := z.chunk([]byte{17})
			s.u32(uint32(len(c)))
			s.Write(c)
		}, []string{"ZRLE sub-encoding 17 is unused"}},
		{"ZRLE not zlib", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 4, 4, rfb.EncodingZRLE)
			s.u32(4)
			s.Write([]byte{1, 2, 3, 4})
		}, []string{"zlib data"}},
		{"zlib header check", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 4, 4, rfb.EncodingZRLE)
			s.u32(4)
			s.Write([]byte{0x78, 0x02, 3, 4}) // 0x7802 is not a multiple of 31
		}, []string{"header 0x7802 fails its check", "encoding 16"}},
		{"zlib window of 64 KiB", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 8, 8, rfb.EncodingTight)
			s.u8(0)
			s.compact(4)
			s.Write([]byte{0x88, 0x1c, 3, 4}) // 0x881c = 31*1124, CINFO 8
		}, []string{"window of at most 32 KiB", "zlib stream 0"}},
		{"zlib preset dictionary", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 8, 8, rfb.EncodingTight)
			s.u8(0)
			s.compact(4)
			s.Write([]byte{0x78, 0x20, 3, 4}) // 0x7820 = 31*993, FDICT
		}, []string{"preset dictionary", "zlib stream 0"}},
		{"JPEG of another size", func(s *stream) {
			j := jpegOf(8, 8)
			s.update(1)
			s.rect(0, 0, 8, 9, rfb.EncodingTight)
			s.u8(rfb.TightJPEG << 4)
			s.compact(len(j))
			s.Write(j)
		}, []string{"JPEG of 8x8 in a 8x9 rectangle"}},
		{"JPEG garbage", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 8, 8, rfb.EncodingTight)
			s.u8(rfb.TightJPEG << 4)
			s.compact(20)
			s.Write(noise(rng, 20, 1).p[:20])
		}, []string{"JPEG header"}},
	} {
		var s stream
		c.build(&s)
		fb := newFB(t, W, H)
		d := NewDecoder(bytes.NewReader(s.Bytes()), fb, Limits{})
		var err error
		for err == nil {
			_, err = d.Next()
		}
		wantErr(t, c.name, err, c.parts...)
		if _, again := d.Next(); again != err {
			t.Fatalf("%s: after the error, Next returned %v", c.name, again)
		}
	}
}

// TestClaimsAllocateNothing: lengths a peer claims (a 4 GiB desktop name,
// a 2 GiB cut text, a 65535² cursor, a ZRLE rectangle the framebuffer
// cannot hold) cost no more memory than the decoder's own.
func TestClaimsAllocateNothing(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(s *stream)
	}{
		{"desktop name of 4 GiB", func(s *stream) { s.update(1); s.rect(0, 0, 0, 0, rfb.EncodingDesktopName); s.u32(1<<32 - 1) }},
		{"cut text of 2 GiB", func(s *stream) { s.u8(rfb.MsgServerCutText); s.Write([]byte{0, 0, 0}); s.u32(1 << 31) }},
		{"cursor of 65535x65535", func(s *stream) { s.update(1); s.rect(0, 0, 65535, 65535, rfb.EncodingCursor) }},
		{"VMware cursor of 65535x65535", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 65535, 65535, rfb.EncodingVMwareCursor)
			s.Write([]byte{0, 0})
		}},
		{"colour map of 65535", func(s *stream) { s.u8(rfb.MsgSetColourMapEntries); s.Write([]byte{0, 0, 0, 255, 255}) }},
		{"ZRLE 65535x65535", func(s *stream) { s.update(1); s.rect(0, 0, 65535, 65535, rfb.EncodingZRLE); s.u32(1<<32 - 1) }},
		{"desktop 65535x65535", func(s *stream) { s.update(1); s.rect(0, 0, 65535, 65535, rfb.EncodingDesktopSize) }},
		{"JPEG of 4 MiB", func(s *stream) {
			s.update(1)
			s.rect(0, 0, 8, 8, rfb.EncodingTight)
			s.u8(rfb.TightJPEG << 4)
			s.compact(rfb.TightMaxCompactLen)
		}},
	} {
		var s stream
		c.build(&s)
		fb := newFB(t, 16, 16)
		got := allocated(func() { decodeAll(bytes.NewReader(s.Bytes()), fb, Limits{}) })
		if got > decoderOwn {
			t.Errorf("%s: %d bytes allocated, more than the decoder's own %d", c.name, got, decoderOwn)
		}
	}
}
