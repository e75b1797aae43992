package zerocopy

import (
	"encoding/binary"
)

// Item heads read straight from the bytes, for the fast paths of the
// canonical layouts. Each returns the value and the bytes the item takes,
// or 0 bytes when the item is not one it reads: the caller then leaves it
// to cbor.Decoder, which decides exactly. What a reader here accepts,
// cbor.Decoder accepts with the same value.

// argBytes[c] is the number of argument bytes after the initial byte c
// of an integer (major type 0 or 1) whose argument fits in 32 bits: 0, 1,
// 2 or 4; noArg for anything else.
var argBytes = func() (t [256]uint8) {
	for c := range t {
		t[c] = noArg
		if c>>5 <= 1 {
			switch info := c & 0x1f; {
			case info < 24:
				t[c] = 0
			case info == 24:
				t[c] = 1
			case info == 25:
				t[c] = 2
			case info == 26:
				t[c] = 4
			}
		}
	}
	return t
}()

const noArg = 0xff

// arg32 reads the argument of the integer head at b[i:], of at most 32
// bits, with no branch on its length when four bytes follow the head:
// the argument, and the head's length, 0 when it is not one.
func arg32(b []byte, i int) (uint32, int) {
	if i < 0 || i+5 > len(b) {
		return arg32Short(b, i)
	}
	c := b[i]
	n := uint(argBytes[c])
	if n == noArg {
		return 0, 0
	}
	v := binary.BigEndian.Uint32(b[i+1:]) >> ((4 - n) * 8)
	if n == 0 {
		v = uint32(c & 0x1f)
	}
	return v, int(n) + 1
}

// arg32Short is arg32 near the end of b.
func arg32Short(b []byte, i int) (uint32, int) {
	if i < 0 || i >= len(b) {
		return 0, 0
	}
	c := b[i]
	n := int(argBytes[c])
	if n == noArg || i+1+n > len(b) {
		return 0, 0
	}
	if n == 0 {
		return uint32(c & 0x1f), 1
	}
	return uint32(argAt(b[i+1:], n)), n + 1
}

// u32At reads an unsigned integer of at most 32 bits at b[i:].
func u32At(b []byte, i int) (uint32, int) {
	v, n := arg32(b, i)
	if n == 0 || b[i] >= 0x20 {
		return 0, 0
	}
	return v, n
}

// i32At reads a signed integer that fits in 32 bits at b[i:].
func i32At(b []byte, i int) (int32, int) {
	v, n := arg32(b, i)
	if n == 0 || v > 1<<31-1 {
		return 0, 0
	}
	// Major type 1 is -1-v: v with every bit flipped.
	return int32(v) ^ -int32(b[i]>>5), n
}

// i64At reads a signed integer that fits in an int64 at b[i:].
func i64At(b []byte, i int) (int64, int) {
	if i < 0 || i >= len(b) || b[i] >= 0x40 {
		return 0, 0
	}
	c := b[i]
	info := c & 0x1f
	arg, n := uint64(info), 1
	switch {
	case info < 24:
	case info <= 27:
		w := 1 << (info - 24)
		if i+1+w > len(b) {
			return 0, 0
		}
		arg, n = argAt(b[i+1:], w), 1+w
		if arg > 1<<63-1 {
			return 0, 0
		}
	default:
		return 0, 0
	}
	if c >= 0x20 {
		return -1 - int64(arg), n
	}
	return int64(arg), n
}

// u32Head is u32At for the heads of one to three bytes, followed by at
// least two bytes (the caller checks), small enough to be inlined; it
// returns a length of 0 for the others, which u32At reads. The heads are
// told apart by branches, which the processor predicts and runs ahead
// of, where a table lookup would make each item wait for the one before.
func u32Head(b []byte, i int) (uint32, int) {
	h := b[i : i+3 : i+3] // one bounds check for the three bytes
	c := h[0]
	if c < 24 {
		return uint32(c), 1
	}
	if c == 0x19 {
		return uint32(h[1])<<8 | uint32(h[2]), 3
	}
	if c == 0x18 {
		return uint32(h[1]), 2
	}
	return 0, 0
}

// i32Head is i32At for the heads of one to three bytes, like u32Head.
func i32Head(b []byte, i int) (int32, int) {
	h := b[i : i+3 : i+3]
	c := h[0]
	if c < 24 {
		return int32(c), 1
	}
	if c == 0x19 {
		return int32(h[1])<<8 | int32(h[2]), 3
	}
	if c == 0x18 {
		return int32(h[1]), 2
	}
	return 0, 0
}

// u32Win and i32Win are u32Head and i32Head on a window of 32 bytes, at
// offset k; the offsets are masked into the window, which costs no
// bounds check: the caller keeps k+2 below 32.
func u32Win(w *[32]byte, k int) (uint32, int) {
	c := w[k&31]
	if c < 24 {
		return uint32(c), 1
	}
	if c == 0x19 {
		return uint32(w[(k+1)&31])<<8 | uint32(w[(k+2)&31]), 3
	}
	if c == 0x18 {
		return uint32(w[(k+1)&31]), 2
	}
	return 0, 0
}

func i32Win(w *[32]byte, k int) (int32, int) {
	c := w[k&31]
	if c < 24 {
		return int32(c), 1
	}
	if c == 0x19 {
		return int32(w[(k+1)&31])<<8 | int32(w[(k+2)&31]), 3
	}
	if c == 0x18 {
		return int32(w[(k+1)&31]), 2
	}
	return 0, 0
}
