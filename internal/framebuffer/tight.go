package framebuffer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/wirebench/wirebench/internal/rfb"
)

// Tight (RFB 7.7.5). A rectangle starts with a compression-control byte:
// its low four bits reset zlib streams 0-3; its high four say fill (8),
// JPEG (9), or basic compression (0-7: stream in bits 4-5, an explicit
// filter id follows if bit 6 is set). A TPIXEL is 3 bytes, R, G, B.

// compactLen reads Tight's compact length (1 to 3 bytes).
func (d *Decoder) compactLen() (int, error) {
	n := 0
	for i := range 3 {
		c, err := d.rd.ReadByte()
		if err != nil {
			return 0, err
		}
		if i == 2 {
			return n | int(c)<<14, nil
		}
		n |= int(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return n, nil
		}
	}
	return n, nil
}

func (d *Decoder) tightRect() error {
	ctl, err := d.rd.ReadByte()
	if err != nil {
		return err
	}
	for i := range 4 {
		if ctl&(1<<i) != 0 {
			d.tight[i].reset()
			d.stats.TightResets++
		}
	}
	x, y, w, h := d.rx, d.ry, d.rw, d.rh
	switch kind := ctl >> 4; {
	case kind == rfb.TightFill:
		d.stats.TightFill++
		d.kind = KindTightFill
		b, err := d.rd.next(3)
		if err != nil {
			return err
		}
		if !d.Skip {
			d.fb.fill(x, y, w, h, b[0], b[1], b[2])
		}
		return nil
	case kind == rfb.TightJPEG:
		d.stats.TightJPEG++
		d.kind = KindTightJPEG
		return d.tightJPEG()
	case kind == rfb.TightPNG:
		return d.failf("Tight PNG (TightPNG's sub-encoding) is not decoded")
	case kind > rfb.TightPNG:
		return d.failf("Tight compression control 0x%02x: no such compression", ctl)
	default:
		return d.tightBasic(int(kind&3), kind&4 != 0)
	}
}

func (d *Decoder) tightJPEG() error {
	n, err := d.compactLen()
	if err != nil {
		return err
	}
	limit := min(d.lim.MaxJPEG, 6*d.rw*d.rh+4096)
	if n > limit {
		return d.failf("JPEG of %d bytes beyond the limit %d for a %dx%d rectangle", n, limit, d.rw, d.rh)
	}
	if d.Skip {
		return d.rd.discard(int64(n))
	}
	data := d.scratch(n)
	if err := d.rd.readFull(data); err != nil {
		return err
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return d.failf("JPEG header: %v", err)
	}
	if cfg.Width != d.rw || cfg.Height != d.rh {
		return d.failf("JPEG of %dx%d in a %dx%d rectangle", cfg.Width, cfg.Height, d.rw, d.rh)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return d.failf("JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != d.rw || b.Dy() != d.rh {
		return d.failf("JPEG decoded to %dx%d in a %dx%d rectangle", b.Dx(), b.Dy(), d.rw, d.rh)
	}
	switch m := img.(type) {
	case *image.YCbCr:
		for yy := range d.rh {
			row := d.fb.row(d.rx, d.ry+yy, d.rw)
			for xx := range d.rw {
				yi, ci := m.YOffset(xx, yy), m.COffset(xx, yy)
				r, g, b := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				row[4*xx], row[4*xx+1], row[4*xx+2], row[4*xx+3] = r, g, b, 0
			}
		}
	case *image.Gray:
		for yy := range d.rh {
			row := d.fb.row(d.rx, d.ry+yy, d.rw)
			src := m.Pix[yy*m.Stride:]
			for xx := range d.rw {
				v := src[xx]
				row[4*xx], row[4*xx+1], row[4*xx+2], row[4*xx+3] = v, v, v, 0
			}
		}
	default:
		return d.failf("JPEG in colour model %T (YCbCr and grey are decoded)", img)
	}
	return nil
}

// tightZlibLen reads the compact length of the zlib data that n filtered
// bytes come in, checked against what zlib can make of n bytes.
func (d *Decoder) tightZlibLen(n int) (int, error) {
	clen, err := d.compactLen()
	if err != nil {
		return 0, err
	}
	if clen > zlibBound(n) {
		return 0, d.failf("Tight zlib data of %d bytes beyond the %d that %d bytes of pixels justify", clen, zlibBound(n), n)
	}
	return clen, nil
}

func (d *Decoder) tightBasic(stream int, explicit bool) (err error) {
	filter := byte(rfb.TightFilterCopy)
	if explicit {
		if filter, err = d.rd.ReadByte(); err != nil {
			return err
		}
	}
	w, h := d.rw, d.rh
	pal := &d.pal
	ncol, n := 0, 0
	switch filter {
	case rfb.TightFilterCopy:
		d.stats.TightCopy++
		d.kind = KindTightCopy
		n = w * h * 3
	case rfb.TightFilterGradient:
		d.stats.TightGradient++
		d.kind = KindTightGradient
		n = w * h * 3
	case rfb.TightFilterPalette:
		d.stats.TightPalette++
		d.kind = KindTightPalette
		c, err := d.rd.ReadByte()
		if err != nil {
			return err
		}
		ncol = int(c) + 1
		if err := d.rd.readFull(pal[:3*ncol]); err != nil {
			return err
		}
		if ncol == 2 {
			n = (w + 7) / 8 * h
		} else {
			n = w * h
		}
	default:
		return d.failf("Tight filter %d (0 copy, 1 palette, 2 gradient exist)", filter)
	}
	if d.Skip { // its data as it comes: under 12 bytes, or a compact length of zlib
		clen := n
		if n < rfb.TightMinCompress {
			d.stats.TightUncompressed++
		} else if clen, err = d.tightZlibLen(n); err != nil {
			return err
		}
		return d.rd.discard(int64(clen))
	}
	data := d.scratch(n)
	if n < rfb.TightMinCompress {
		d.stats.TightUncompressed++
		if err := d.rd.readFull(data); err != nil {
			return err
		}
	} else {
		clen, err := d.tightZlibLen(n)
		if err != nil {
			return err
		}
		z := &d.tight[stream]
		if err := z.begin(d.rd, clen, n); err != nil {
			return d.fail(fmt.Errorf("zlib stream %d: %w", stream, err))
		}
		if err := z.full(data); err != nil {
			return d.fail(fmt.Errorf("zlib stream %d: %w", stream, err))
		}
		if err := z.end(); err != nil {
			return d.fail(fmt.Errorf("zlib stream %d: %w", stream, err))
		}
	}
	d.basic = TightBasic{Filter: filter, Palette: pal[:3*ncol], Data: data}
	switch filter {
	case rfb.TightFilterCopy:
		for yy := range h {
			copyPixels(d.fb.row(d.rx, d.ry+yy, w), data[yy*w*3:yy*w*3+w*3])
		}
	case rfb.TightFilterPalette:
		for yy := range h {
			row := d.fb.row(d.rx, d.ry+yy, w)
			for xx := range w {
				var i int
				if ncol == 2 {
					i = int(data[yy*((w+7)/8)+xx/8]>>(7-xx%8)) & 1
				} else {
					i = int(data[yy*w+xx])
				}
				if i >= ncol {
					return d.failf("palette index %d of a %d-colour palette at (%d,%d)", i, ncol, d.rx+xx, d.ry+yy)
				}
				row[4*xx], row[4*xx+1], row[4*xx+2], row[4*xx+3] = pal[3*i], pal[3*i+1], pal[3*i+2], 0
			}
		}
	case rfb.TightFilterGradient:
		// Each channel is predicted as left + above - above-left (0 outside
		// the rectangle), clamped to 0..255, and the data is the
		// difference modulo 256. The rows above are the decoded ones.
		for yy := range h {
			row, src := d.fb.row(d.rx, d.ry+yy, w), data[yy*w*3:]
			var up []byte
			if yy > 0 {
				up = d.fb.row(d.rx, d.ry+yy-1, w)
			}
			for xx := range w {
				for c := range 3 {
					var left, above, corner int
					if xx > 0 {
						left = int(row[4*(xx-1)+c])
					}
					if up != nil {
						above = int(up[4*xx+c])
						if xx > 0 {
							corner = int(up[4*(xx-1)+c])
						}
					}
					p := min(max(left+above-corner, 0), 255)
					row[4*xx+c] = byte(p + int(src[3*xx+c]))
				}
				row[4*xx+3] = 0
			}
		}
	}
	return nil
}

// copyPixels widens src's 3-byte pixels into dst's 4-byte ones (padding
// 0): a 4-byte load and store a pixel while 4 bytes remain in src.
func copyPixels(dst, src []byte) {
	n := len(src) / 3
	dst = dst[:4*n]
	i := 0
	for ; i+1 < n; i++ {
		v := binary.LittleEndian.Uint32(src[3*i:]) & 0xffffff
		binary.LittleEndian.PutUint32(dst[4*i:], v)
	}
	if i < n {
		dst[4*i], dst[4*i+1], dst[4*i+2], dst[4*i+3] = src[3*i], src[3*i+1], src[3*i+2], 0
	}
}
