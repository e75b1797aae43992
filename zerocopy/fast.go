package zerocopy

import (
	"encoding/binary"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// The canonical encoder writes a node's pairs in a handful of shapes: a
// one-byte key, then a small integer, a bounds array of small integers or
// a short text. fastNodePair reads such a pair straight from the bytes;
// any other pair (null, scroll, children, long heads, unknown keys) is
// left to the general path, which decides exactly as cbor.Decoder does.
// The fast path accepts only what the general path accepts, with the same
// values.

// u32At reads an unsigned integer of at most 32 bits at b[i:], returning
// the bytes it takes, or 0 when the head is not one of these.
func u32At(b []byte, i int) (uint32, int) {
	if i >= len(b) {
		return 0, 0
	}
	switch c := b[i]; {
	case c < 24:
		return uint32(c), 1
	case c == 0x18 && i+2 <= len(b):
		return uint32(b[i+1]), 2
	case c == 0x19 && i+3 <= len(b):
		return uint32(binary.BigEndian.Uint16(b[i+1:])), 3
	case c == 0x1a && i+5 <= len(b):
		return binary.BigEndian.Uint32(b[i+1:]), 5
	}
	return 0, 0
}

// u64At reads an unsigned integer at b[i:] like u32At, up to 64 bits.
func u64At(b []byte, i int) (uint64, int) {
	if i >= len(b) {
		return 0, 0
	}
	c := b[i]
	if c < 24 {
		return uint64(c), 1
	}
	if c >= 0x18 && c <= 0x1b {
		if n := 1 << (c - 0x18); i+1+n <= len(b) {
			return argAt(b[i+1:], n), 1 + n
		}
	}
	return 0, 0
}

// i32At reads a signed integer with a head of at most three bytes (which
// always fits in 32 bits).
func i32At(b []byte, i int) (int32, int) {
	if i >= len(b) {
		return 0, 0
	}
	switch c := b[i]; {
	case c < 24:
		return int32(c), 1
	case c >= 0x20 && c < 0x38:
		return -1 - int32(c-0x20), 1
	case c == 0x18 && i+2 <= len(b):
		return int32(b[i+1]), 2
	case c == 0x38 && i+2 <= len(b):
		return -1 - int32(b[i+1]), 2
	case c == 0x19 && i+3 <= len(b):
		return int32(binary.BigEndian.Uint16(b[i+1:])), 3
	case c == 0x39 && i+3 <= len(b):
		return -1 - int32(binary.BigEndian.Uint16(b[i+1:])), 3
	}
	return 0, 0
}

// textAt reads a definite text string with a head of one or two bytes,
// checking its UTF-8 unless trusted.
func textAt(b []byte, i int, trusted bool) (string, int) {
	if i >= len(b) {
		return "", 0
	}
	c := b[i]
	var start, end int
	switch {
	case c >= 0x60 && c < 0x78:
		start, end = i+1, i+1+int(c-0x60)
	case c == 0x78 && i+2 <= len(b):
		start, end = i+2, i+2+int(b[i+1])
	default:
		return "", 0
	}
	if end > len(b) {
		return "", 0
	}
	s := b[start:end:end]
	if !trusted && !cbor.ValidUTF8(s) {
		return "", 0
	}
	return str(s), end - i
}

// fastNodePair reads the pair at d's position into nv if it has one of
// the canonical shapes, and reports whether it did.
func fastNodePair(d *dec, nv *NodeView, seen *uint32) bool {
	b, i := d.Input(), d.Offset()
	if i+1 >= len(b) {
		return false
	}
	k := b[i]
	i++
	switch k {
	case 0, 1, 3, 6:
		var v uint32
		var n int
		if c := b[i]; c < 24 {
			v, n = uint32(c), 1
		} else if c == 0x19 && i+3 <= len(b) {
			v, n = uint32(b[i+1])<<8|uint32(b[i+2]), 3
		} else if v, n = u32At(b, i); n == 0 {
			return false
		}
		switch k {
		case 0:
			nv.ID = v
		case 1:
			nv.Class = v
		case 3:
			nv.Flags = v
		default:
			nv.ResPkg = codec.Opt[uint32]{Val: v, Ok: true}
		}
		i += n
	case 2:
		if b[i] != 0x84 {
			return false
		}
		i++
		var v [4]int32
		for j := range v {
			if i >= len(b) {
				return false
			}
			if c := b[i]; c < 24 {
				v[j] = int32(c)
				i++
			} else if c == 0x19 && i+3 <= len(b) {
				v[j] = int32(b[i+1])<<8 | int32(b[i+2])
				i += 3
			} else {
				x, n := i32At(b, i)
				if n == 0 {
					return false
				}
				v[j] = x
				i += n
			}
		}
		nv.Bounds = codec.Bounds{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]}
	case 4, 5, 7, 10, 11:
		var s string
		var n int
		if c := b[i]; c >= 0x60 && c < 0x78 && i+1+int(c-0x60) <= len(b) && (d.Trusted() || ascii(b[i+1:i+1+int(c-0x60)])) {
			s, n = str(b[i+1:i+1+int(c-0x60)]), 1+int(c-0x60)
		} else if s, n = textAt(b, i, d.Trusted()); n == 0 {
			return false
		}
		o := codec.Opt[string]{Val: s, Ok: true}
		switch k {
		case 4:
			nv.Text = o
		case 5:
			nv.Desc = o
		case 7:
			nv.ResName = o
		case 10:
			nv.Hint = o
		default:
			nv.State = o
		}
		i += n
	default:
		return false
	}
	*seen |= 1 << k
	d.Seek(i)
	return true
}

// ascii reports whether b is all ASCII (and so valid UTF-8).
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// checkNodePair is fastNodePair for the validation pass, which keeps no
// values: it checks a canonical pair at d's position and records its key
// in seen.
func checkNodePair(d *dec, seen *uint32) bool {
	b, i := d.Input(), d.Offset()
	if i+1 >= len(b) {
		return false
	}
	k := b[i]
	i++
	switch k {
	case 0, 1, 3, 6:
		if c := b[i]; c < 24 {
			i++
		} else if _, n := u32At(b, i); n > 0 {
			i += n
		} else {
			return false
		}
	case 2:
		if b[i] != 0x84 {
			return false
		}
		i++
		for j := 0; j < 4; j++ {
			if i >= len(b) {
				return false
			}
			if c := b[i]; c < 24 || (c >= 0x20 && c < 0x38) {
				i++
			} else if c&^0x20 == 0x19 && i+3 <= len(b) {
				i += 3
			} else if _, n := i32At(b, i); n > 0 {
				i += n
			} else {
				return false
			}
		}
	case 4, 5, 7, 10, 11:
		if c := b[i]; c >= 0x60 && c < 0x78 && i+1+int(c-0x60) <= len(b) && ascii(b[i+1:i+1+int(c-0x60)]) {
			i += 1 + int(c-0x60)
		} else if _, n := textAt(b, i, false); n > 0 {
			i += n
		} else {
			return false
		}
	default:
		return false
	}
	*seen |= 1 << k
	d.Seek(i)
	return true
}
