package zerocopy

import (
	"encoding/binary"

	"github.com/wirebench/wirebench/codec/cbor"
)

// dec reads CBOR items as cbor.Decoder does, with the same methods and
// the same verdict on every input, and with the common cases (one-byte
// heads, short strings) inlined: an item whose fast path does not apply
// goes to a cbor.Decoder positioned at it. Offsets are absolute in b. A
// trusted dec reads bytes the validation pass has checked and does not
// check the UTF-8 of text again.
type dec struct {
	b       []byte
	off     int
	trusted bool
}

func newDec(b []byte) dec { return dec{b: b} }

// at returns a trusted dec over b positioned at off, for the walks.
func at(b []byte, off int) dec {
	if off < 0 || off > len(b) {
		off = len(b)
	}
	return dec{b: b, off: off, trusted: true}
}

// Offset is the offset of the next item in b.
func (d *dec) Offset() int { return d.off }

// Len is the number of bytes left.
func (d *dec) Len() int { return len(d.b) - d.off }

// PeekByte returns the next initial byte without consuming it.
func (d *dec) PeekByte() (byte, bool) {
	if d.off >= len(d.b) {
		return 0, false
	}
	return d.b[d.off], true
}

// slow returns a cbor.Decoder at the next item.
func (d *dec) slow() cbor.Decoder { return cbor.NewDecoder(d.b[d.off:]) }

// done moves d past what c consumed and makes the offset of err absolute.
func (d *dec) done(c *cbor.Decoder, err error) error {
	base := d.off
	d.off += c.Offset()
	if e, ok := err.(*cbor.Error); ok {
		e.Offset += base
	}
	return err
}

// Done reports trailing bytes, as cbor.Decoder.Done.
func (d *dec) Done() error {
	if d.off != len(d.b) {
		return cbor.Errorf(cbor.ErrTrailing, d.off, itoa(len(d.b)-d.off)+" bytes left over")
	}
	return nil
}

// ReadHead reads one head.
func (d *dec) ReadHead() (cbor.Head, error) {
	c := d.slow()
	h, err := c.ReadHead()
	return h, d.done(&c, err)
}

// Uint reads an unsigned integer.
func (d *dec) Uint() (uint64, error) {
	if d.off < len(d.b) && d.b[d.off] < 24 {
		d.off++
		return uint64(d.b[d.off-1]), nil
	}
	return d.uintSlow()
}

func (d *dec) uintSlow() (uint64, error) {
	if d.off < len(d.b) {
		if c := d.b[d.off]; c >= 0x18 && c <= 0x1b {
			if n := 1 << (c - 0x18); d.off+1+n <= len(d.b) {
				v := argAt(d.b[d.off+1:], n)
				d.off += 1 + n
				return v, nil
			}
		}
	}
	c := d.slow()
	v, err := c.Uint()
	return v, d.done(&c, err)
}

// Uint32 reads an unsigned integer that fits in 32 bits.
func (d *dec) Uint32() (uint32, error) {
	if d.off < len(d.b) && d.b[d.off] < 24 {
		d.off++
		return uint32(d.b[d.off-1]), nil
	}
	return d.uint32Slow()
}

func (d *dec) uint32Slow() (uint32, error) {
	c := d.slow()
	v, err := c.Uint32()
	return v, d.done(&c, err)
}

// Int reads a signed integer that fits in an int64.
func (d *dec) Int() (int64, error) {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b < 24 {
			d.off++
			return int64(b), nil
		} else if b >= 0x20 && b < 0x38 {
			d.off++
			return -1 - int64(b-0x20), nil
		}
	}
	return d.intSlow()
}

func (d *dec) intSlow() (int64, error) {
	c := d.slow()
	v, err := c.Int()
	return v, d.done(&c, err)
}

// Int32 reads a signed integer that fits in 32 bits.
func (d *dec) Int32() (int32, error) {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b < 24 {
			d.off++
			return int32(b), nil
		} else if b >= 0x20 && b < 0x38 {
			d.off++
			return -1 - int32(b-0x20), nil
		}
	}
	return d.int32Slow()
}

func (d *dec) int32Slow() (int32, error) {
	if d.off+3 <= len(d.b) && d.b[d.off] == 0x19 {
		// A two-byte argument: screen coordinates.
		v := int32(d.b[d.off+1])<<8 | int32(d.b[d.off+2])
		d.off += 3
		return v, nil
	}
	if d.off+3 <= len(d.b) && d.b[d.off] == 0x39 {
		v := int32(d.b[d.off+1])<<8 | int32(d.b[d.off+2])
		d.off += 3
		return -1 - v, nil
	}
	c := d.slow()
	v, err := c.Int32()
	return v, d.done(&c, err)
}

// Bool reads true or false.
func (d *dec) Bool() (bool, error) {
	if d.off < len(d.b) {
		switch d.b[d.off] {
		case cbor.True:
			d.off++
			return true, nil
		case cbor.False:
			d.off++
			return false, nil
		}
	}
	c := d.slow()
	v, err := c.Bool()
	return v, d.done(&c, err)
}

// Null consumes a null and reports whether the next item was one.
func (d *dec) Null() bool {
	if d.off < len(d.b) && d.b[d.off] == cbor.Null {
		d.off++
		return true
	}
	return false
}

// More reports whether a container of count n (-1: indefinite) has an
// element after i, consuming the break code of an indefinite one.
func (d *dec) More(n, i int) bool {
	if n >= 0 {
		return i < n
	}
	if d.off < len(d.b) && d.b[d.off] == cbor.Break {
		d.off++
		return false
	}
	return true
}

// Text reads a text string, checked to be valid UTF-8 unless d is
// trusted. A definite string is a subslice of b.
func (d *dec) Text() ([]byte, error) {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b >= 0x60 && b < 0x78 {
			end := d.off + 1 + int(b-0x60)
			if end <= len(d.b) {
				s := d.b[d.off+1 : end : end]
				if d.trusted || cbor.ValidUTF8(s) {
					d.off = end
					return s, nil
				}
			}
		}
	}
	return d.textSlow()
}

func (d *dec) textSlow() ([]byte, error) {
	if d.off+2 <= len(d.b) && d.b[d.off] == 0x78 {
		end := d.off + 2 + int(d.b[d.off+1])
		if end <= len(d.b) {
			s := d.b[d.off+2 : end : end]
			if d.trusted || cbor.ValidUTF8(s) {
				d.off = end
				return s, nil
			}
		}
	}
	c := d.slow()
	v, err := c.Text()
	return v, d.done(&c, err)
}

// Bytes reads a byte string; a definite one is a subslice of b.
func (d *dec) Bytes() ([]byte, error) {
	c := d.slow()
	v, err := c.Bytes()
	return v, d.done(&c, err)
}

// MapHead reads a map head; n is -1 for an indefinite map.
func (d *dec) MapHead() (int, error) {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b >= 0xa0 && b < 0xb8 && 2*int(b-0xa0) <= len(d.b)-d.off-1 {
			d.off++
			return int(b - 0xa0), nil
		}
	}
	c := d.slow()
	n, err := c.MapHead()
	return n, d.done(&c, err)
}

// ArrayHead reads an array head; n is -1 for an indefinite array.
func (d *dec) ArrayHead() (int, error) {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b >= 0x80 && b < 0x98 && int(b-0x80) <= len(d.b)-d.off-1 {
			d.off++
			return int(b - 0x80), nil
		}
	}
	c := d.slow()
	n, err := c.ArrayHead()
	return n, d.done(&c, err)
}

// Skip consumes one well-formed item.
func (d *dec) Skip() error {
	if d.off < len(d.b) {
		if b := d.b[d.off]; b < 0x18 || (b >= 0x20 && b < 0x38) || (b >= 0xe0 && b < 0xf8) {
			d.off++
			return nil
		}
	}
	return d.skipSlow()
}

func (d *dec) skipSlow() error {
	if d.skipFast() {
		return nil
	}
	c := d.slow()
	return d.done(&c, c.Skip())
}

// argAt reads an n-byte big-endian argument (n is 1, 2, 4 or 8).
func argAt(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// skipFast skips an item built of integers, simple values 0 to 23,
// definite strings and definite containers, reporting false (and moving
// nothing) at anything else, which cbor.Decoder.Skip then judges from
// the item's start.
func (d *dec) skipFast() bool {
	b, i := d.b, d.off
	for pending := 1; pending > 0; pending-- {
		if i >= len(b) {
			return false
		}
		c := b[i]
		info := c & 0x1f
		arg := uint64(info)
		switch {
		case info < 24:
			i++
		case info <= 27:
			n := 1 << (info - 24)
			if i+1+n > len(b) {
				return false
			}
			arg = argAt(b[i+1:], n)
			i += 1 + n
		default:
			return false
		}
		left := uint64(len(b) - i)
		switch c >> 5 {
		case 0, 1:
		case 2, 3:
			if arg > left {
				return false
			}
			if c>>5 == 3 && !d.trusted && !cbor.ValidUTF8(b[i:i+int(arg)]) {
				return false
			}
			i += int(arg)
		case 4:
			if arg > left {
				return false
			}
			pending += int(arg)
		case 5:
			if arg > left/2 {
				return false
			}
			pending += 2 * int(arg)
		case 7:
			if info >= 24 {
				return false
			}
		default:
			return false
		}
	}
	d.off = i
	return true
}
