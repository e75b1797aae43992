package jpegenc

import (
	"encoding/binary"
	"math"
)

// goEncoder is the pure Go encoder: baseline, 4:2:0, the Annex K tables,
// a floating-point DCT (Arai, Agui and Nakajima's, scaled into the
// quantisation step). Its state is the tables of the last quality and
// the blocks of one MCU; it writes straight into the caller's slice.
type goEncoder struct {
	quality int            // of dqt and recip; 0 before the first call
	dqt     [2][64]uint8   // the quantisation tables, zig-zag order
	recip   [2][64]float32 // what a DCT output is multiplied by to quantise it, zig-zag order
	y       [4][64]float32 // the MCU's four luminance blocks
	cb, cr  [64]float32    // and its two chrominance ones
	edge    [16 * 64]byte  // an MCU at the right or bottom edge, the missing pixels copies of the last
	scratch [64]int32      // a block's quantised coefficients, zig-zag order
	ffs     []int          // where the scan's 0xff bytes are (bitWriter.stuff)
}

// Colour conversion (JFIF: ITU-R BT.601 with full-range Y, Cb and Cr) in
// 16-bit fixed point, each row of weights summing to 65536 (Y) or 0.
const (
	yR, yG, yB    = 19595, 38470, 7471
	cbR, cbG, cbB = -11059, -21709, 32768
	crR, crG, crB = 32768, -27439, -5329
)

// The DCT's input is the converted samples in those fixed-point units,
// level-shifted: luminance in 1/65536ths, chrominance as the sum of a 2×2
// square's, in 1/262144ths. The scale goes into the quantisation step.
const (
	lumaUnit   = 1 << 16
	chromaUnit = 4 << 16
)

// aanScale[k] is the AAN DCT's output scale for frequency k: 1 for the
// DC term, else √2·cos(kπ/16); each 2-D output is 8·aanScale[u]·aanScale[v]
// times the DCT of T.81's definition.
var aanScale = func() (s [8]float64) {
	s[0] = 1
	for k := 1; k < 8; k++ {
		s[k] = math.Sqrt2 * math.Cos(float64(k)*math.Pi/16)
	}
	return s
}()

// setQuality makes the tables of quality q (1 to 100).
func (e *goEncoder) setQuality(q int) {
	units := [2]float64{lumaUnit, chromaUnit}
	for c := range 2 {
		t := scaledQuant(&baseQuant[c], q)
		for k, n := range zigzag {
			e.dqt[c][k] = t[n]
			e.recip[c][k] = float32(1 / (float64(t[n]) * 8 * aanScale[n/8] * aanScale[n%8] * units[c]))
		}
	}
	e.quality = q
}

// append appends the JPEG of the w×h pixels of pix (rows stride bytes
// apart) at quality q; the arguments are checked.
func (e *goEncoder) append(dst, pix []byte, stride, w, h, q int) []byte {
	if q != e.quality {
		e.setQuality(q)
	}
	dst = e.appendHeaders(dst, w, h)
	bw := bitWriter{out: dst, scan: len(dst), ffs: &e.ffs}
	var dcY, dcCb, dcCr int32
	for my := 0; my < h; my += 16 {
		for mx := 0; mx < w; mx += 16 {
			if mx+16 <= w && my+16 <= h {
				e.convert(pix[my*stride+4*mx:], stride)
			} else {
				e.convert(e.pad(pix, stride, mx, my, w, h), 64)
			}
			for i := range e.y {
				dcY = bw.block(&e.y[i], &e.recip[0], &e.scratch, dcY, lumaDC, lumaAC)
			}
			dcCb = bw.block(&e.cb, &e.recip[1], &e.scratch, dcCb, chromaDC, chromaAC)
			dcCr = bw.block(&e.cr, &e.recip[1], &e.scratch, dcCr, chromaDC, chromaAC)
		}
	}
	return append(bw.end(), 0xff, 0xd9) // EOI
}

// pad copies the MCU at (mx, my) of the w×h region into e.edge (16
// pixels a row), repeating the last column and row past the region's
// edges, as libjpeg does, and returns it.
func (e *goEncoder) pad(pix []byte, stride, mx, my, w, h int) []byte {
	n := min(16, w-mx)
	for j := range 16 {
		y := min(my+j, h-1)
		d := e.edge[64*j : 64*j+64]
		copy(d, pix[y*stride+4*mx:y*stride+4*(mx+n)])
		for i := n; i < 16; i++ {
			copy(d[4*i:4*i+4], d[4*(n-1):4*n])
		}
	}
	return e.edge[:]
}

// convert converts the 16×16 pixels at p, rows stride bytes apart, into
// the MCU's four luminance blocks and its two chrominance blocks (each
// chrominance sample from the sum of a 2×2 square: 4:2:0).
func (e *goEncoder) convert(p []byte, stride int) {
	for j := range 16 {
		row := (*[64]byte)(p[j*stride:])
		yl := (*[8]float32)(e.y[(j>>3)*2][(j&7)*8:])
		yr := (*[8]float32)(e.y[(j>>3)*2+1][(j&7)*8:])
		for i := range 4 { // two pixels a load, in each block
			yl[2*i], yl[2*i+1] = luma2(binary.LittleEndian.Uint64(row[8*i:]))
			yr[2*i], yr[2*i+1] = luma2(binary.LittleEndian.Uint64(row[32+8*i:]))
		}
	}
	// R and B, and G and the unused byte, of two pixels side by side in
	// the 16-bit lanes of a uint64
	const lanes = 0x00ff00ff00ff00ff
	for j := range 8 {
		r0 := (*[64]byte)(p[2*j*stride:])
		r1 := (*[64]byte)(p[(2*j+1)*stride:])
		cb := (*[8]float32)(e.cb[8*j:])
		cr := (*[8]float32)(e.cr[8*j:])
		for i := range 8 {
			u := binary.LittleEndian.Uint64(r0[8*i:])
			v := binary.LittleEndian.Uint64(r1[8*i:])
			rb := u&lanes + v&lanes
			rb += rb >> 32
			g := u>>8&lanes + v>>8&lanes
			g += g >> 32
			rs, gs, bs := int32(rb&0xffff), int32(g&0xffff), int32(rb>>16&0xffff)
			cb[i] = float32(cbR*rs + cbG*gs + cbB*bs)
			cr[i] = float32(crR*rs + crG*gs + crB*bs)
		}
	}
}

// luma2 returns the level-shifted luminance of the two pixels in p (R,
// G, B, unused; little-endian).
func luma2(p uint64) (float32, float32) {
	return float32(yR*int32(p&0xff) + yG*int32(p>>8&0xff) + yB*int32(p>>16&0xff) - 128*lumaUnit),
		float32(yR*int32(p>>32&0xff) + yG*int32(p>>40&0xff) + yB*int32(p>>48&0xff) - 128*lumaUnit)
}

// Headers. The frame is baseline (SOF0), 8-bit, three components: Y
// (id 1) sampled 2×2, Cb (2) and Cr (3) 1×1; Y uses quantisation and
// Huffman tables 0, Cb and Cr tables 1. No JFIF segment: decoders take
// three components numbered 1, 2 and 3 as YCbCr.
var (
	dhtSegment = func() []byte {
		b := []byte{0xff, 0xc4, 0, 0}
		b = dcLumaSpec.appendDHT(b, 0x00)
		b = acLumaSpec.appendDHT(b, 0x10)
		b = dcChromaSpec.appendDHT(b, 0x01)
		b = acChromaSpec.appendDHT(b, 0x11)
		binary.BigEndian.PutUint16(b[2:], uint16(len(b)-2))
		return b
	}()
	sosSegment = []byte{0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0}

	lumaDC, lumaAC     = dcLumaSpec.build(), acLumaSpec.build()
	chromaDC, chromaAC = dcChromaSpec.build(), acChromaSpec.build()
)

// appendHeaders appends SOI, DQT, SOF0, DHT and SOS for a w×h frame.
func (e *goEncoder) appendHeaders(dst []byte, w, h int) []byte {
	dst = append(dst, 0xff, 0xd8, 0xff, 0xdb, 0, 2+2*65, 0)
	dst = append(dst, e.dqt[0][:]...)
	dst = append(dst, 1)
	dst = append(dst, e.dqt[1][:]...)
	dst = append(dst, 0xff, 0xc0, 0, 17, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
	dst = append(dst, dhtSegment...)
	return append(dst, sosSegment...)
}
