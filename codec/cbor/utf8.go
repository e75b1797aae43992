package cbor

import (
	"encoding/binary"
	"math/bits"
)

// The texts of a tree are short and mostly ASCII, with here and there a
// word of accented Latin, CJK or emoji. ValidUTF8 reads the ASCII runs a
// word at a time, also inside a text that is not all ASCII (where
// utf8.Valid goes byte by byte once it meets the first non-ASCII byte),
// and checks each multi-byte sequence in line as RFC 3629 has it: no
// overlong form, no surrogate, nothing past U+10FFFF. It accepts exactly
// what utf8.Valid accepts.

// second[c] is the range of the second byte of a sequence that c leads,
// low bound in the low byte, high bound in the high byte; 0 for a byte
// that leads none.
var second = func() (t [256]uint16) {
	for c := 0xc2; c <= 0xf4; c++ {
		lo, hi := 0x80, 0xbf
		switch c {
		case 0xe0:
			lo = 0xa0 // no overlong form
		case 0xed:
			hi = 0x9f // no surrogate
		case 0xf0:
			lo = 0x90 // no overlong form
		case 0xf4:
			hi = 0x8f // nothing past U+10FFFF
		}
		t[c] = uint16(hi)<<8 | uint16(lo)
	}
	return t
}()

// ValidUTF8 reports whether s is valid UTF-8: exactly what utf8.Valid
// accepts, faster on short, mostly-ASCII text.
func ValidUTF8(s []byte) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x80 {
			var m uint64
			switch rest := len(s) - i; {
			case rest >= 8:
				if m = binary.LittleEndian.Uint64(s[i:]) & 0x8080808080808080; m == 0 {
					i += 8
					continue
				}
			case len(s) >= 8:
				// The last bytes: the word that ends the text, shifted
				// past the bytes already read.
				if m = binary.LittleEndian.Uint64(s[len(s)-8:]) >> (uint(8-rest) * 8) & 0x8080808080808080; m == 0 {
					return true
				}
			default:
				i++
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			c = s[i]
		}
		r := second[c]
		if i+1 >= len(s) || r == 0 || s[i+1] < byte(r) || s[i+1] > byte(r>>8) {
			return false
		}
		switch {
		case c < 0xe0:
			i += 2
		case c < 0xf0:
			if i+2 >= len(s) || s[i+2]&0xc0 != 0x80 {
				return false
			}
			i += 3
		default:
			if i+3 >= len(s) || s[i+2]&0xc0 != 0x80 || s[i+3]&0xc0 != 0x80 {
				return false
			}
			i += 4
		}
	}
	return true
}
