package framebuffer

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zlib"
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
	js.rect(1, 1, 8, 8, EncodingTight)
	js.u8(tightJPEG << 4)
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
	})
}
