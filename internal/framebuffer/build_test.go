package framebuffer

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math/rand/v2"

	"github.com/wirebench/wirebench/internal/rfb"
)

// The test side's own encoders: they build server streams byte by byte
// from the RFB spec, independently of the decoder.

// img is a test picture: RGB, 3 bytes a pixel.
type img struct {
	w, h int
	p    []byte
}

func newImg(w, h int) *img { return &img{w: w, h: h, p: make([]byte, 3*w*h)} }

func (m *img) at(x, y int) []byte { return m.p[3*(y*m.w+x) : 3*(y*m.w+x)+3] }

func (m *img) set(x, y int, c [3]byte) { copy(m.at(x, y), c[:]) }

// sub returns the w×h part at (x, y).
func (m *img) sub(x, y, w, h int) *img {
	s := newImg(w, h)
	for r := range h {
		copy(s.p[3*r*w:3*(r+1)*w], m.p[3*((y+r)*m.w+x):])
	}
	return s
}

// noise is a picture of random colours.
func noise(rng *rand.Rand, w, h int) *img {
	m := newImg(w, h)
	for i := range m.p {
		m.p[i] = byte(rng.IntN(256))
	}
	return m
}

// paletted is a picture of random pixels from n random colours, in runs
// of up to maxRun (row-major).
func paletted(rng *rand.Rand, w, h, n, maxRun int) (*img, [][3]byte) {
	pal := make([][3]byte, n)
	for i := range pal {
		pal[i] = [3]byte{byte(rng.IntN(256)), byte(i), byte(rng.IntN(256))} // distinct
	}
	m := newImg(w, h)
	for k := 0; k < w*h; {
		c := pal[rng.IntN(n)]
		run := 1 + rng.IntN(maxRun)
		for ; run > 0 && k < w*h; run-- {
			m.set(k%w, k/w, c)
			k++
		}
	}
	return m, pal
}

// want paints m at (x, y) into a w×h framebuffer image (R, G, B, 0).
func paint(pix []byte, fbw int, m *img, x, y int) {
	for r := range m.h {
		for c := range m.w {
			o := 4 * ((y+r)*fbw + x + c)
			copy(pix[o:o+3], m.at(c, r))
			pix[o+3] = 0
		}
	}
}

type stream struct{ bytes.Buffer }

func (s *stream) u8(v byte)    { s.WriteByte(v) }
func (s *stream) u16(v int)    { s.Write(binary.BigEndian.AppendUint16(nil, uint16(v))) }
func (s *stream) u32(v uint32) { s.Write(binary.BigEndian.AppendUint32(nil, v)) }

// update starts a FramebufferUpdate of n rectangles.
func (s *stream) update(n int) { s.u8(0); s.u8(0); s.u16(n) }

func (s *stream) rect(x, y, w, h int, enc rfb.Encoding) {
	s.u16(x)
	s.u16(y)
	s.u16(w)
	s.u16(h)
	s.u32(uint32(enc))
}

func (s *stream) raw(m *img) {
	for i := 0; i < len(m.p); i += 3 {
		s.Write(m.p[i : i+3])
		s.u8(0)
	}
}

// zw is a zlib stream that runs across rectangles: chunk returns the
// compressed bytes of data, ending with a sync flush, as Xvnc sends them.
type zw struct {
	buf bytes.Buffer
	w   *zlib.Writer
}

func newZW() *zw {
	z := &zw{}
	z.w, _ = zlib.NewWriterLevel(&z.buf, 6)
	return z
}

func (z *zw) chunk(data []byte) []byte {
	z.w.Write(data)
	z.w.Flush()
	out := bytes.Clone(z.buf.Bytes())
	z.buf.Reset()
	return out
}

// ZRLE sub-encodings the test encoder can write for a tile.
const (
	zRaw = iota
	zSolid
	zPacked
	zRLE
	zPalRLE
)

// zrleTileBytes encodes tile t with sub-encoding kind, using palette pal
// (the tile's colours) for the palette kinds.
func zrleTileBytes(t *img, kind int, pal [][3]byte) []byte {
	var b bytes.Buffer
	index := func(c []byte) int {
		for i, p := range pal {
			if bytes.Equal(p[:], c) {
				return i
			}
		}
		panic("colour not in palette")
	}
	runLen := func(n int) { // n ≥ 1
		n--
		for ; n >= 255; n -= 255 {
			b.WriteByte(255)
		}
		b.WriteByte(byte(n))
	}
	switch kind {
	case zRaw:
		b.WriteByte(0)
		b.Write(t.p)
	case zSolid:
		b.WriteByte(1)
		b.Write(t.p[:3])
	case zPacked:
		b.WriteByte(byte(len(pal)))
		for _, p := range pal {
			b.Write(p[:])
		}
		bits := 4
		if len(pal) == 2 {
			bits = 1
		} else if len(pal) <= 4 {
			bits = 2
		}
		for y := range t.h {
			var cur byte
			nb := 0
			for x := range t.w {
				cur = cur<<bits | byte(index(t.at(x, y)))
				if nb += bits; nb == 8 {
					b.WriteByte(cur)
					cur, nb = 0, 0
				}
			}
			if nb > 0 {
				b.WriteByte(cur << (8 - nb))
			}
		}
	case zRLE, zPalRLE:
		if kind == zRLE {
			b.WriteByte(128)
		} else {
			b.WriteByte(byte(128 + len(pal)))
			for _, p := range pal {
				b.Write(p[:])
			}
		}
		n := t.w * t.h
		for k := 0; k < n; {
			c := t.p[3*k : 3*k+3]
			run := 1
			for k+run < n && bytes.Equal(t.p[3*(k+run):3*(k+run)+3], c) {
				run++
			}
			if kind == zRLE {
				b.Write(c)
				runLen(run)
			} else if run == 1 {
				b.WriteByte(byte(index(c)))
			} else {
				b.WriteByte(byte(128 | index(c)))
				runLen(run)
			}
			k += run
		}
	}
	return b.Bytes()
}

// zrleRect appends a ZRLE rectangle of m at (x, y), its tiles encoded with
// kinds[i%len(kinds)], continuing zlib stream z.
func (s *stream) zrleRect(z *zw, m *img, x, y int, kinds []int, pal [][3]byte) {
	var data []byte
	i := 0
	for ty := 0; ty < m.h; ty += 64 {
		for tx := 0; tx < m.w; tx += 64 {
			t := m.sub(tx, ty, min(64, m.w-tx), min(64, m.h-ty))
			data = append(data, zrleTileBytes(t, kinds[i%len(kinds)], pal)...)
			i++
		}
	}
	c := z.chunk(data)
	s.rect(x, y, m.w, m.h, rfb.EncodingZRLE)
	s.u32(uint32(len(c)))
	s.Write(c)
}

func (s *stream) compact(n int) {
	s.u8(byte(n&0x7f) | map[bool]byte{true: 0x80}[n > 0x7f])
	if n > 0x7f {
		s.u8(byte(n>>7&0x7f) | map[bool]byte{true: 0x80}[n > 0x3fff])
		if n > 0x3fff {
			s.u8(byte(n >> 14))
		}
	}
}

// tightData appends Tight basic data: as it is under 12 bytes, else a
// compact length and a chunk of z.
func (s *stream) tightData(z *zw, data []byte) {
	if len(data) < 12 {
		s.Write(data)
		return
	}
	c := z.chunk(data)
	s.compact(len(c))
	s.Write(c)
}

// tightCopy appends a Tight basic rectangle with the copy filter (implicit)
// on stream n, resetting the streams in resets.
func (s *stream) tightCopy(z *zw, m *img, x, y, n int, resets byte) {
	s.rect(x, y, m.w, m.h, rfb.EncodingTight)
	s.u8(byte(n<<4) | resets)
	s.tightData(z, m.p)
}

func (s *stream) tightPalette(z *zw, m *img, pal [][3]byte, x, y, n int) {
	s.rect(x, y, m.w, m.h, rfb.EncodingTight)
	s.u8(byte((4 | n) << 4))
	s.u8(1)
	s.u8(byte(len(pal) - 1))
	index := map[[3]byte]byte{}
	for i, p := range pal {
		s.Write(p[:])
		index[p] = byte(i)
	}
	var data []byte
	for yy := range m.h {
		var cur byte
		nb := 0
		for xx := range m.w {
			i := index[[3]byte(m.at(xx, yy))]
			if len(pal) != 2 {
				data = append(data, i)
				continue
			}
			cur = cur<<1 | i
			if nb++; nb == 8 {
				data = append(data, cur)
				cur, nb = 0, 0
			}
		}
		if len(pal) == 2 && nb > 0 {
			data = append(data, cur<<(8-nb))
		}
	}
	s.tightData(z, data)
}

func (s *stream) tightGradient(z *zw, m *img, x, y, n int) {
	s.rect(x, y, m.w, m.h, rfb.EncodingTight)
	s.u8(byte((4 | n) << 4))
	s.u8(2)
	data := make([]byte, len(m.p))
	for yy := range m.h {
		for xx := range m.w {
			for c := range 3 {
				var left, above, corner int
				if xx > 0 {
					left = int(m.at(xx-1, yy)[c])
				}
				if yy > 0 {
					above = int(m.at(xx, yy-1)[c])
					if xx > 0 {
						corner = int(m.at(xx-1, yy-1)[c])
					}
				}
				p := min(max(left+above-corner, 0), 255)
				data[3*(yy*m.w+xx)+c] = m.at(xx, yy)[c] - byte(p)
			}
		}
	}
	s.tightData(z, data)
}

func (s *stream) tightFill(x, y, w, h int, c [3]byte) {
	s.rect(x, y, w, h, rfb.EncodingTight)
	s.u8(rfb.TightFill << 4)
	s.Write(c[:])
}
