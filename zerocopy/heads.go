package zerocopy

// Item heads read straight from the bytes, for the fast paths of the
// canonical layouts. Each returns the value and the bytes the item takes,
// or 0 bytes when the item is not one it reads: the caller then leaves it
// to cbor.Decoder, which decides exactly. What a reader here accepts,
// cbor.Decoder accepts with the same value.

// The readers of any integer head are cbor.Uint32At, cbor.Int32At and
// cbor.IntAt; the ones here read the short heads in line.

// u32Head is cbor.Uint32At for the heads of one to three bytes, followed by at
// least two bytes (the caller checks), small enough to be inlined; it
// returns a length of 0 for the others, which cbor.Uint32At reads. The heads are
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

// i32Head is cbor.Int32At for the heads of one to three bytes, like u32Head.
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
