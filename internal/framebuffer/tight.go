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

// Tight (RFB 7.7.5), framed by rfb.ServerFramer: a compression control
// byte (its low four bits reset zlib streams 0-3; its high four say fill,
// JPEG, or basic compression with a stream in bits 4-5 and an explicit
// filter id if bit 6 is set), then the sub-encoding's headers and data. A
// TPIXEL is 3 bytes, R, G, B.

func (d *Decoder) tightRect() error {
	h, err := d.header() // the control byte
	if err != nil {
		return err
	}
	ctl := h.Control
	for i := range 4 {
		if ctl&(1<<i) != 0 {
			d.tight[i].reset()
			d.stats.TightResets++
		}
	}
	x, y, w, ht := d.rx, d.ry, d.rw, d.rh
	switch ctl >> 4 {
	case rfb.TightFill:
		d.stats.TightFill++
		d.kind = rfb.KindTightFill
		b, err := d.rd.next(3)
		if err != nil {
			return err
		}
		if !d.Skip {
			d.fb.fill(x, y, w, ht, b[0], b[1], b[2])
		}
		return nil
	case rfb.TightJPEG:
		d.stats.TightJPEG++
		d.kind = rfb.KindTightJPEG
		return d.tightJPEG()
	}
	return d.tightBasic(int(ctl>>4&3), h)
}

func (d *Decoder) tightJPEG() error {
	h, err := d.header() // its compact length
	if err != nil {
		return err
	}
	n := int(h.Payload)
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

// tightBasic decodes basic compression: h is the control byte's header,
// after which come the filter id (when explicit), the palette's, and the
// pixel data, as they are under rfb.TightMinCompress bytes or after a
// compact length as zlib data of the given stream.
func (d *Decoder) tightBasic(stream int, h *rfb.Header) (err error) {
	if h.Control&rfb.TightExplicit != 0 {
		if h, err = d.header(); err != nil { // the filter id
			return err
		}
	}
	w, ht := d.rw, d.rh
	pal := &d.pal
	ncol := 0
	filter := byte(rfb.TightFilterCopy)
	switch h.Kind {
	case rfb.KindTightCopy:
		d.stats.TightCopy++
	case rfb.KindTightGradient:
		d.stats.TightGradient++
		filter = rfb.TightFilterGradient
	case rfb.KindTightPalette:
		d.stats.TightPalette++
		filter = rfb.TightFilterPalette
		if h, err = d.header(); err != nil { // the palette's size
			return err
		}
		ncol = h.Colours
		if err := d.rd.readFull(pal[:3*ncol]); err != nil {
			return err
		}
	}
	d.kind = h.Kind
	n := int(h.Data)
	clen := n // as it comes: under 12 bytes as it is, else zlib after a compact length
	if n >= rfb.TightMinCompress {
		if h, err = d.header(); err != nil {
			return err
		}
		if clen = int(h.Payload); clen > zlibBound(n) {
			return d.failf("Tight zlib data of %d bytes beyond the %d that %d bytes of pixels justify", clen, zlibBound(n), n)
		}
	} else {
		d.stats.TightUncompressed++
	}
	if d.Skip {
		return d.rd.discard(int64(clen))
	}
	data := d.scratch(n)
	if n < rfb.TightMinCompress {
		if err := d.rd.readFull(data); err != nil {
			return err
		}
	} else {
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
		for yy := range ht {
			copyPixels(d.fb.row(d.rx, d.ry+yy, w), data[yy*w*3:yy*w*3+w*3])
		}
	case rfb.TightFilterPalette:
		for yy := range ht {
			row := d.fb.row(d.rx, d.ry+yy, w)
			for xx := range w {
				var i int
				if ncol <= 2 { // a bit a pixel, rows padded to bytes
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
		for yy := range ht {
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
