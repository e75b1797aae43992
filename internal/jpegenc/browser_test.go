package jpegenc

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wirebench/wirebench/internal/peertest"
)

// chromiumDecode is the script that makes headless Chromium decode the
// JPEG of a data URL (%s: its base64) and returns the picture's width,
// height and RGBA pixels (base64), as a canvas holds them.
const chromiumDecode = `(async () => {
	const img = new Image();
	img.src = "data:image/jpeg;base64,%s";
	await img.decode();
	const c = document.createElement("canvas");
	c.width = img.naturalWidth;
	c.height = img.naturalHeight;
	const g = c.getContext("2d");
	g.drawImage(img, 0, 0);
	const d = g.getImageData(0, 0, c.width, c.height).data;
	let s = "";
	for (let i = 0; i < d.length; i += 8192) {
		s += String.fromCharCode(...d.subarray(i, i + 8192));
	}
	return {w: c.width, h: c.height, rgba: btoa(s)};
})()`

// TestChromiumDecodes: the browser noVNC runs in (real headless Chromium,
// its own JPEG decoder) draws what Append writes, odd sizes and Tight's
// widest piece, at the size it was, within minPSNR of the input less
// 1 dB (Chromium's chroma upsampling is not image/jpeg's).
func TestChromiumDecodes(t *testing.T) {
	bin := peertest.Program(t, "chromium")
	actx, acancel := chromedp.NewExecAllocator(context.Background(), peertest.HeadlessChromium(bin, t.TempDir())...)
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	const W, H = 2100, 300
	pix := screen("smooth", W, H, 8)
	type picture struct {
		W, H int
		RGBA string
	}
	for _, sz := range [][2]int{{1, 1}, {7, 9}, {2048, 32}, {256, 256}} {
		for _, q := range []int{15, 79, 100} {
			w, h := sz[0], sz[1]
			var e Encoder
			j, err := e.Append(nil, pix, 4*W, w, h, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[picture](fmt.Sprintf(chromiumDecode, base64.StdEncoding.EncodeToString(j)), chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("%s %dx%d q=%d: chromium cannot decode it: %v", Backend, w, h, q, err)
			}
			rgba, err := base64.StdEncoding.DecodeString(got.RGBA)
			if err != nil || got.W != w || got.H != h || len(rgba) != 4*w*h {
				t.Fatalf("%s %dx%d q=%d: chromium drew %dx%d, %d bytes (%v)", Backend, w, h, q, got.W, got.H, len(rgba), err)
			}
			var se float64
			for y := range h {
				for x := range w {
					for k := range 3 {
						d := float64(rgba[4*(y*w+x)+k]) - float64(pix[4*(y*W+x)+k])
						se += d * d
					}
				}
			}
			p := math.Inf(1)
			if se > 0 {
				p = 10 * math.Log10(255*255/(se/float64(3*w*h)))
			}
			t.Logf("%s %dx%d q=%d: %d bytes, chromium %.2f dB", Backend, w, h, q, len(j), p)
			if p < minPSNR[q]-1 {
				t.Errorf("%s %dx%d q=%d: chromium's picture is %.2f dB from the input, want at least %.0f", Backend, w, h, q, p, minPSNR[q]-1)
			}
		}
	}
}
