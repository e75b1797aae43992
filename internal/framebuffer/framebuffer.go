package framebuffer

import "fmt"

// Framebuffer is a screen of Width×Height pixels in NoVNCFormat: row-major,
// 4 bytes a pixel (R, G, B, 0 in memory), stride 4·Width.
type Framebuffer struct {
	w, h int
	pix  []byte
}

// New returns a black framebuffer of w×h pixels in format pf, which must be
// NoVNCFormat.
func New(w, h int, pf PixelFormat) (*Framebuffer, error) {
	if err := pf.Check(); err != nil {
		return nil, err
	}
	f := &Framebuffer{}
	if err := f.Resize(w, h); err != nil {
		return nil, err
	}
	return f, nil
}

// Width is the width in pixels.
func (f *Framebuffer) Width() int { return f.w }

// Height is the height in pixels.
func (f *Framebuffer) Height() int { return f.h }

// Format is the pixel format, always NoVNCFormat.
func (f *Framebuffer) Format() PixelFormat { return NoVNCFormat }

// Pix is the pixels, 4·Width bytes a row. It aliases the framebuffer until
// the next Resize or decoded update.
func (f *Framebuffer) Pix() []byte { return f.pix }

// Resize makes the framebuffer w×h pixels (0 to 65535 each, as RFB's
// sizes are), keeping the pixels the old and new sizes share and making
// the rest black. It reuses its memory when it can.
func (f *Framebuffer) Resize(w, h int) error { return f.resize(w, h, 0) }

// resize is Resize that, when it must allocate, reserves room for growth
// up to reserve bytes (the Decoder's limit), so that a peer that grows the
// screen step by step makes it allocate a few times, not at every step.
func (f *Framebuffer) resize(w, h, reserve int) error {
	if w < 0 || h < 0 || w > 65535 || h > 65535 {
		return fmt.Errorf("framebuffer: size %dx%d out of range", w, h)
	}
	n := w * h * BytesPerPixel
	old, ow, oh := f.pix, f.w, f.h
	if w == ow && h == oh {
		return nil
	}
	var pix []byte
	cw, ch := min(w, ow), min(h, oh) // what the two sizes share
	if cap(old) >= n {
		// in place: rows move up when the stride shrinks, down (from the
		// last) when it grows; then what is new is cleared
		pix = old[:max(n, len(old))]
		if w <= ow {
			for y := 1; y < ch; y++ {
				copy(pix[y*w*BytesPerPixel:][:cw*BytesPerPixel], pix[y*ow*BytesPerPixel:])
			}
		} else {
			for y := ch - 1; y >= 0; y-- {
				copy(pix[y*w*BytesPerPixel:][:cw*BytesPerPixel], pix[y*ow*BytesPerPixel:][:cw*BytesPerPixel])
				clear(pix[(y*w+cw)*BytesPerPixel : (y+1)*w*BytesPerPixel])
			}
		}
		pix = pix[:n]
		if w < ow {
			for y := range ch {
				clear(pix[(y*w+cw)*BytesPerPixel : (y+1)*w*BytesPerPixel])
			}
		}
		clear(pix[ch*w*BytesPerPixel:])
	} else {
		pix = make([]byte, n, max(n, min(2*cap(old), reserve)))
		for y := range ch {
			copy(pix[y*w*BytesPerPixel:][:cw*BytesPerPixel], old[y*ow*BytesPerPixel:])
		}
	}
	f.pix, f.w, f.h = pix, w, h
	return nil
}

// Region appends the pixels of the rectangle at (x, y) of w×h to dst, row
// after row, 4·w bytes a row, and returns the result. The rectangle must
// lie inside the framebuffer.
func (f *Framebuffer) Region(dst []byte, x, y, w, h int) ([]byte, error) {
	if !f.inside(x, y, w, h) {
		return dst, fmt.Errorf("framebuffer: region %dx%d at (%d,%d) outside the %dx%d framebuffer", w, h, x, y, f.w, f.h)
	}
	for r := y; r < y+h; r++ {
		o := (r*f.w + x) * BytesPerPixel
		dst = append(dst, f.pix[o:o+w*BytesPerPixel]...)
	}
	return dst, nil
}

// At returns the red, green and blue of the pixel at (x, y), which must be
// inside.
func (f *Framebuffer) At(x, y int) (r, g, b uint8) {
	o := (y*f.w + x) * BytesPerPixel
	return f.pix[o], f.pix[o+1], f.pix[o+2]
}

func (f *Framebuffer) inside(x, y, w, h int) bool {
	return x >= 0 && y >= 0 && w >= 0 && h >= 0 && x+w <= f.w && y+h <= f.h
}

// row returns the w pixels of row y from column x.
func (f *Framebuffer) row(x, y, w int) []byte {
	o := (y*f.w + x) * BytesPerPixel
	return f.pix[o : o+w*BytesPerPixel]
}

// fill paints the rectangle (inside) in one colour.
func (f *Framebuffer) fill(x, y, w, h int, r, g, b uint8) {
	for yy := y; yy < y+h; yy++ {
		row := f.row(x, yy, w)
		for i := 0; i < len(row); i += 4 {
			row[i], row[i+1], row[i+2], row[i+3] = r, g, b, 0
		}
	}
}

// copyRect copies the w×h pixels at (sx, sy) to (dx, dy), both inside,
// overlapping or not.
func (f *Framebuffer) copyRect(dx, dy, sx, sy, w, h int) {
	if sy < dy { // bottom-up, so that no source row is overwritten before it is read
		for r := h - 1; r >= 0; r-- {
			copy(f.row(dx, dy+r, w), f.row(sx, sy+r, w))
		}
		return
	}
	for r := range h {
		copy(f.row(dx, dy+r, w), f.row(sx, sy+r, w)) // copy is memmove within a row
	}
}
