package jpegenc

import (
	"math"
	"math/rand/v2"
)

// Screen-like test content, seeded: what glass encodes as JPEG. Each is a
// whole screen of 4-byte pixels (R, G, B, 0); tests and benchmarks encode
// regions of it with the screen's stride, as the framebuffer's encoder
// does.

// contents names the kinds of screen content, in a stable order.
var contents = []string{"text", "photo", "ui"}

// screen returns a w×h screen of the kind (text, photo or ui; or smooth,
// the photo with a twentieth of its noise, for the quality tests), made
// from seed.
func screen(kind string, w, h int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x6a706567))
	pix := make([]byte, 4*w*h)
	switch kind {
	case "text":
		paintText(pix, w, h, rng)
	case "photo":
		paintPhoto(pix, w, h, rng, 8)
	case "smooth":
		paintPhoto(pix, w, h, rng, 0.4)
	case "ui":
		paintUI(pix, w, h, rng)
	default:
		panic("unknown content " + kind)
	}
	return pix
}

// paintText draws lines of anti-aliased glyphs on white: each glyph a few
// strokes (vertical, horizontal, diagonal, 1.3 px wide) whose edge pixels
// get partial coverage, most in near-black, some lines link-blue.
func paintText(pix []byte, w, h int, rng *rand.Rand) {
	for i := range pix {
		if i%4 != 3 {
			pix[i] = 255
		}
	}
	cov := make([]float64, w*h)
	for top := 4; top+14 < h; top += 18 {
		ink := [3]float64{20, 20, 24}
		if rng.IntN(6) == 0 {
			ink = [3]float64{26, 13, 171}
		}
		x := 8 + rng.IntN(24)
		end := w - 8 - rng.IntN(w/3+1)
		for x+8 < end {
			gw := 5 + rng.IntN(4)
			for range 2 + rng.IntN(3) {
				x0, y0 := float64(x+rng.IntN(gw)), float64(top+rng.IntN(4))
				x1, y1 := float64(x+rng.IntN(gw)), float64(top+8+rng.IntN(6))
				switch rng.IntN(3) {
				case 0:
					x1 = x0
				case 1:
					y1 = y0 + float64(rng.IntN(2))
					x1 = float64(x + gw)
				}
				stroke(cov, w, x0, y0, x1, y1)
			}
			x += gw + 2
			if rng.IntN(6) == 0 {
				x += 5 // a space
			}
		}
		for y := top - 2; y < top+16 && y < h; y++ {
			for xx := range w {
				c := min(cov[y*w+xx], 1)
				cov[y*w+xx] = 0
				p := pix[4*(y*w+xx):]
				for k := range 3 {
					p[k] = byte(math.Round(255*(1-c) + ink[k]*c))
				}
			}
		}
	}
}

// stroke adds to cov the coverage of a segment 1.3 px wide, falling off
// over one pixel at its edges.
func stroke(cov []float64, w int, x0, y0, x1, y1 float64) {
	h := len(cov) / w
	dx, dy := x1-x0, y1-y0
	l2 := max(dx*dx+dy*dy, 1e-9)
	for y := max(int(min(y0, y1))-2, 0); y <= min(int(max(y0, y1))+2, h-1); y++ {
		for x := max(int(min(x0, x1))-2, 0); x <= min(int(max(x0, x1))+2, w-1); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := min(max(((px-x0)*dx+(py-y0)*dy)/l2, 0), 1)
			d := math.Hypot(px-(x0+t*dx), py-(y0+t*dy))
			cov[y*w+x] += min(max(1.15-d, 0), 1)
		}
	}
}

// paintPhoto draws smooth gradients and low-frequency waves with noise of
// standard deviation sigma on top: a photo or a video frame.
func paintPhoto(pix []byte, w, h int, rng *rand.Rand, sigma float64) {
	var f [3][2]float64
	for k := range f {
		f[k] = [2]float64{0.01 + 0.05*rng.Float64(), 0.01 + 0.05*rng.Float64()}
	}
	for y := range h {
		for x := range w {
			p := pix[4*(y*w+x):]
			for k := range 3 {
				v := 60 + 120*float64(x+k*y)/float64(w+h) + 40*math.Sin(f[k][0]*float64(x))*math.Cos(f[k][1]*float64(y)) + rng.NormFloat64()*sigma
				p[k] = byte(min(max(math.Round(v), 0), 255))
			}
		}
	}
}

// paintUI draws a flat interface of a few colours: a title bar, a side
// panel, a content area with cards, buttons and rules.
func paintUI(pix []byte, w, h int, rng *rand.Rand) {
	palette := [][3]byte{{246, 247, 249}, {255, 255, 255}, {32, 33, 36}, {26, 115, 232}, {218, 220, 224}, {52, 168, 83}}
	fill := func(x0, y0, x1, y1 int, c [3]byte) {
		for y := max(y0, 0); y < min(y1, h); y++ {
			for x := max(x0, 0); x < min(x1, w); x++ {
				copy(pix[4*(y*w+x):], c[:])
			}
		}
	}
	fill(0, 0, w, h, palette[0])
	fill(0, 0, w, 40, palette[2])
	fill(0, 40, w/5, h, palette[4])
	for y := 56; y+60 < h; y += 80 + rng.IntN(40) {
		x := w/5 + 16 + rng.IntN(32)
		cw := w/3 + rng.IntN(w/3+1)
		fill(x-1, y-1, x+cw+1, y+61, palette[4])
		fill(x, y, x+cw, y+60, palette[1])
		fill(x+12, y+36, x+12+80, y+52, palette[3+rng.IntN(3)])
		fill(x+12, y+12, x+cw-12, y+14, palette[2])
	}
}
