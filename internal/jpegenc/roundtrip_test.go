package jpegenc

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"testing"
)

// psnr decodes j with image/jpeg and returns its peak signal-to-noise
// ratio in dB against the w×h pixels of pix (R, G and B of each, rows
// stride bytes apart), +Inf when equal; it fails t when j does not decode
// to a w×h picture.
func psnr(t testing.TB, j, pix []byte, stride, w, h int) float64 {
	t.Helper()
	im, err := jpeg.Decode(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("%dx%d: image/jpeg cannot decode %d bytes: %v", w, h, len(j), err)
	}
	if b := im.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%dx%d: decoded as %dx%d", w, h, b.Dx(), b.Dy())
	}
	yc, ok := im.(*image.YCbCr)
	if !ok {
		t.Fatalf("%dx%d: decoded as %T, want a YCbCr picture", w, h, im)
	}
	if yc.SubsampleRatio != image.YCbCrSubsampleRatio420 {
		t.Fatalf("%dx%d: chroma subsampled %v, want 4:2:0", w, h, yc.SubsampleRatio)
	}
	var se float64
	for y := range h {
		for x := range w {
			r, g, b, _ := im.At(x, y).RGBA()
			p := pix[y*stride+4*x:]
			for i, v := range [3]uint32{r >> 8, g >> 8, b >> 8} {
				d := float64(v) - float64(p[i])
				se += d * d
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(3*w*h)))
}

// minPSNR is the least PSNR (dB) a smooth photo-like region must decode
// to at each quality tested: about 1.5 dB under the least of both
// backends and image/jpeg on TestRoundTrip's regions (see its log).
var minPSNR = map[int]float64{1: 22, 15: 32, 41: 38, 79: 43, 100: 46}

// TestRoundTrip: what Append writes, image/jpeg decodes to a 4:2:0 picture
// of the region's size, within minPSNR of the input, at the least and
// greatest qualities and TigerVNC's 0, 2 and 6; for sizes of one pixel,
// odd ones, Tight's widest piece (2048 wide) and a square, each a region
// of a wider screen (its stride) and also packed (stride 4w).
func TestRoundTrip(t *testing.T) {
	const W, H = 2100, 300
	pix := screen("smooth", W, H, 7)
	for _, sz := range [][2]int{{1, 1}, {7, 9}, {2048, 32}, {256, 256}, {17, 33}} {
		w, h := sz[0], sz[1]
		at := 4 * (3*W + 5) // at (5, 3)
		packed := make([]byte, 4*w*h)
		for y := range h {
			copy(packed[4*w*y:4*w*(y+1)], pix[at+4*W*y:])
		}
		for _, q := range []int{1, 15, 41, 79, 100} {
			for _, region := range []struct {
				name   string
				pix    []byte
				stride int
			}{{"screen", pix[at:], 4 * W}, {"packed", packed, 4 * w}} {
				var e Encoder
				j, err := e.Append(nil, region.pix, region.stride, w, h, q)
				if err != nil {
					t.Fatalf("%dx%d q=%d %s: %v", w, h, q, region.name, err)
				}
				got := psnr(t, j, region.pix, region.stride, w, h)
				var ref bytes.Buffer
				img := &image.RGBA{Pix: region.pix, Stride: region.stride, Rect: image.Rect(0, 0, w, h)}
				if err := jpeg.Encode(&ref, img, &jpeg.Options{Quality: q}); err != nil {
					t.Fatal(err)
				}
				refPSNR := psnr(t, ref.Bytes(), region.pix, region.stride, w, h)
				if region.name == "screen" {
					t.Logf("%s %dx%d q=%d: %d bytes, %.2f dB (image/jpeg: %d bytes, %.2f dB)", Backend, w, h, q, len(j), got, ref.Len(), refPSNR)
				}
				if got < minPSNR[q] {
					t.Errorf("%s %dx%d q=%d %s: %.2f dB, want at least %.0f", Backend, w, h, q, region.name, got, minPSNR[q])
				}
			}
		}
	}
}

// TestAppendKeeps: Append appends after what dst holds and leaves it as
// it was; two calls give the same JPEG.
func TestAppendKeeps(t *testing.T) {
	pix := screen("text", 64, 48, 3)
	var e Encoder
	one, err := e.Append(nil, pix, 4*64, 64, 48, 41)
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("kept")
	two, err := e.Append(append([]byte(nil), prefix...), pix, 4*64, 64, 48, 41)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(two[:len(prefix)], prefix) || !bytes.Equal(two[len(prefix):], one) {
		t.Fatalf("after a prefix: %d bytes, want the prefix then the %d of the first JPEG", len(two), len(one))
	}
}

// TestContent: every benchmark content decodes near its input at
// TigerVNC's qualities: within contentPSNR, about 1 dB under both
// backends' (the text's edges and the photo's noise cost them most).
func TestContent(t *testing.T) {
	contentPSNR := map[string]map[int]float64{
		"text":  {15: 22.5, 41: 27.5, 79: 33.5},
		"photo": {15: 27.5, 41: 28.5, 79: 29},
		"ui":    {15: 38, 41: 40.5, 79: 47.5},
	}
	const W, H = 320, 200
	for _, kind := range contents {
		pix := screen(kind, W, H, 1)
		for _, q := range benchQualities {
			var e Encoder
			j, err := e.Append(nil, pix, 4*W, W, H, q)
			if err != nil {
				t.Fatal(err)
			}
			got := psnr(t, j, pix, 4*W, W, H)
			t.Logf("%s %s q=%d: %d bytes, %.2f dB", Backend, kind, q, len(j), got)
			if want := contentPSNR[kind][q]; got < want {
				t.Errorf("%s q=%d: %.2f dB, want at least %.1f", kind, q, got, want)
			}
		}
	}
}

// ExampleEncoder_Append encodes a 20×10 region of a 32×16 screen.
func ExampleEncoder_Append() {
	const W, H = 32, 16
	screen := make([]byte, 4*W*H) // R, G, B, unused
	for i := 0; i < len(screen); i += 4 {
		screen[i], screen[i+1], screen[i+2] = byte(i), 128, 200
	}
	var e Encoder
	at := 4 * (2*W + 3) // the region at (3, 2)
	j, err := e.Append(nil, screen[at:], 4*W, 20, 10, 79)
	if err != nil {
		fmt.Println(err)
		return
	}
	im, err := jpeg.Decode(bytes.NewReader(j))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(im.Bounds().Size())
	// Output: (20,10)
}
