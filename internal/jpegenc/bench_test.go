package jpegenc

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"testing"
)

// The benchmark's sizes and qualities: a small update, a Tight piece, a
// whole screen; TigerVNC's JPEG qualities of levels 0, 2 and 6.
var (
	benchSizes     = [][2]int{{64, 64}, {256, 256}, {1280, 720}}
	benchQualities = []int{15, 41, 79}
)

// eachCase runs f as a sub-benchmark for each content, size and quality:
// a region of that size in the middle of a 1280×720 screen of the
// content, its stride the screen's.
func eachCase(b *testing.B, f func(b *testing.B, pix []byte, stride, w, h, q int)) {
	const W, H = 1280, 720
	for _, kind := range contents {
		pix := screen(kind, W, H, 1)
		for _, sz := range benchSizes {
			w, h := sz[0], sz[1]
			at := 4 * ((H-h)/2*W + (W-w)/2)
			for _, q := range benchQualities {
				b.Run(fmt.Sprintf("content=%s/size=%dx%d/q=%d", kind, w, h, q), func(b *testing.B) {
					f(b, pix[at:], 4*W, w, h, q)
				})
			}
		}
	}
}

// report reports megapixels a second and the last picture's bytes.
func report(b *testing.B, w, h, n int) {
	b.ReportMetric(float64(w*h)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MP/s")
	b.ReportMetric(float64(n), "B/picture")
}

// BenchmarkEncode encodes regions of screen-like content (text on white,
// a photo, a flat UI; 1280×720 screens, seeded) with this build's
// Encoder, into a reused buffer: megapixels a second (MP/s) and bytes a
// picture (B/picture).
func BenchmarkEncode(b *testing.B) {
	eachCase(b, func(b *testing.B, pix []byte, stride, w, h, q int) {
		var e Encoder
		out, err := e.Append(nil, pix, stride, w, h, q)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			out, _ = e.Append(out[:0], pix, stride, w, h, q)
		}
		report(b, w, h, len(out))
	})
}

// BenchmarkImageJPEG is the same work through the standard library's
// image/jpeg (an image.RGBA over the same pixels, no copy; into a reused
// bytes.Buffer), the reference both backends are measured against.
func BenchmarkImageJPEG(b *testing.B) {
	eachCase(b, func(b *testing.B, pix []byte, stride, w, h, q int) {
		img := &image.RGBA{Pix: pix, Stride: stride, Rect: image.Rect(0, 0, w, h)}
		var out bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			out.Reset()
			if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: q}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, w, h, out.Len())
	})
}
