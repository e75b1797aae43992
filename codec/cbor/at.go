package cbor

import "encoding/binary"

// Readers of CBOR items at an offset of a byte slice, with no decoder
// state: the straight-line fast paths of package codec and package
// zerocopy are made of them (the writers at an offset are in put.go).

// Readers at an offset, for the fast paths of the codec and the views:
// each reads the item whose head starts at b[i] and returns it with the
// bytes it takes, or 0 bytes when the item there is not of the kind asked
// for, does not fit the type, or is cut short. They never fail loudly: a
// caller that gets 0 hands the item to Decoder, which reports why.

// UintAt reads an unsigned integer (major type 0) at b[i].
func UintAt(b []byte, i int) (uint64, int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	c := b[i]
	switch {
	case c < 24:
		return uint64(c), 1
	case c == 0x18 && i+2 <= len(b):
		return uint64(b[i+1]), 2
	case c == 0x19 && i+3 <= len(b):
		return uint64(binary.BigEndian.Uint16(b[i+1:])), 3
	case c == 0x1a && i+5 <= len(b):
		return uint64(binary.BigEndian.Uint32(b[i+1:])), 5
	case c == 0x1b && i+9 <= len(b):
		return binary.BigEndian.Uint64(b[i+1:]), 9
	}
	return 0, 0
}

// Uint32At reads an unsigned integer that fits in 32 bits at b[i].
func Uint32At(b []byte, i int) (uint32, int) {
	v, n := UintAt(b, i)
	if v > 0xffffffff {
		return 0, 0
	}
	return uint32(v), n
}

// UintArray reads b when it is exactly one definite array whose head is
// one byte (at most 23 elements) and whose elements are all unsigned
// integers, at most len(dst) of them: it stores them in dst and returns
// their count. For anything else it returns -1, dst's contents then
// unspecified.
func UintArray(b []byte, dst []uint64) int {
	if len(b) == 0 || b[0] < 0x80 || b[0] > 0x97 || int(b[0]-0x80) > len(dst) {
		return -1
	}
	n := int(b[0] - 0x80)
	i := 1
	for k := range dst[:n] {
		if i < len(b) && b[i] < 24 { // most are: read in line
			dst[k] = uint64(b[i])
			i++
			continue
		}
		v, w := UintAt(b, i)
		if w == 0 {
			return -1
		}
		dst[k] = v
		i += w
	}
	if i != len(b) {
		return -1
	}
	return n
}

// IntAt reads an integer of either sign (major type 0 or 1) that fits in
// an int64 at b[i].
func IntAt(b []byte, i int) (int64, int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	c := b[i]
	if c < 24 {
		return int64(c), 1
	}
	neg := c >= 0x20 && c < 0x3c
	if neg {
		c -= 0x20
	}
	var v uint64
	n := 0
	switch {
	case c < 24:
		v, n = uint64(c), 1
	case c == 0x18 && i+2 <= len(b):
		v, n = uint64(b[i+1]), 2
	case c == 0x19 && i+3 <= len(b):
		v, n = uint64(binary.BigEndian.Uint16(b[i+1:])), 3
	case c == 0x1a && i+5 <= len(b):
		v, n = uint64(binary.BigEndian.Uint32(b[i+1:])), 5
	case c == 0x1b && i+9 <= len(b):
		v, n = binary.BigEndian.Uint64(b[i+1:]), 9
	}
	if n == 0 || v > 1<<63-1 || (!neg && b[i] >= 0x20) {
		return 0, 0
	}
	if neg {
		return -1 - int64(v), n
	}
	return int64(v), n
}

// Int32At reads an integer that fits in 32 bits at b[i].
func Int32At(b []byte, i int) (int32, int) {
	v, n := IntAt(b, i)
	if v < -1<<31 || v > 1<<31-1 {
		return 0, 0
	}
	return int32(v), n
}

// TextAt locates a definite text string with a head of one to three bytes
// at b[i]: its content is b[start:end], end 0 when the item there is not
// one. Checking the UTF-8 is the caller's (ValidUTF8In).
func TextAt(b []byte, i int) (start, end int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	c := b[i]
	var l int
	switch {
	case c >= 0x60 && c < 0x78:
		start, l = i+1, int(c-0x60)
	case c == 0x78 && i+2 <= len(b):
		start, l = i+2, int(b[i+1])
	case c == 0x79 && i+3 <= len(b):
		start, l = i+3, int(binary.BigEndian.Uint16(b[i+1:]))
	default:
		return 0, 0
	}
	if l > len(b)-start {
		return 0, 0
	}
	return start, start + l
}

// ArrayAt reads a definite array head of one to three bytes at b[i]: the
// element count and the head's length, 0 when it is not one.
func ArrayAt(b []byte, i int) (n, head int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	switch c := b[i]; {
	case c >= 0x80 && c < 0x98:
		return int(c - 0x80), 1
	case c == 0x98 && i+2 <= len(b):
		return int(b[i+1]), 2
	case c == 0x99 && i+3 <= len(b):
		return int(binary.BigEndian.Uint16(b[i+1:])), 3
	}
	return 0, 0
}

// ValidTextAt is TextAt for a text whose content is valid UTF-8: end is
// 0 also when it is not. Heads of one and two bytes (texts up to 255
// bytes, the commonest) are read here, and a short ASCII text is checked
// in line (ShortASCII), without a call.
func ValidTextAt(b []byte, i int) (start, end int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	switch c := b[i]; {
	case c >= 0x60 && c < 0x78:
		start, end = i+1, i+1+int(c-0x60)
	case c == 0x78 && i+1 < len(b):
		start, end = i+2, i+2+int(b[i+1])
	default:
		if start, end = TextAt(b, i); end == 0 {
			return 0, 0
		}
	}
	if end > len(b) || !ShortASCII(b, start, end) && !ValidUTF8(b[start:end]) {
		return 0, 0
	}
	return start, end
}

// ValidUTF8In reports whether b[s:e] is valid UTF-8. Texts read in place
// are short: ShortASCII tests one of at most 16 bytes in line before
// ValidUTF8 is called at all. It is not inlined itself: a hot loop
// that wants the test in line writes the two calls (ValidTextAt does).
func ValidUTF8In(b []byte, s, e int) bool {
	return ShortASCII(b, s, e) || ValidUTF8(b[s:e])
}

// ShortASCII reports whether b[s:e] is ASCII, for a text of at most 16
// bytes that ends at least 8 bytes into b; false for any other, which
// the caller then checks in full. It reads the text as one or two words,
// the first of which ends at e and may reach back before the text, into
// bytes already read (a shift drops them). Inlined, it spares a call for
// the commonest text.
func ShortASCII(b []byte, s, e int) bool {
	l := e - s
	if l > 16 || e < 8 {
		return false
	}
	w := binary.LittleEndian.Uint64(b[e-8 : e])
	if l < 8 {
		w >>= uint(8-l) * 8 & 63 // l is 1 to 7 here but for an empty text, which the whole word decides
	} else {
		w |= binary.LittleEndian.Uint64(b[s : s+8])
	}
	return w&0x8080808080808080 == 0
}
