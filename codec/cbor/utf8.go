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

// hiBits is the top bit of each byte of a word: a word of ASCII has none.
const hiBits = 0x8080808080808080

// second[c] is the range of the second byte of a sequence that c leads,
// low bound in the low byte, high bound in the high byte. A byte that
// leads none has the empty range 0xff..0x00, which no byte is in, so the
// range check refuses it with no test of its own.
var second = func() (t [256]uint16) {
	for c := range t {
		t[c] = 0x00ff
	}
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
	n := len(s)
	// A text of up to 16 bytes, the commonest, is tested for all ASCII
	// at once: two loads that overlap cover it.
	var w uint64
	switch {
	case n >= 8:
		if n <= 16 {
			w = binary.LittleEndian.Uint64(s) | binary.LittleEndian.Uint64(s[n-8:])
		} else {
			w = hiBits
		}
	case n >= 4:
		w = uint64(binary.LittleEndian.Uint32(s) | binary.LittleEndian.Uint32(s[n-4:]))
	case n > 0:
		w = uint64(s[0]) | uint64(s[n>>1]) | uint64(s[n-1])
	default:
		return true
	}
	if w&hiBits == 0 {
		return true
	}
	i := 0
	for {
		// ASCII: whole words, then the word that ends the text,
		// shifted past the bytes read already.
		for ; i+8 <= n; i += 8 {
			if m := binary.LittleEndian.Uint64(s[i:i+8]) & hiBits; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto multi
			}
		}
		if i == n {
			return true
		}
		if n >= 8 {
			m := binary.LittleEndian.Uint64(s[n-8:]) >> (uint(8-(n-i)) * 8) & hiBits
			if m == 0 {
				return true
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for s[i] < 0x80 {
				if i++; i == n {
					return true
				}
			}
		}
	multi:
		// s[i] is not ASCII: the sequences that follow one another from
		// here, each read as one word of four bytes (zeros past the
		// end, which no check accepts as part of a sequence).
		for {
			var w uint32
			if n-i >= 4 {
				w = binary.LittleEndian.Uint32(s[i:])
				// Two sequences of two bytes, as in a word of Cyrillic,
				// Greek, Arabic or Hebrew, in one test: each a lead of
				// 110xxxxx but no overlong 0xc0 or 0xc1, then a
				// continuation 10xxxxxx.
				if w&0xc0e0c0e0 == 0x80c080c0 && w&0x1e != 0 && w&0x1e0000 != 0 {
					if i += 4; i >= n {
						return true
					}
					if s[i] < 0x80 {
						break
					}
					continue
				}
			} else {
				w = lastBytes(s, i)
			}
			c := byte(w)
			r := second[c]
			if b := byte(w >> 8); b < byte(r) || b > byte(r>>8) {
				return false
			}
			switch {
			case c < 0xe0:
				i += 2
			case c < 0xf0:
				if w&0xc00000 != 0x800000 {
					return false
				}
				i += 3
			default:
				if w&0xc0c00000 != 0x80800000 {
					return false
				}
				i += 4
			}
			if i >= n {
				return true
			}
			if s[i] < 0x80 {
				break
			}
		}
	}
}

// lastBytes is the one to three bytes of s from i, as a little-endian
// word with zeros past the end.
func lastBytes(s []byte, i int) uint32 {
	if len(s) >= 4 {
		return binary.LittleEndian.Uint32(s[len(s)-4:]) >> (uint(i+4-len(s)) * 8)
	}
	var w uint32
	for j := len(s) - 1; j >= i; j-- {
		w = w<<8 | uint32(s[j])
	}
	return w
}
