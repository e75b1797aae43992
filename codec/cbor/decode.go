package cbor

import (
	"encoding/binary"
	"strconv"
)

// Head is a decoded item head.
type Head struct {
	Major Major
	Info  byte   // the low five bits of the initial byte
	Arg   uint64 // the argument: a value, a length or a count
	// Indefinite is true for a head with additional information 31: an
	// indefinite-length string, array or map (or the break code, major 7).
	Indefinite bool
}

// Decoder reads CBOR items from a byte slice, front to back. It never
// allocates for definite-length items: text and byte strings are returned as
// subslices of the input.
type Decoder struct {
	buf     []byte
	off     int
	trusted bool // text was validated before: skip the UTF-8 checks
}

// NewDecoder returns a Decoder positioned at the start of b.
func NewDecoder(b []byte) Decoder { return Decoder{buf: b} }

// Reset positions d at the start of b.
func (d *Decoder) Reset(b []byte) { d.buf, d.off, d.trusted = b, 0, false }

// Seek positions d at offset off of its input (clamped to the input).
func (d *Decoder) Seek(off int) { d.off = max(0, min(off, len(d.buf))) }

// TrustedAt returns a decoder over b positioned at off (as Seek) that
// skips the UTF-8 checks of text; everything else is still checked. It is
// for a second pass over bytes that a checking Decoder has already read
// whole, as package zerocopy walks a frame it validated: text from any
// other source must go through NewDecoder, which always checks.
func TrustedAt(b []byte, off int) Decoder {
	d := NewDecoder(b)
	d.Seek(off)
	d.trusted = true
	return d
}

// Offset is the number of bytes consumed so far.
func (d *Decoder) Offset() int { return d.off }

// Len is the number of bytes not yet consumed.
func (d *Decoder) Len() int { return len(d.buf) - d.off }

// Input is the whole input slice.
func (d *Decoder) Input() []byte { return d.buf }

// Done reports an ErrTrailing error when bytes remain after the last item.
func (d *Decoder) Done() error {
	if d.off != len(d.buf) {
		return Errorf(ErrTrailing, d.off, strconv.Itoa(len(d.buf)-d.off)+" bytes left over")
	}
	return nil
}

func (d *Decoder) truncated(want string) *Error {
	return Errorf(ErrTruncated, len(d.buf), "input ends inside "+want)
}

// PeekByte returns the next initial byte without consuming it.
func (d *Decoder) PeekByte() (byte, bool) {
	if d.off >= len(d.buf) {
		return 0, false
	}
	return d.buf[d.off], true
}

// ReadHead reads one head. It rejects the reserved additional information
// values 28 to 30, and accepts 31 only where RFC 8949 gives it a meaning.
func (d *Decoder) ReadHead() (Head, error) {
	if d.off >= len(d.buf) {
		return Head{}, d.truncated("an item head")
	}
	ib := d.buf[d.off]
	h := Head{Major: Major(ib >> 5), Info: ib & 0x1f}
	start := d.off
	switch {
	case h.Info < 24:
		h.Arg = uint64(h.Info)
		d.off++
	case h.Info <= 27:
		n := 1 << (h.Info - 24)
		if len(d.buf)-d.off-1 < n {
			return Head{}, d.truncated("an item head")
		}
		p := d.buf[d.off+1:]
		switch n {
		case 1:
			h.Arg = uint64(p[0])
		case 2:
			h.Arg = uint64(binary.BigEndian.Uint16(p))
		case 4:
			h.Arg = uint64(binary.BigEndian.Uint32(p))
		default:
			h.Arg = binary.BigEndian.Uint64(p)
		}
		d.off += 1 + n
	case h.Info == 31:
		switch h.Major {
		case MajorBytes, MajorText, MajorArray, MajorMap, MajorSimple:
			h.Indefinite = true
			d.off++
		default:
			return Head{}, Errorf(ErrMalformed, start, "additional information 31 with "+h.Major.String())
		}
	default:
		return Head{}, Errorf(ErrMalformed, start, "reserved additional information "+strconv.Itoa(int(h.Info)))
	}
	if h.Major == MajorSimple && h.Info == 24 && h.Arg < 32 {
		return Head{}, Errorf(ErrMalformed, start, "two-byte simple value below 32")
	}
	return h, nil
}

// typeError describes an item of the wrong type at off, telling floats and
// tags apart because the protocol forbids them specifically.
func typeError(h Head, off int, want string) *Error {
	switch {
	case h.Major == MajorTag:
		return Errorf(ErrTag, off, "tag "+strconv.FormatUint(h.Arg, 10)+" where "+want+" was expected")
	case h.Major == MajorSimple && h.Info >= 25 && h.Info <= 27:
		return Errorf(ErrFloat, off, "float where "+want+" was expected")
	case h.Major == MajorSimple && h.Indefinite:
		return Errorf(ErrMalformed, off, "break code where "+want+" was expected")
	case h.Major == MajorSimple:
		return Errorf(ErrType, off, simpleName(h)+" where "+want+" was expected")
	}
	return Errorf(ErrType, off, h.Major.String()+" where "+want+" was expected")
}

func simpleName(h Head) string {
	switch h.Arg {
	case 20:
		return "false"
	case 21:
		return "true"
	case 22:
		return "null"
	case 23:
		return "undefined"
	}
	return "simple value " + strconv.FormatUint(h.Arg, 10)
}

// Uint reads an unsigned integer (major type 0).
func (d *Decoder) Uint() (uint64, error) {
	// Fast paths: heads of one, two and three bytes.
	if d.off < len(d.buf) {
		switch b := d.buf[d.off]; {
		case b < 24:
			d.off++
			return uint64(b), nil
		case b == 0x18 && d.off+1 < len(d.buf):
			v := uint64(d.buf[d.off+1])
			d.off += 2
			return v, nil
		case b == 0x19 && d.off+2 < len(d.buf):
			v := uint64(d.buf[d.off+1])<<8 | uint64(d.buf[d.off+2])
			d.off += 3
			return v, nil
		}
	}
	h, _, err := d.headOf(MajorUint, "an unsigned integer")
	return h.Arg, err
}

// headOf reads a head of major type m at start, the offset it returns.
// A head of another type is not consumed, and its error says that want
// was expected.
func (d *Decoder) headOf(m Major, want string) (h Head, start int, err error) {
	start = d.off
	if h, err = d.ReadHead(); err != nil {
		return Head{}, start, err
	}
	if h.Major != m {
		d.off = start
		return Head{}, start, typeError(h, start, want)
	}
	return h, start, nil
}

// Uint32 reads an unsigned integer that must fit in 32 bits.
func (d *Decoder) Uint32() (uint32, error) {
	start := d.off
	v, err := d.Uint()
	if err != nil {
		return 0, err
	}
	if v > 0xffffffff {
		return 0, Errorf(ErrRange, start, strconv.FormatUint(v, 10)+" does not fit in u32")
	}
	return uint32(v), nil
}

// Int reads a signed integer (major type 0 or 1) that fits in an int64.
func (d *Decoder) Int() (int64, error) {
	// Fast paths: heads of one, two and three bytes, either sign.
	if d.off < len(d.buf) {
		b := d.buf[d.off]
		switch info := b & 0x1f; {
		case b >= 0x40:
		case info < 24 && (b < 0x18 || b >= 0x20):
			d.off++
			if b < 0x20 {
				return int64(b), nil
			}
			return -1 - int64(b-0x20), nil
		case info == 24 && d.off+1 < len(d.buf):
			v := int64(d.buf[d.off+1])
			d.off += 2
			if b < 0x20 {
				return v, nil
			}
			return -1 - v, nil
		case info == 25 && d.off+2 < len(d.buf):
			v := int64(d.buf[d.off+1])<<8 | int64(d.buf[d.off+2])
			d.off += 3
			if b < 0x20 {
				return v, nil
			}
			return -1 - v, nil
		}
	}
	start := d.off
	h, err := d.ReadHead()
	if err != nil {
		return 0, err
	}
	switch h.Major {
	case MajorUint:
		if h.Arg > 1<<63-1 {
			return 0, Errorf(ErrRange, start, strconv.FormatUint(h.Arg, 10)+" does not fit in i64")
		}
		return int64(h.Arg), nil
	case MajorNegInt:
		if h.Arg > 1<<63-1 {
			return 0, Errorf(ErrRange, start, "-1-"+strconv.FormatUint(h.Arg, 10)+" does not fit in i64")
		}
		return -1 - int64(h.Arg), nil
	}
	d.off = start
	return 0, typeError(h, start, "an integer")
}

// Int32 reads a signed integer that must fit in 32 bits.
func (d *Decoder) Int32() (int32, error) {
	start := d.off
	v, err := d.Int()
	if err != nil {
		return 0, err
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, Errorf(ErrRange, start, strconv.FormatInt(v, 10)+" does not fit in i32")
	}
	return int32(v), nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if d.off < len(d.buf) {
		switch d.buf[d.off] {
		case True:
			d.off++
			return true, nil
		case False:
			d.off++
			return false, nil
		}
	}
	start := d.off
	h, err := d.ReadHead()
	if err != nil {
		return false, err
	}
	d.off = start
	return false, typeError(h, start, "a boolean")
}

// Null consumes a null and reports true if the next item is one.
func (d *Decoder) Null() bool {
	if d.off < len(d.buf) && d.buf[d.off] == Null {
		d.off++
		return true
	}
	return false
}

// Break consumes a break stop code and reports true if the next byte is one.
func (d *Decoder) Break() bool {
	if d.off < len(d.buf) && d.buf[d.off] == Break {
		d.off++
		return true
	}
	return false
}

// Text reads a text string and checks that it is valid UTF-8. A definite
// string is returned as a subslice of the input; an indefinite one is
// joined into a new slice.
func (d *Decoder) Text() ([]byte, error) { return d.str(MajorText, "a text string") }

// Bytes reads a byte string. A definite string is returned as a subslice of
// the input; an indefinite one is joined into a new slice.
func (d *Decoder) Bytes() ([]byte, error) { return d.str(MajorBytes, "a byte string") }

func (d *Decoder) str(m Major, want string) ([]byte, error) {
	// Fast path: a definite string with a one- or two-byte head.
	if d.off < len(d.buf) {
		b := d.buf[d.off]
		if b>>5 == byte(m) && b&0x1f <= 24 {
			n, h := int(b&0x1f), 1
			if n == 24 && d.off+1 < len(d.buf) {
				n, h = int(d.buf[d.off+1]), 2
			}
			if n < 24 || h == 2 {
				if s := d.buf[d.off+h:]; n <= len(s) {
					s = s[:n:n]
					if m == MajorText && !d.trusted && !ValidUTF8(s) {
						return nil, Errorf(ErrUTF8, d.off, "text string is not valid UTF-8")
					}
					d.off += h + n
					return s, nil
				}
			}
		}
	}
	h, start, err := d.headOf(m, want)
	if err != nil {
		return nil, err
	}
	if h.Indefinite {
		return d.indefiniteString(m, start)
	}
	s, err := d.chunk(h.Arg, want)
	if err != nil {
		return nil, err
	}
	if m == MajorText && !d.trusted && !ValidUTF8(s) {
		return nil, Errorf(ErrUTF8, start, "text string is not valid UTF-8")
	}
	return s, nil
}

// chunk consumes n bytes of string content.
func (d *Decoder) chunk(n uint64, what string) ([]byte, error) {
	if n > uint64(len(d.buf)-d.off) {
		return nil, Errorf(ErrTruncated, d.off, "string of "+strconv.FormatUint(n, 10)+" bytes with "+strconv.Itoa(len(d.buf)-d.off)+" left, in "+what)
	}
	s := d.buf[d.off : d.off+int(n) : d.off+int(n)]
	d.off += int(n)
	return s, nil
}

func (d *Decoder) indefiniteString(m Major, start int) ([]byte, error) {
	var out []byte
	for {
		if d.Break() {
			if out == nil {
				out = []byte{}
			}
			return out, nil
		}
		cs := d.off
		h, err := d.ReadHead()
		if err != nil {
			return nil, err
		}
		if h.Major != m || h.Indefinite {
			return nil, Errorf(ErrMalformed, cs, "chunk of an indefinite "+m.String()+" is a "+h.Major.String())
		}
		c, err := d.chunk(h.Arg, m.String()+" chunk")
		if err != nil {
			return nil, err
		}
		if m == MajorText && !d.trusted && !ValidUTF8(c) {
			return nil, Errorf(ErrUTF8, cs, "text chunk is not valid UTF-8")
		}
		out = append(out, c...)
	}
}

// container reads an array or map head. n is the number of items (arrays)
// or pairs (maps), -1 when the container has indefinite length. A definite
// count is checked against the bytes left (each item takes at least one
// byte), so a caller may reserve n elements without trusting the input.
func (d *Decoder) container(m Major, want string) (int, error) {
	// Fast path: a one-byte head of the right major type.
	if d.off < len(d.buf) {
		if b := d.buf[d.off]; b>>5 == byte(m) && b&0x1f < 24 {
			n := int(b & 0x1f)
			if m == MajorMap {
				n *= 2
			}
			if n <= len(d.buf)-d.off-1 {
				d.off++
				return int(b & 0x1f), nil
			}
		}
	}
	h, start, err := d.headOf(m, want)
	if err != nil {
		return 0, err
	}
	if h.Indefinite {
		return -1, nil
	}
	per := uint64(1)
	if m == MajorMap {
		per = 2
	}
	left := uint64(len(d.buf) - d.off)
	if h.Arg > left/per {
		unit := " elements"
		if m == MajorMap {
			unit = " pairs"
		}
		return 0, Errorf(ErrTruncated, start, want+" of "+strconv.FormatUint(h.Arg, 10)+unit+" with only "+strconv.FormatUint(left, 10)+" bytes left")
	}
	return int(h.Arg), nil
}

// ArrayHead reads an array head; see container for n.
func (d *Decoder) ArrayHead() (n int, err error) { return d.container(MajorArray, "an array") }

// MapHead reads a map head; see container for n.
func (d *Decoder) MapHead() (n int, err error) { return d.container(MajorMap, "a map") }

// More reports whether a container with count n (-1: indefinite) has
// another element after i elements, consuming the break code of an
// indefinite container when it ends.
func (d *Decoder) More(n, i int) bool {
	if n >= 0 {
		return i < n
	}
	return !d.Break()
}

// MaxSkipNesting bounds the indefinite-length containers Skip keeps open at
// once; definite containers cost Skip no memory at all.
const MaxSkipNesting = 1024

// Advance consumes n bytes the caller has already looked at (PeekByte).
func (d *Decoder) Advance(n int) { d.off = min(d.off+n, len(d.buf)) }

// Skip consumes one well-formed item of any type, without recursion.
func (d *Decoder) Skip() error {
	// Fast path: an integer or simple value with a one-byte head.
	if d.off < len(d.buf) {
		if b := d.buf[d.off]; b < 0x18 || (b >= 0x20 && b < 0x38) || (b >= 0xe0 && b < 0xf8) {
			d.off++
			return nil
		}
	}
	if d.SkipDefinite() {
		return nil
	}
	return d.skipSlow(nil)
}

// SkipDefinite skips one item built only of integers, simple values 0 to
// 23, definite-length strings and definite-length containers, and reports
// true. At anything else (an indefinite length, a tag, a float, a
// malformed or truncated item) it moves nothing and reports false, and
// Skip judges the item from its start.
func (d *Decoder) SkipDefinite() bool {
	b, i := d.buf, d.off
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
			switch n {
			case 1:
				arg = uint64(b[i+1])
			case 2:
				arg = uint64(binary.BigEndian.Uint16(b[i+1:]))
			case 4:
				arg = uint64(binary.BigEndian.Uint32(b[i+1:]))
			default:
				arg = binary.BigEndian.Uint64(b[i+1:])
			}
			i += 1 + n
		default:
			return false
		}
		left := uint64(len(b) - i)
		switch Major(c >> 5) {
		case MajorUint, MajorNegInt:
		case MajorBytes, MajorText:
			if arg > left {
				return false
			}
			if c>>5 == byte(MajorText) && !d.trusted && !ValidUTF8(b[i:i+int(arg)]) {
				return false
			}
			i += int(arg)
		case MajorArray:
			// Every item still to skip takes a byte at least: claims
			// that the bytes left cannot hold together fail at once.
			if arg > left-min(left, uint64(pending-1)) {
				return false
			}
			pending += int(arg)
		case MajorMap:
			if arg > (left-min(left, uint64(pending-1)))/2 {
				return false
			}
			pending += 2 * int(arg)
		case MajorSimple:
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

// skipSlow is Skip for any item. With counts, it also appends the number
// of items (pairs, for a map) of each indefinite-length container it
// meets, in the order their heads come.
func (d *Decoder) skipSlow(counts *[]int) error {
	// pending counts the items still to skip in the innermost run of
	// definite containers. Each open indefinite container saves the
	// pending count of its parent, and counts its own items so that a map
	// with an odd number of them is caught.
	type indef struct {
		saved uint64
		items uint64
		slot  int // its place in counts
		isMap bool
	}
	var openBuf [8]indef
	open := openBuf[:0]
	pending := uint64(1)
	outer := uint64(0) // the items still to skip of the runs around the innermost (saved)
	for {
		if pending == 0 {
			if len(open) == 0 {
				return nil
			}
			top := &open[len(open)-1]
			if d.off < len(d.buf) && d.buf[d.off] == Break {
				if top.isMap && top.items%2 != 0 {
					return Errorf(ErrMalformed, d.off, "indefinite-length map ends after a key")
				}
				d.off++
				if counts != nil {
					(*counts)[top.slot] = int(top.items) / (1 + btoi(top.isMap))
				}
				pending = top.saved
				outer -= top.saved
				open = open[:len(open)-1]
				continue
			}
			top.items++
			pending = 1
		}
		start := d.off
		h, err := d.ReadHead()
		if err != nil {
			return err
		}
		pending--
		left := uint64(len(d.buf) - d.off)
		switch h.Major {
		case MajorBytes, MajorText:
			if h.Indefinite {
				if err := d.skipIndefiniteString(h.Major); err != nil {
					return err
				}
			} else if s, err := d.chunk(h.Arg, h.Major.String()); err != nil {
				return err
			} else if h.Major == MajorText && !d.trusted && !ValidUTF8(s) {
				return Errorf(ErrUTF8, start, "text string is not valid UTF-8")
			}
		case MajorArray, MajorMap:
			if h.Indefinite {
				if len(open) >= MaxSkipNesting {
					return Errorf(ErrDepth, start, "more than "+strconv.Itoa(MaxSkipNesting)+" nested indefinite-length containers")
				}
				slot := 0
				if counts != nil {
					slot = len(*counts)
					*counts = append(*counts, 0)
				}
				open = append(open, indef{saved: pending, slot: slot, isMap: h.Major == MajorMap})
				outer += pending
				pending = 0
				continue
			}
			n := h.Arg
			if h.Major == MajorMap {
				if n > left/2 {
					return Errorf(ErrTruncated, start, "map of "+strconv.FormatUint(n, 10)+" pairs with only "+strconv.FormatUint(left, 10)+" bytes left")
				}
				n *= 2
			} else if n > left {
				return Errorf(ErrTruncated, start, "array of "+strconv.FormatUint(n, 10)+" elements with only "+strconv.FormatUint(left, 10)+" bytes left")
			}
			// Every item still to skip takes a byte at least.
			if rest := pending + outer; n > left-min(left, rest) {
				return Errorf(ErrTruncated, start, h.Major.String()+" of "+strconv.FormatUint(n, 10)+" items with "+strconv.FormatUint(left, 10)+
					" bytes left and "+strconv.FormatUint(rest, 10)+" more items still to come")
			}
			pending += n
		case MajorTag:
			pending++ // the tagged item follows
		case MajorSimple:
			if h.Indefinite {
				return Errorf(ErrMalformed, start, "unexpected break code")
			}
		}
	}
}

func (d *Decoder) skipIndefiniteString(m Major) error {
	for !d.Break() {
		cs := d.off
		h, err := d.ReadHead()
		if err != nil {
			return err
		}
		if h.Major != m || h.Indefinite {
			return Errorf(ErrMalformed, cs, "chunk of an indefinite "+m.String()+" is a "+h.Major.String())
		}
		c, err := d.chunk(h.Arg, m.String()+" chunk")
		if err != nil {
			return err
		}
		if m == MajorText && !d.trusted && !ValidUTF8(c) {
			return Errorf(ErrUTF8, cs, "text chunk is not valid UTF-8")
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
