package framebuffer

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"
)

// zBufSize is the size of each zlib stream's input buffer.
const zBufSize = 4 << 10

// MaxZlibCarry is the most compressed bytes of one rectangle that its
// pixels may leave unread in a zlib stream (the empty stored block of
// the encoder's sync flush is 4 or 5); they are kept and inflated in front
// of the stream's next rectangle. More is an error.
const MaxZlibCarry = 64

// errZShort: a rectangle's zlib data ended before its pixels did.
var errZShort = errors.New("zlib data ends before the rectangle's pixels")

// zstream is one zlib stream that runs across rectangles (ZRLE's, or one
// of Tight's four). Each rectangle lends it a number of compressed bytes
// of the server stream; it inflates only as much as the rectangle reads.
//
// flate keeps its state only while its input never runs dry (its errors
// stick), so a rectangle's end cannot be probed for more output: data
// that inflates past the rectangle is found when it is in zstream's own
// buffer (end says so), or when more than MaxZlibCarry compressed bytes
// are left; output flate already holds in its window shows up at the start
// of the stream's next rectangle, which then decodes wrongly or fails.
type zstream struct {
	rd *reader
	zr io.ReadCloser // nil until the stream's first rectangle
	// br is what flate reads: a *bufio.Reader is the input flate decodes
	// fastest (its own fast path, no call through an interface a byte); it
	// reads from the zstream only the rectangle's bytes, and what it holds
	// past what flate took is carried to the stream's next rectangle.
	br    *bufio.Reader
	fresh bool // the next rectangle starts a new zlib stream
	left  int  // compressed bytes of this rectangle not yet read from rd
	carry [MaxZlibCarry]byte
	cr    int // carry[cr:cw] is unread
	cw    int
	out   [512]byte // inflated, not yet parsed
	or    int
	ow    int
	rect  int // inflated bytes the current rectangle may still read
	limit int // inflated bytes the current rectangle may read in all
}

// ReadByte gives flate the next compressed byte: carried ones first, then
// the rectangle's.
func (z *zstream) ReadByte() (byte, error) {
	if z.cr < z.cw {
		c := z.carry[z.cr]
		z.cr++
		return c, nil
	}
	if z.left == 0 {
		return 0, errZShort
	}
	z.left--
	return z.rd.ReadByte()
}

// Read gives flate (and zlib's header) compressed bytes.
func (z *zstream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if z.cr < z.cw {
		n := copy(p, z.carry[z.cr:z.cw])
		z.cr += n
		return n, nil
	}
	if z.left == 0 {
		return 0, errZShort
	}
	n := min(len(p), z.left, len(z.rd.buf))
	b, err := z.rd.peek(1)
	if err != nil {
		return 0, err
	}
	_ = b
	n = min(n, z.rd.w-z.rd.r)
	copy(p, z.rd.buf[z.rd.r:z.rd.r+n])
	z.rd.r += n
	z.rd.off += int64(n)
	z.left -= n
	return n, nil
}

// reset makes the next rectangle start a new zlib stream (Tight's reset
// bits).
func (z *zstream) reset() {
	z.fresh = true
	z.cr, z.cw = 0, 0
	if z.br != nil {
		z.br.Reset(z)
	}
	z.or, z.ow = 0, 0
}

// begin lends the stream the next n compressed bytes of the server stream,
// from which the rectangle will inflate at most max bytes.
func (z *zstream) begin(rd *reader, n, max int) error {
	z.rd, z.left, z.rect, z.limit = rd, n, max, max
	if z.zr == nil || z.fresh {
		z.fresh = false
		z.or, z.ow = 0, 0
		if z.zr == nil {
			z.br = bufio.NewReaderSize(z, zBufSize)
		} else {
			z.br.Reset(z)
		}
		if err := z.header(); err != nil {
			return err
		}
		if z.zr == nil {
			z.zr = flate.NewReader(z.br)
		} else if err := z.zr.(flate.Resetter).Reset(z.br, nil); err != nil {
			return z.wrap(err)
		}
	}
	return nil
}

// header reads and checks a new stream's zlib header (RFC 1950): deflate,
// a window of at most 32 KiB, no preset dictionary. The deflate data after
// it is inflated raw: RFB's zlib streams never end, so the Adler-32 that
// zlib checks at a stream's end would never be compared, only computed.
func (z *zstream) header() error {
	var h [2]byte
	if _, err := io.ReadFull(z.br, h[:]); err != nil {
		return z.wrap(err)
	}
	switch {
	case h[0]&0x0f != 8 || h[0]>>4 > 7:
		return fmt.Errorf("zlib data: header %#02x%02x is not deflate with a window of at most 32 KiB", h[0], h[1])
	case (uint(h[0])<<8|uint(h[1]))%31 != 0:
		return fmt.Errorf("zlib data: header %#02x%02x fails its check (not a multiple of 31)", h[0], h[1])
	case h[1]&0x20 != 0:
		return fmt.Errorf("zlib data: header %#02x%02x asks for a preset dictionary", h[0], h[1])
	}
	return nil
}

// end closes the rectangle: what it inflated and did not read is an
// error; compressed bytes flate did not ask for (at most MaxZlibCarry) are
// carried to the next rectangle.
func (z *zstream) end() error {
	if z.or < z.ow {
		return fmt.Errorf("zlib data inflates to at least %d bytes past the rectangle's pixels", z.ow-z.or)
	}
	if rest := z.br.Buffered() + z.cw - z.cr + z.left; rest > MaxZlibCarry {
		return fmt.Errorf("zlib data has %d compressed bytes past the rectangle's pixels (limit %d)", rest, MaxZlibCarry)
	}
	copy(z.carry[:], z.carry[z.cr:z.cw])
	z.cw -= z.cr
	z.cr = 0
	if err := z.rd.readFull(z.carry[z.cw : z.cw+z.left]); err != nil {
		return err
	}
	z.cw += z.left
	z.left = 0
	return nil
}

func (z *zstream) wrap(err error) error {
	if errors.Is(err, errZShort) {
		return errZShort
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("zlib data: %w", err)
}

// take counts n more inflated bytes against the rectangle's allowance.
func (z *zstream) take(n int) error {
	if n > z.rect {
		return fmt.Errorf("the rectangle's data runs past the %d inflated bytes its size allows", z.limit)
	}
	z.rect -= n
	return nil
}

// byte returns the next inflated byte.
func (z *zstream) byte() (byte, error) {
	if err := z.take(1); err != nil {
		return 0, err
	}
	if z.or == z.ow {
		n, err := z.zr.Read(z.out[:])
		if n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, z.wrap(err)
		}
		z.or, z.ow = 0, n
	}
	c := z.out[z.or]
	z.or++
	return c, nil
}

// full fills p with inflated bytes.
func (z *zstream) full(p []byte) error {
	if err := z.take(len(p)); err != nil {
		return err
	}
	n := copy(p, z.out[z.or:z.ow])
	z.or += n
	if n < len(p) {
		if _, err := io.ReadFull(z.zr, p[n:]); err != nil {
			return z.wrap(err)
		}
	}
	return nil
}
