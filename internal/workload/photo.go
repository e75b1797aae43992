package workload

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
)

// Photo's size in pixels.
const (
	PhotoWidth  = 480
	PhotoHeight = 320
)

// photoSeed fixes the photo's noise, so every run serves the same bytes.
const photoSeed = 0x5eed_f070

// Photo returns the photo-like image: smooth colour gradients, soft
// round shapes and per-pixel noise, the mix that makes a photograph hard
// to compress losslessly, from a fixed seed.
func Photo() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, PhotoWidth, PhotoHeight))
	r := rand.New(rand.NewPCG(photoSeed, photoSeed>>7))
	type blob struct{ x, y, rad, r, g, b float64 }
	blobs := make([]blob, 7)
	for i := range blobs {
		blobs[i] = blob{r.Float64() * PhotoWidth, r.Float64() * PhotoHeight, 30 + r.Float64()*90,
			r.Float64() * 255, r.Float64() * 255, r.Float64() * 255}
	}
	for y := range PhotoHeight {
		fy := float64(y) / PhotoHeight
		for x := range PhotoWidth {
			fx := float64(x) / PhotoWidth
			// A sky-to-ground gradient with a slow wave through it.
			cr := 70 + 120*fy + 30*math.Sin(fx*5+fy*3)
			cg := 110 + 70*math.Sin(fx*2.5) + 40*fy
			cb := 200 - 140*fy + 25*math.Cos(fy*7-fx*2)
			for _, b := range blobs {
				d := math.Hypot(float64(x)-b.x, float64(y)-b.y) / b.rad
				if d < 1.5 {
					w := math.Exp(-d * d * 2)
					cr, cg, cb = cr*(1-w)+b.r*w, cg*(1-w)+b.g*w, cb*(1-w)+b.b*w
				}
			}
			n := r.NormFloat64() * 9 // sensor noise
			img.SetRGBA(x, y, color.RGBA{clamp(cr + n), clamp(cg + n), clamp(cb + n), 255})
		}
	}
	return img
}

func clamp(v float64) uint8 {
	return uint8(math.Round(max(0, min(255, v))))
}

// photoPNG is Photo encoded as PNG.
func photoPNG() ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, Photo()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
