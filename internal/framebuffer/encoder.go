package framebuffer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"
	"github.com/wirebench/wirebench/internal/jpegenc"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Largest piece the Encoder writes as one rectangle (TigerVNC's Tight
// encoder's limits, which its decoder and noVNC's expect).
const (
	encMaxWidth = 2048
	encMaxArea  = 65536
	// Colours up to which a piece goes as a palette (lossless) rather
	// than JPEG or the copy filter, as TigerVNC's encoder chooses: 256
	// with no JPEG, 96 with it, 24 at the lowest JPEG qualities (where a
	// palette of many colours costs more than the picture it saves).
	encMaxPal     = 256
	encMaxPalJPEG = 96
	encMaxPalLow  = 24
)

// Encoder writes parts of a Framebuffer as self-contained Tight
// rectangles, for the hub's shared log: a rectangle of one colour is a
// fill; of 2 to 16 colours, the palette filter; otherwise the copy filter.
// Basic rectangles use zlib stream 0 with its reset bit set and a new
// zlib stream, ending with a sync flush, so their bytes refer to nothing
// sent before them and can be sent to any viewer in any order (a viewer's
// later rectangles on stream 0 must then also start with a reset). An
// Encoder is not safe for concurrent use; it allocates nothing once warm.
type Encoder struct {
	zw   *zlib.Writer
	out  bytes.Buffer
	data []byte
	pal  [encMaxPal]uint32
	// hash maps a colour to its palette index + 1 (0: empty slot), open
	// addressing over encPalHash slots; hashUsed lists the slots in use,
	// to clear them.
	hash     [encPalHash]palSlot
	hashUsed []uint16
	many     bool // the caller knows the area has many colours: no palette scan
	kinds    [rfb.NumKinds]uint64
	jpegQ    int // 0: lossless
	jpeg     jpegenc.Encoder
}

// SetManyColours tells the Encoder that what it is about to encode has
// more colours than a palette holds (a rectangle the server itself sent
// without a palette), so it skips looking for one: the copy filter, or
// JPEG. Reset it with false.
func (e *Encoder) SetManyColours(many bool) { e.many = many }

// SetJPEG makes the Encoder send pieces of more than 16 colours as Tight
// JPEG at quality q (1 to 100; jpegenc's baseline 4:2:0, libjpeg's
// quality scale), as Xvnc does for a viewer that asks for a quality
// level; 0 (the default) keeps them lossless.
func (e *Encoder) SetJPEG(q int) { e.jpegQ = min(max(q, 0), 100) }

// JPEGQuality maps an RFB quality level (0 to 9) to the JPEG quality
// TigerVNC's encoder uses for it.
func JPEGQuality(level int) int {
	q := [10]int{15, 29, 41, 42, 62, 77, 79, 86, 92, 100}
	return q[min(max(level, 0), 9)]
}

// Counts is the number of rectangles appended so far, by kind (fill,
// palette or copy).
func (e *Encoder) Counts() [rfb.NumKinds]uint64 { return e.kinds }

// NewEncoder returns an Encoder compressing at zlib level (1 to 9). Level
// 1 is klauspost/compress's stateless deflate, which keeps no tables
// between rectangles (the fastest: nothing to reset for each one); 2 to 9
// reset a zlib writer for each rectangle.
func NewEncoder(level int) (*Encoder, error) {
	e := &Encoder{}
	if level == 1 {
		return e, nil
	}
	zw, err := zlib.NewWriterLevel(&e.out, level)
	if err != nil {
		return nil, fmt.Errorf("framebuffer: encoder: %w", err)
	}
	e.zw = zw
	return e, nil
}

// AppendTight appends to dst the rectangles (each with its 12-byte
// header) that carry the w×h pixels of fb at (x, y), splitting it into
// pieces of at most 2048 pixels wide and 65536 in area, and returns dst
// and the number of rectangles (for the FramebufferUpdate's count).
func (e *Encoder) AppendTight(dst []byte, fb *Framebuffer, x, y, w, h int) ([]byte, int, error) {
	if !fb.inside(x, y, w, h) {
		return dst, 0, fmt.Errorf("framebuffer: encode %dx%d at (%d,%d): outside the %dx%d framebuffer", w, h, x, y, fb.w, fb.h)
	}
	n := 0
	for px := x; px < x+w; px += encMaxWidth {
		pw := min(encMaxWidth, x+w-px)
		rows := max(1, encMaxArea/pw)
		for py := y; py < y+h; py += rows {
			ph := min(rows, y+h-py)
			dst = e.appendPiece(dst, fb, px, py, pw, ph)
			n++
		}
	}
	return dst, n, nil
}

// AppendTightBasic appends to dst one Tight basic rectangle at (x, y),
// w×h, that carries tb (a Decoder's TightBasic: another server's copy or
// palette rectangle) compressed again as a self-contained zlib stream, and
// returns dst; the caller vouches that tb's data is the filter's for w×h
// (as the Decoder checked). A gradient rectangle is not taken (noVNC has
// no gradient filter): encode its pixels with AppendTight.
func (e *Encoder) AppendTightBasic(dst []byte, x, y, w, h int, tb TightBasic) ([]byte, error) {
	ncol := len(tb.Palette) / 3
	palette := tb.Filter == rfb.TightFilterPalette && ncol >= 2 && ncol <= 256 && len(tb.Palette) == 3*ncol
	if tb.Filter != rfb.TightFilterCopy && !palette {
		return dst, fmt.Errorf("framebuffer: Tight basic rectangle with filter %d and a palette of %d bytes: only copy, and palette of 2 to 256 colours, are passed on", tb.Filter, len(tb.Palette))
	}
	for _, v := range []int{x, y, w, h} {
		dst = binary.BigEndian.AppendUint16(dst, uint16(v))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(rfb.EncodingTight))
	if palette {
		e.kinds[rfb.KindTightPalette]++
		dst = append(dst, (4<<4)|1, rfb.TightFilterPalette, byte(ncol-1)) // stream 0, reset, explicit filter
		dst = append(dst, tb.Palette...)
	} else {
		e.kinds[rfb.KindTightCopy]++
		dst = append(dst, 1) // stream 0, reset, copy filter
	}
	return e.appendData(dst, tb.Data), nil
}

func (e *Encoder) appendPiece(dst []byte, fb *Framebuffer, x, y, w, h int) []byte {
	for _, v := range []int{x, y, w, h} {
		dst = binary.BigEndian.AppendUint16(dst, uint16(v))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(rfb.EncodingTight))
	ncol := 0
	if !e.many {
		ncol = e.palette(fb, x, y, w, h)
	}
	switch {
	case ncol == 1:
		e.kinds[rfb.KindTightFill]++
		r, g, b := fb.At(x, y)
		return append(dst, rfb.TightFill<<4, r, g, b)
	case ncol > 1:
		e.kinds[rfb.KindTightPalette]++
		dst = append(dst, (4<<4)|1, rfb.TightFilterPalette, byte(ncol-1))
		for _, c := range e.pal[:ncol] {
			dst = append(dst, byte(c), byte(c>>8), byte(c>>16))
		}
		data := e.data[:0]
		for yy := y; yy < y+h; yy++ {
			row := fb.row(x, yy, w)
			var cur byte
			for xx := range w {
				i := e.index(row[4*xx:])
				if ncol > 2 {
					data = append(data, i)
					continue
				}
				cur = cur<<1 | i
				if xx%8 == 7 {
					data = append(data, cur)
					cur = 0
				}
			}
			if ncol == 2 && w%8 != 0 {
				data = append(data, cur<<(8-w%8))
			}
		}
		e.data = data
		return e.appendData(dst, data)
	}
	if e.jpegQ > 0 && w >= 8 && h >= 8 {
		// The piece is inside the framebuffer and within Tight's sizes, so
		// the arguments are good; should the encoder fail anyway (only
		// libjpeg-turbo's own errors, with the tag turbojpeg), the piece
		// goes lossless below.
		j, err := e.jpeg.Append(e.data[:0], fb.pix[(y*fb.w+x)*BytesPerPixel:], fb.w*BytesPerPixel, w, h, e.jpegQ)
		if err == nil {
			e.data = j
			e.kinds[rfb.KindTightJPEG]++
			dst = appendCompact(append(dst, rfb.TightJPEG<<4), len(j))
			return append(dst, j...)
		}
	}
	e.kinds[rfb.KindTightCopy]++
	dst = append(dst, 1) // stream 0, reset, copy filter
	data := e.data[:0]
	for yy := y; yy < y+h; yy++ {
		data = appendPacked(data, fb.row(x, yy, w))
	}
	e.data = data
	return e.appendData(dst, data)
}

// appendPacked appends row's 4-byte pixels to dst as Tight's 3-byte ones:
// a 4-byte load and store a pixel (each store's fourth byte is the next
// pixel's first), the last pixel byte by byte.
func appendPacked(dst, row []byte) []byte {
	n := len(row) / 4
	off := len(dst)
	dst = slices.Grow(dst, 3*n)[:off+3*n]
	out := dst[off:]
	i := 0
	for ; i+1 < n; i++ {
		binary.LittleEndian.PutUint32(out[3*i:], binary.LittleEndian.Uint32(row[4*i:]))
	}
	if i < n {
		out[3*i], out[3*i+1], out[3*i+2] = row[4*i], row[4*i+1], row[4*i+2]
	}
	return dst
}

// zlibHeader starts a zlib stream: deflate, 32 KiB window, fastest
// level, no dictionary (0x7801 is a multiple of 31).
var zlibHeader = [2]byte{0x78, 0x01}

// appendData appends Tight basic data: as it is under 12 bytes, else a
// compact length and a new zlib stream of it, sync-flushed.
func (e *Encoder) appendData(dst, data []byte) []byte {
	if len(data) < rfb.TightMinCompress {
		return append(dst, data...)
	}
	e.out.Reset()
	if e.zw == nil { // level 1: stateless deflate after a zlib header, ending aligned
		e.out.Write(zlibHeader[:])
		flate.StatelessDeflate(&e.out, data, false, nil) // into a bytes.Buffer: no error
	} else {
		e.zw.Reset(&e.out)
		e.zw.Write(data) // into a bytes.Buffer: no error
		e.zw.Flush()
	}
	return append(appendCompact(dst, e.out.Len()), e.out.Bytes()...)
}

// appendCompact appends Tight's compact length of n (1 to 3 bytes).
func appendCompact(dst []byte, n int) []byte {
	switch {
	case n <= 0x7f:
		return append(dst, byte(n))
	case n <= 0x3fff:
		return append(dst, byte(n)|0x80, byte(n>>7))
	}
	return append(dst, byte(n)|0x80, byte(n>>7)|0x80, byte(n>>14))
}

// encPalHash is the size of an Encoder's palette hash: a power of two
// over twice encMaxPal.
const encPalHash = 1024

// palSlot is one slot of the palette hash.
type palSlot struct {
	c   uint32
	idx uint16 // palette index + 1; 0: empty
}

// maxPal is how many colours the Encoder puts in a palette now.
func (e *Encoder) maxPal() int {
	switch {
	case e.jpegQ == 0:
		return encMaxPal
	case e.jpegQ <= JPEGQuality(2):
		return encMaxPalLow
	}
	return encMaxPalJPEG
}

// palette collects the rectangle's colours into e.pal (and its hash) and
// returns how many there are, or 0 when there are more than maxPal.
func (e *Encoder) palette(fb *Framebuffer, x, y, w, h int) int {
	for _, i := range e.hashUsed {
		e.hash[i] = palSlot{}
	}
	e.hashUsed = e.hashUsed[:0]
	limit := e.maxPal()
	n := 0
	last, lastOK := uint32(0), false
	for yy := y; yy < y+h; yy++ {
		row := fb.row(x, yy, w)
		for i := 0; i < len(row); i += 4 {
			c := uint32(row[i]) | uint32(row[i+1])<<8 | uint32(row[i+2])<<16
			if lastOK && c == last {
				continue
			}
			last, lastOK = c, true
			if e.lookup(c) >= 0 {
				continue
			}
			if n == limit {
				return 0
			}
			e.insert(c, n)
			e.pal[n] = c
			n++
		}
	}
	return n
}

// slot is where colour c is, or would go, in the hash.
func (e *Encoder) slot(c uint32) int {
	h := (c * 0x9e3779b1) >> 22 // the top 10 bits: encPalHash slots
	for {
		if s := e.hash[h]; s.idx == 0 || s.c == c {
			return int(h)
		}
		h = (h + 1) & (encPalHash - 1)
	}
}

// lookup is c's palette index, or -1.
func (e *Encoder) lookup(c uint32) int {
	s := e.hash[e.slot(c)]
	if s.idx == 0 {
		return -1
	}
	return int(s.idx) - 1
}

// insert puts c at palette index i.
func (e *Encoder) insert(c uint32, i int) {
	h := e.slot(c)
	e.hash[h] = palSlot{c: c, idx: uint16(i + 1)}
	e.hashUsed = append(e.hashUsed, uint16(h))
}

// index is the palette index of the pixel px (which palette found).
func (e *Encoder) index(px []byte) byte {
	c := uint32(px[0]) | uint32(px[1])<<8 | uint32(px[2])<<16
	return byte(e.lookup(c))
}
