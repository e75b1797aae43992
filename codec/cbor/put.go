package cbor

import (
	"encoding/binary"
)

// Writers at an offset, for encoders that reserve room once for a run of
// items (slices.Grow) and then write them by index, instead of growing
// the slice item by item: each writes at b[i:], which must have room for
// the item (MaxHeadLen bytes for a head), and returns the offset past it.

// PutHead writes the shortest head of major type m with argument v.
func PutHead(b []byte, i int, m Major, v uint64) int {
	mt := byte(m) << 5
	switch {
	case v < 24:
		b[i] = mt | byte(v)
		return i + 1
	case v <= 0xff:
		_ = b[i+1]
		b[i], b[i+1] = mt|24, byte(v)
		return i + 2
	case v <= 0xffff:
		_ = b[i+2]
		b[i], b[i+1], b[i+2] = mt|25, byte(v>>8), byte(v)
		return i + 3
	case v <= 0xffffffff:
		b[i] = mt | 26
		binary.BigEndian.PutUint32(b[i+1:], uint32(v))
		return i + 5
	}
	b[i] = mt | 27
	binary.BigEndian.PutUint64(b[i+1:], v)
	return i + 9
}

// PutUint writes v as an unsigned integer.
func PutUint(b []byte, i int, v uint64) int {
	if v < 24 {
		b[i] = byte(v)
		return i + 1
	}
	return PutHead(b, i, MajorUint, v)
}

// PutInt writes v as major type 0 when v >= 0 and major type 1 otherwise.
func PutInt(b []byte, i int, v int64) int {
	if v >= 0 {
		return PutUint(b, i, uint64(v))
	}
	return PutHead(b, i, MajorNegInt, uint64(-1-v))
}

// PutText writes s as a definite-length text string; b must have room
// for MaxHeadLen+len(s) bytes. The caller is responsible for s being
// valid UTF-8.
func PutText(b []byte, i int, s string) int {
	i = PutHead(b, i, MajorText, uint64(len(s)))
	return i + copy(b[i:], s)
}
