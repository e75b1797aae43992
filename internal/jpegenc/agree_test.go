//go:build turbojpeg && cgo

package jpegenc

import (
	"testing"
)

// TestBackendsAgree: libjpeg-turbo and the pure Go encoder give the same
// picture for the same call: PSNR within 1 dB of each other and sizes
// within 6 % (libjpeg-turbo also writes a JFIF segment and one segment a
// table: 34 bytes), on every benchmark content at TigerVNC's qualities
// and the extremes. From quality 96 the Go encoder may be better: it
// transforms luminance unrounded, where libjpeg rounds it to 8 bits
// first, which at quantisation steps of 1 costs libjpeg up to 1.5 dB and
// half as many bytes again on a smooth picture.
func TestBackendsAgree(t *testing.T) {
	const W, H = 320, 200
	for _, kind := range append(contents, "smooth") {
		pix := screen(kind, W, H, 4)
		for _, q := range append(benchQualities, 1, 100) {
			var tj Encoder
			var g goEncoder
			a, err := tj.Append(nil, pix, 4*W, W, H, q)
			if err != nil {
				t.Fatal(err)
			}
			b := g.append(nil, pix, 4*W, W, H, q)
			pa, pb := psnr(t, a, pix, 4*W, W, H), psnr(t, b, pix, 4*W, W, H)
			ratio := float64(len(a)-34) / float64(len(b))
			t.Logf("%s q=%d: turbojpeg %d bytes %.2f dB, go %d bytes %.2f dB", kind, q, len(a), pa, len(b), pb)
			worse := pb < pa-1 || ratio < 1/1.06 // the Go encoder's
			better := pb > pa+1 || ratio > 1.06
			if worse || better && q < 96 {
				t.Errorf("%s q=%d: turbojpeg %d bytes at %.2f dB, go %d bytes at %.2f dB", kind, q, len(a), pa, len(b), pb)
			}
		}
	}
}
