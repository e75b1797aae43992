package framebuffer

import (
	"bytes"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zlib"
	"github.com/wirebench/wirebench/internal/rfb"
)

// The fuzz target's framebuffer and limits: big enough for the seed
// streams, small enough that a resize to the limit is cheap.
const (
	fuzzW, fuzzH       = 160, 150
	fuzzMaxW, fuzzMaxH = 256, 256
	fuzzMaxJPEG        = 64 << 10
	// fuzzPerByte is what one input byte may make the decoder allocate
	// on top of its fixed memory: what is allocated per rectangle and not
	// kept (image/jpeg's decoded image and tables, flate's Huffman links
	// for a dynamic block, an error's text) is paid for by the bytes that
	// ask for it, never by a length they claim.
	fuzzPerByte = 2 << 10
)

// fuzzFixed is the decoder's memory bound for the fuzz limits, as doc.go
// states it: its own buffers, the framebuffer and scratch grown by
// doubling up to their limits (at most 3 times the limit allocated in
// all), and five zlib states.
func fuzzFixed() uint64 {
	fb := uint64(4 * fuzzMaxW * fuzzMaxH)
	scratch := uint64(max(3*fuzzMaxW*fuzzMaxH, fuzzMaxJPEG))
	return decoderOwn + 3*fb + 3*scratch + 5*zlibState()
}

// zlibState is what a zlib reader allocates (measured).
func zlibState() uint64 {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte("x"))
	w.Close()
	return allocated(func() {
		r, _ := zlib.NewReader(bytes.NewReader(b.Bytes()))
		r.Read(make([]byte, 1))
	}) + 1024
}

func fuzzSeeds() [][]byte {
	var seeds [][]byte
	s, _, _, _ := zrleStream(rand.New(rand.NewPCG(3, 4)))
	seeds = append(seeds, s.Bytes())
	s, _, _, _ = tightStream(rand.New(rand.NewPCG(5, 6)))
	seeds = append(seeds, s.Bytes())
	p, _ := pseudoStream(rand.New(rand.NewPCG(9, 10)))
	seeds = append(seeds, p.Bytes())
	var j bytes.Buffer
	jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 8, 8)), &jpeg.Options{Quality: 50})
	var js stream
	js.update(1)
	js.rect(1, 1, 8, 8, rfb.EncodingTight)
	js.u8(rfb.TightJPEG << 4)
	js.compact(j.Len())
	js.Write(j.Bytes())
	seeds = append(seeds, js.Bytes())
	return seeds
}

// FuzzDecoder: on any input the decoder never panics, and allocates at
// most its fixed bound plus fuzzPerByte for each input byte, whatever
// the lengths in the input claim.
func FuzzDecoder(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	fixed := fuzzFixed()
	f.Fuzz(func(t *testing.T, data []byte) {
		fb, err := New(fuzzW, fuzzH, NoVNCFormat)
		if err != nil {
			t.Fatal(err)
		}
		var derr error
		got := allocated(func() {
			_, derr = decodeAll(bytes.NewReader(data), fb, Limits{MaxWidth: fuzzMaxW, MaxHeight: fuzzMaxH, MaxJPEG: fuzzMaxJPEG})
		})
		if bound := fixed + fuzzPerByte*uint64(len(data)); got > bound {
			t.Fatalf("%d input bytes made the decoder allocate %d bytes, bound %d (error %v)", len(data), got, bound, derr)
		}
		if fb.Width() > fuzzMaxW || fb.Height() > fuzzMaxH || len(fb.Pix()) != 4*fb.Width()*fb.Height() {
			t.Fatalf("framebuffer %dx%d with %d bytes", fb.Width(), fb.Height(), len(fb.Pix()))
		}
		sameFraming(t, data)
	})
}

// sameFraming: a Decoder in Skip mode frames data as a decoding one does:
// every message the decoding Decoder completed, the skipping one
// completes, of the same type at the same offset, and where the decoding
// one reached the end of a well-formed stream, so does the skipping one,
// on a framebuffer of the same size.
func sameFraming(t *testing.T, data []byte) {
	t.Helper()
	lim := Limits{MaxWidth: fuzzMaxW, MaxHeight: fuzzMaxH, MaxJPEG: fuzzMaxJPEG}
	run := func(skip bool) ([]Message, *Framebuffer, error) {
		fb, err := New(fuzzW, fuzzH, NoVNCFormat)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder(bytes.NewReader(data), fb, lim)
		d.Skip = skip
		var ms []Message
		for {
			m, err := d.Next()
			if err != nil {
				return ms, fb, err
			}
			ms = append(ms, m)
		}
	}
	dec, dfb, derr := run(false)
	skip, sfb, serr := run(true)
	if len(skip) < len(dec) {
		t.Fatalf("skipping framed %d messages (then %v), decoding %d", len(skip), serr, len(dec))
	}
	for i, m := range dec {
		if skip[i].Type != m.Type || skip[i].Offset != m.Offset {
			t.Fatalf("message %d: skipping framed type %d at %d, decoding type %d at %d", i, skip[i].Type, skip[i].Offset, m.Type, m.Offset)
		}
	}
	if derr == io.EOF {
		if serr != io.EOF || len(skip) != len(dec) {
			t.Fatalf("decoding framed %d messages to the end; skipping %d, then %v", len(dec), len(skip), serr)
		}
		if sfb.Width() != dfb.Width() || sfb.Height() != dfb.Height() {
			t.Fatalf("skipping ends %dx%d, decoding %dx%d", sfb.Width(), sfb.Height(), dfb.Width(), dfb.Height())
		}
	}
}

// TestSkipFraming: sameFraming on the fuzz seeds (each a stream of every
// encoding the Decoder reads), and on each cut short at every tenth byte.
func TestSkipFraming(t *testing.T) {
	for _, s := range fuzzSeeds() {
		for n := len(s); n >= 0; n -= max(1, len(s)/10) {
			sameFraming(t, s[:n])
		}
	}
}
