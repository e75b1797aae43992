package zerocopy

// Item heads read straight from the bytes, for the fast paths of the
// canonical layouts. Each returns the value and the bytes the item takes,
// or 0 bytes when the item is not one it reads: the caller then leaves it
// to cbor.Decoder, which decides exactly. What a reader here accepts,
// cbor.Decoder accepts with the same value.

// The readers of any integer head are cbor.Uint32At, cbor.Int32At and
// cbor.IntAt; the ones here read the short heads in line.

// shortHead reads an unsigned integer head of one to three bytes at
// b[i:], followed by at least two bytes (the caller checks), as a T: it
// is cbor.Uint32At or cbor.Int32At for those heads, small enough to be
// inlined, and returns a length of 0 for the others, which those read.
// The heads are told apart by branches, which the processor predicts and
// runs ahead of, where a table lookup would make each item wait for the
// one before.
func shortHead[T uint32 | int32](b []byte, i int) (T, int) {
	h := b[i : i+3 : i+3] // one bounds check for the three bytes
	c := h[0]
	if c < 24 {
		return T(c), 1
	}
	if c == 0x19 {
		return T(h[1])<<8 | T(h[2]), 3
	}
	if c == 0x18 {
		return T(h[1]), 2
	}
	return 0, 0
}

// winHead is shortHead on a window of 32 bytes, at offset k; the offsets
// are masked into the window, which costs no bounds check: the caller
// keeps k+2 below 32.
func winHead[T uint32 | int32](w *[32]byte, k int) (T, int) {
	c := w[k&31]
	if c < 24 {
		return T(c), 1
	}
	if c == 0x19 {
		return T(w[(k+1)&31])<<8 | T(w[(k+2)&31]), 3
	}
	if c == 0x18 {
		return T(w[(k+1)&31]), 2
	}
	return 0, 0
}
