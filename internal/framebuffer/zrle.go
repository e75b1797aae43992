package framebuffer

import (
	"fmt"
)

// ZRLE (RFB 7.7.6): u32 length, then that many bytes of the connection's
// one zlib stream, inflating to 64×64 tiles left to right, top to bottom.
// A CPIXEL is 3 bytes here (R, G, B: the pixel's low three bytes).

const zrleTile = 64

// zrleBound is the most inflated bytes a w×h ZRLE rectangle can take: per
// tile a sub-encoding byte and a palette of up to 127 CPIXELs, and per
// pixel at most 4 bytes (plain RLE of runs of 1: CPIXEL and a run byte).
func zrleBound(w, h int) int {
	tiles := ((w + zrleTile - 1) / zrleTile) * ((h + zrleTile - 1) / zrleTile)
	return tiles*(1+127*3) + 4*w*h
}

// zlibBound is the most compressed bytes n inflated bytes justify
// (stored blocks cost 5 bytes each 64 KiB; the stream header, flushes).
func zlibBound(n int) int { return n + n/64 + 64 }

// zrleRect decodes a ZRLE rectangle's n bytes of zlib data (its u32
// length was framed with the rectangle's header).
func (d *Decoder) zrleRect(n int64) error {
	bound := zrleBound(d.rw, d.rh)
	if n > int64(zlibBound(bound)) {
		return d.failf("ZRLE length %d beyond the %d bytes a %dx%d rectangle can take", n, zlibBound(bound), d.rw, d.rh)
	}
	if d.Skip {
		return d.rd.discard(n)
	}
	z := &d.zrle
	if err := z.begin(d.rd, int(n), bound); err != nil {
		return d.fail(err)
	}
	for ty := d.ry; ty < d.ry+d.rh; ty += zrleTile {
		th := min(zrleTile, d.ry+d.rh-ty)
		for tx := d.rx; tx < d.rx+d.rw; tx += zrleTile {
			tw := min(zrleTile, d.rx+d.rw-tx)
			if err := d.zrleTileAt(z, tx, ty, tw, th); err != nil {
				return d.fail(fmt.Errorf("tile at (%d,%d): %w", tx, ty, err))
			}
		}
	}
	if err := z.end(); err != nil {
		return d.fail(err)
	}
	return nil
}

func (d *Decoder) zrleTileAt(z *zstream, tx, ty, tw, th int) error {
	sub, err := z.byte()
	if err != nil {
		return err
	}
	pal := &d.pal // a palette, or a solid tile's CPIXEL (in the Decoder: it would escape to the heap here)
	switch {
	case sub == 0: // raw CPIXELs
		d.stats.ZRLERaw++
		t := d.tile[:tw*th*3]
		if err := z.full(t); err != nil {
			return err
		}
		for y := range th {
			row := d.fb.row(tx, ty+y, tw)
			src := t[y*tw*3:]
			for x := range tw {
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = src[3*x], src[3*x+1], src[3*x+2], 0
			}
		}
		return nil
	case sub == 1: // solid
		d.stats.ZRLESolid++
		if err := z.full(pal[:3]); err != nil {
			return err
		}
		d.fb.fill(tx, ty, tw, th, pal[0], pal[1], pal[2])
		return nil
	case sub <= 16: // packed palette
		d.stats.ZRLEPacked++
		p := int(sub)
		if err := z.full(pal[:3*p]); err != nil {
			return err
		}
		bits := 4
		if p == 2 {
			bits = 1
		} else if p <= 4 {
			bits = 2
		}
		stride := (tw*bits + 7) / 8
		t := d.tile[:stride*th]
		if err := z.full(t); err != nil {
			return err
		}
		mask := byte(1)<<bits - 1
		for y := range th {
			row := d.fb.row(tx, ty+y, tw)
			src := t[y*stride:]
			for x := range tw {
				bit := x * bits
				i := int(src[bit/8]>>(8-bits-bit%8)) & int(mask)
				if i >= p {
					return fmt.Errorf("palette index %d of a %d-colour palette", i, p)
				}
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = pal[3*i], pal[3*i+1], pal[3*i+2], 0
			}
		}
		return nil
	case sub == 128: // plain RLE
		d.stats.ZRLERLE++
		return d.zrleRuns(z, tx, ty, tw, th, nil, 0)
	case sub >= 130: // palette RLE
		d.stats.ZRLEPaletteRLE++
		p := int(sub) - 128
		if err := z.full(pal[:3*p]); err != nil {
			return err
		}
		return d.zrleRuns(z, tx, ty, tw, th, pal[:3*p], p)
	}
	return fmt.Errorf("ZRLE sub-encoding %d is unused", sub)
}

// zrleRuns decodes a tile of runs: with pal nil, each run is a CPIXEL and
// a run length; with a palette of p colours, an index byte whose top bit
// says a run length follows.
func (d *Decoder) zrleRuns(z *zstream, tx, ty, tw, th int, pal []byte, p int) error {
	total, done := tw*th, 0
	px := d.pal[len(d.pal)-3:] // the run's colour (the palette's slots past 127 colours are free)
	for done < total {
		run, hasRun := 1, true
		if pal == nil {
			if err := z.full(px); err != nil {
				return err
			}
		} else {
			c, err := z.byte()
			if err != nil {
				return err
			}
			i := int(c & 127)
			if i >= p {
				return fmt.Errorf("palette index %d of a %d-colour palette", i, p)
			}
			copy(px, pal[3*i:])
			hasRun = c&128 != 0
		}
		for hasRun {
			c, err := z.byte()
			if err != nil {
				return err
			}
			run += int(c)
			if run > total-done {
				return fmt.Errorf("run of at least %d pixels with %d left in the tile", run, total-done)
			}
			hasRun = c == 255
		}
		for k := done; k < done+run; k++ {
			o := (ty+k/tw)*d.fb.w*BytesPerPixel + (tx+k%tw)*BytesPerPixel
			d.fb.pix[o], d.fb.pix[o+1], d.fb.pix[o+2], d.fb.pix[o+3] = px[0], px[1], px[2], 0
		}
		done += run
	}
	return nil
}
