package cbor

import "encoding/binary"

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
