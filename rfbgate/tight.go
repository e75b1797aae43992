package rfbgate

import (
	"fmt"

	"github.com/wirebench/wirebench/internal/rfb"
)

// Tight (encoding 7), framed from its headers alone, never decoded. After
// the rectangle header comes a compression control byte: its low nibble
// tells the viewer which of its four zlib streams to reset (nothing to
// frame), its high nibble what follows:
//
//	8      fill: one TPIXEL
//	9      JPEG: a compact length, then that many bytes of JPEG
//	0..7   basic: bits 4-5 name a zlib stream; with bit 6 (0x40) a filter id
//	       byte follows (0 copy, 1 palette, 2 gradient), without it the
//	       filter is copy. Palette: one byte, colours-1, then that many
//	       TPIXELs. Then the pixel data: under 12 bytes before compression
//	       they come as they are (their size follows from the rectangle,
//	       the filter and the pixel format), from 12 on as a compact
//	       length and that many zlib bytes.
//	10     PNG, which only TightPNG (-260) has; an error here, as in noVNC
//	11..15 invalid
//
// A TPIXEL is 3 bytes (R, G, B) when the pixel format is 32 bits per
// pixel, depth 24, true colour, all three maxima 255 (noVNC's and Xvnc's),
// else bits-per-pixel/8 bytes. Data sizes before compression: palette of
// 1 or 2 colours, a bit a pixel with rows padded to bytes; more colours, a
// byte a pixel; copy and gradient, a TPIXEL a pixel. The gradient filter
// is refused at 8 bits per pixel (TigerVNC's decoder refuses it there).
// A compact length is 1 to 3 bytes, 7, 7 and 8 bits, low bits first, a
// byte's top bit set when another follows (the third has none).
//
// The rectangle is a chain of phases, each a short header the filter reads
// whole (control, filter id, palette size, compact length) followed by a
// payload it passes by length (the fill pixel, the palette with small
// data after it, the compressed data), so memory stays bounded whatever a
// length claims and a 256-colour palette is never held as a header.

// tightPhase is the next header of a Tight rectangle.
type tightPhase uint8

const (
	tightNone    tightPhase = iota // not in a Tight rectangle
	tightControl                   // the compression control byte
	tightFilter                    // the filter id byte
	tightPalette                   // the palette's size byte (colours-1)
	tightLength                    // a compact length, then that many bytes
)

// maxTightData is the most bytes a Tight compact length may claim (JPEG or
// zlib data of one rectangle). Xvnc, like every Tight encoder, splits what
// is not a solid fill into rectangles of at most 65,536 pixels, at most
// 256 KiB before compression; 1 MiB leaves four times that for JPEG's and
// zlib's worst cases. A compact length can say up to 4 MiB - 1; more than
// this limit is taken for a stream out of step.
const maxTightData = 1 << 20

// tpixelSize is the size of Tight's TPIXEL in pixel format pf (16 bytes,
// as in SetPixelFormat): 3 for 32 bits per pixel, depth 24, true colour,
// maxima 255, else bits-per-pixel/8.
func tpixelSize(pf []byte) int {
	if pf[0] == 32 && pf[1] == 24 && pf[3] != 0 &&
		pf[4] == 0 && pf[5] == 255 && pf[6] == 0 && pf[7] == 255 && pf[8] == 0 && pf[9] == 255 {
		return 3
	}
	return int(pf[0] / 8)
}

// tightPixelFormatOK reports why Tight cannot be framed in pf, or "": a
// 3-byte TPIXEL format whose colours are not on byte boundaries is read as
// 3-byte by the RFB spec and noVNC and as 4-byte by newer TigerVNC (its
// is888 also checks the shifts), so the two ends could disagree.
func tightPixelFormatOK(pf []byte) string {
	if tpixelSize(pf) == 3 && (pf[10]|pf[11]|pf[12])&7 != 0 {
		return fmt.Sprintf("a depth-24 format with colour shifts %d, %d, %d (not on byte boundaries: Tight's pixel size is ambiguous)", pf[10], pf[11], pf[12])
	}
	return ""
}

// tight frames the next header of the Tight rectangle the filter is in, at
// b[0]: it returns the header length (0 when b holds less than the header)
// and sets skip and the next phase.
func (f *serverFilter) tight(b []byte) (int, error) {
	f.skip = 0
	switch f.tphase {
	case tightControl:
		c := b[0]
		switch nib := c >> 4; {
		case nib == rfb.TightFill:
			f.skip = f.tpixel
			f.tphase = tightNone
			f.kinds.count(kindTightFill)
		case nib == rfb.TightJPEG:
			f.tphase = tightLength
			f.kinds.count(kindTightJPEG)
		case nib == rfb.TightPNG:
			return 0, f.failTight(fmt.Sprintf("control byte %#02x: PNG, which only TightPNG has (the relay does not ask for it)", c))
		case nib > rfb.TightPNG:
			return 0, f.failTight(fmt.Sprintf("control byte %#02x: compression type %d is invalid", c, nib))
		case c&rfb.TightExplicit != 0:
			f.tphase = tightFilter
		default:
			f.kinds.count(kindTightCopy)
			f.tightData(f.tpixel * f.rw * f.rh)
		}
		return 1, nil
	case tightFilter:
		switch b[0] {
		case rfb.TightFilterCopy:
			f.kinds.count(kindTightCopy)
			f.tightData(f.tpixel * f.rw * f.rh)
		case rfb.TightFilterPalette:
			f.kinds.count(kindTightPalette)
			f.tphase = tightPalette
		case rfb.TightFilterGradient:
			if f.bpp == 1 {
				return 0, f.failTight("gradient filter at 8 bits per pixel")
			}
			f.kinds.count(kindTightGradient)
			f.tightData(f.tpixel * f.rw * f.rh)
		default:
			return 0, f.failTight(fmt.Sprintf("filter id %d is invalid", b[0]))
		}
		return 1, nil
	case tightPalette: // every byte is a valid size: 1 to 256 colours
		colours := int64(b[0]) + 1
		if colours <= 2 {
			f.tightData((f.rw + 7) / 8 * f.rh)
		} else {
			f.tightData(f.rw * f.rh)
		}
		f.skip += colours * f.tpixel // the palette, before the data
		return 1, nil
	case tightLength:
		n, l := 1, int64(b[0]&0x7f)
		if b[0]&0x80 != 0 {
			if len(b) < 2 {
				return 0, nil
			}
			n, l = 2, l|int64(b[1]&0x7f)<<7
			if b[1]&0x80 != 0 {
				if len(b) < 3 {
					return 0, nil
				}
				n, l = 3, l|int64(b[2])<<14
			}
		}
		if l > maxTightData {
			return 0, f.failTight(fmt.Sprintf("compact length %d, limit %d", l, maxTightData))
		}
		f.skip = l
		f.tphase = tightNone
		return n, nil
	}
	return 0, f.failTight("impossible: no Tight phase")
}

// tightData moves on to the pixel data of size n before compression:
// under rfb.TightMinCompress bytes they follow as they are, else a compact
// length does.
func (f *serverFilter) tightData(n int64) {
	if n < rfb.TightMinCompress {
		f.skip = n
		f.tphase = tightNone
		return
	}
	f.tphase = tightLength
}

// failTight fails on a malformed Tight rectangle, saying where it began.
func (f *serverFilter) failTight(detail string) error {
	return f.fail(fmt.Sprintf("Tight rectangle at server byte %d: %s", f.rstart, detail))
}
