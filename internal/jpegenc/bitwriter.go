package jpegenc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
)

// bitWriter appends entropy-coded data to out: bits gather in acc (the
// last n of them pending) and leave 32 at a time. The 0x00 that T.81
// (F.1.2.3) stuffs after each 0xff byte is inserted at the end, in one
// pass over the scan (stuff), rather than tested for at each write.
type bitWriter struct {
	out  []byte
	scan int    // where the scan's data start in out
	ffs  *[]int // where its 0xff bytes are: scratch, kept by the encoder
	acc  uint64
	n    uint
}

// put adds the l low bits of v to the n bits pending in acc and, once 32
// are pending, appends them to out; it returns the new state.
func put(acc uint64, n uint, out []byte, v uint64, l uint) (uint64, uint, []byte) {
	acc = acc<<l | v
	n += l
	if n >= 32 {
		n -= 32
		out = binary.BigEndian.AppendUint32(out, uint32(acc>>n))
	}
	return acc, n, out
}

// block transforms the samples b (natural order; overwritten), quantises
// them with recip (zig-zag order) into q, and appends their Huffman
// codes: the DC term's difference from prev with dc, the AC terms' runs
// and sizes with ac (F.1.2). It returns the quantised DC term. A block of
// one value (screens have many) has only a DC term, 64 times the value
// in the DCT's scale: it skips the transform.
//
// Rounding adds 16384.5 and truncates: a quantised term is at most 1024
// in size (the DC term of 8-bit samples, at a step of 1), so the sum is
// positive and truncation rounds it half up. The AC terms of 8-bit samples stay within ±1023 (size
// 10, the largest the AC tables code) and DC differences within ±2047
// (size 11), TestExtremes' pictures reaching both.
func (w *bitWriter) block(b, recip *[64]float32, q *[64]int32, prev int32, dc, ac *huffTable) int32 {
	var nz uint64 // bit k-1: the k-th term in zig-zag order (an AC term) is not 0
	bs, rs, qs := b[:], recip[:], q[:]
	if !flat(b) {
		fdct(b)
		for k := 63; k > 0; k-- {
			v := int32(bs[zigzag[k]&63]*rs[k]+16384.5) - 16384 // rounded, half up
			qs[k] = v
			nz = nz<<1 | uint64(uint32(v|-v)>>31)
		}
	} else {
		bs[0] *= 64
	}
	d := int32(bs[0]*rs[0]+16384.5) - 16384
	acc, n, out := w.acc, w.n, w.out

	// Each code and its extra bits go out together: at most 16+10 bits
	// (an AC code and size), so acc holds them with the 31 pending.
	v := d - prev
	s := v >> 31
	size := uint(bits.Len32(uint32((v ^ s) - s)))
	c := dc[size]
	acc, n, out = put(acc, n, out, uint64(c&0xffff)<<size|uint64(uint32(v+s)&(1<<size-1)), uint(c>>16)+size)

	last := 0
	for nz != 0 {
		k := bits.TrailingZeros64(nz) + 1
		nz &= nz - 1
		run := k - last - 1
		last = k
		for ; run > 15; run -= 16 { // ZRL: sixteen zeros
			c := ac[0xf0]
			acc, n, out = put(acc, n, out, uint64(c&0xffff), uint(c>>16))
		}
		v := qs[k&63]
		s := v >> 31
		size := uint(bits.Len32(uint32((v ^ s) - s)))
		c := ac[uint(run)<<4|size]
		acc, n, out = put(acc, n, out, uint64(c&0xffff)<<size|uint64(uint32(v+s)&(1<<size-1)), uint(c>>16)+size)
	}
	if last != 63 { // EOB: the rest are zeros
		c := ac[0x00]
		acc, n, out = put(acc, n, out, uint64(c&0xffff), uint(c>>16))
	}
	w.acc, w.n, w.out = acc, n, out
	return d
}

// flat reports whether the 64 samples of b are all the same.
func flat(b *[64]float32) bool {
	v := b[0]
	for _, x := range b {
		if x != v {
			return false
		}
	}
	return true
}

// end pads the pending bits to a byte with 1s (F.1.2.3), appends them,
// stuffs the scan and returns the output.
func (w *bitWriter) end() []byte {
	p := (8 - w.n%8) % 8
	acc, n, out := w.acc<<p|(1<<p-1), w.n+p, w.out
	for n > 0 {
		n -= 8
		out = append(out, byte(acc>>n))
	}
	return w.stuff(out)
}

// stuff inserts a 0x00 after each 0xff byte of the scan in out: it finds
// them going forwards (into w.ffs), then moves the bytes between them
// back from the end, each once.
func (w *bitWriter) stuff(out []byte) []byte {
	ffs := (*w.ffs)[:0]
	for i := w.scan; ; i++ {
		j := bytes.IndexByte(out[i:], 0xff)
		if j < 0 {
			break
		}
		i += j
		ffs = append(ffs, i)
	}
	*w.ffs = ffs
	if len(ffs) == 0 {
		return out
	}
	src := len(out)
	out = slices.Grow(out, len(ffs))[:src+len(ffs)]
	dst := len(out)
	for k := len(ffs) - 1; k >= 0; k-- {
		i := ffs[k]
		m := src - i - 1 // the bytes after that 0xff
		copy(out[dst-m:dst], out[i+1:src])
		dst -= m + 2
		out[dst], out[dst+1] = 0xff, 0x00
		src = i
	}
	return out
}
