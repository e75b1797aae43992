package framebuffer

import "encoding/binary"

// skipPixels reads past a pixel rectangle's data without decoding it (the
// Decoder's Skip mode): the same framing and the same limits as decoding,
// none of the work. Its zlib data is not inflated, so a Decoder that has
// skipped a zlib rectangle cannot decode that stream's later ones.
func (d *Decoder) skipPixels() error {
	w, h := d.rw, d.rh
	switch d.enc {
	case EncodingRaw:
		d.stats.Raw++
		d.kind = KindRaw
		return d.rd.discard(int64(w) * int64(h) * BytesPerPixel)
	case EncodingCopyRect:
		d.stats.CopyRect++
		d.kind = KindCopyRect
		b, err := d.rd.next(4)
		if err != nil {
			return err
		}
		if sx, sy := int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:])); !d.fb.inside(sx, sy, w, h) {
			return d.failf("CopyRect source at (%d,%d) outside the %dx%d framebuffer", sx, sy, d.fb.w, d.fb.h)
		}
		return nil
	case EncodingZRLE:
		d.stats.ZRLE++
		d.kind = KindZRLE
		b, err := d.rd.next(4)
		if err != nil {
			return err
		}
		n := int64(binary.BigEndian.Uint32(b))
		if bound := zlibBound(zrleBound(w, h)); n > int64(bound) {
			return d.failf("ZRLE length %d beyond the %d bytes a %dx%d rectangle can take", n, bound, w, h)
		}
		return d.rd.discard(n)
	}
	// Tight
	d.stats.Tight++
	ctl, err := d.rd.ReadByte()
	if err != nil {
		return err
	}
	switch kind := ctl >> 4; {
	case kind == tightFill:
		d.stats.TightFill++
		d.kind = KindTightFill
		return d.rd.discard(3)
	case kind == tightJPEG:
		d.stats.TightJPEG++
		d.kind = KindTightJPEG
		n, err := d.compactLen()
		if err != nil {
			return err
		}
		if limit := min(d.lim.MaxJPEG, 6*w*h+4096); n > limit {
			return d.failf("JPEG of %d bytes beyond the limit %d for a %dx%d rectangle", n, limit, w, h)
		}
		return d.rd.discard(int64(n))
	case kind == tightPNG:
		return d.failf("Tight PNG (TightPNG's sub-encoding) is not decoded")
	case kind > tightPNG:
		return d.failf("Tight compression control 0x%02x: no such compression", ctl)
	}
	filter := byte(filterCopy)
	if ctl&0x40 != 0 {
		if filter, err = d.rd.ReadByte(); err != nil {
			return err
		}
	}
	n := 0
	switch filter {
	case filterCopy:
		d.stats.TightCopy++
		d.kind = KindTightCopy
		n = w * h * 3
	case filterGrad:
		d.stats.TightGradient++
		d.kind = KindTightGradient
		n = w * h * 3
	case filterPalette:
		d.stats.TightPalette++
		d.kind = KindTightPalette
		c, err := d.rd.ReadByte()
		if err != nil {
			return err
		}
		if err := d.rd.discard(3 * (int64(c) + 1)); err != nil {
			return err
		}
		if n = w * h; c == 1 {
			n = (w + 7) / 8 * h
		}
	default:
		return d.failf("Tight filter %d (0 copy, 1 palette, 2 gradient exist)", filter)
	}
	if n < tightMinZlib {
		d.stats.TightUncompressed++
		return d.rd.discard(int64(n))
	}
	clen, err := d.compactLen()
	if err != nil {
		return err
	}
	if clen > zlibBound(n) {
		return d.failf("Tight zlib data of %d bytes beyond the %d that %d bytes of pixels justify", clen, zlibBound(n), n)
	}
	return d.rd.discard(int64(clen))
}
