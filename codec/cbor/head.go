package cbor

import "encoding/binary"

// Major is a CBOR major type (the top three bits of an initial byte).
type Major uint8

// The eight major types of RFC 8949 section 3.1.
const (
	MajorUint   Major = 0
	MajorNegInt Major = 1
	MajorBytes  Major = 2
	MajorText   Major = 3
	MajorArray  Major = 4
	MajorMap    Major = 5
	MajorTag    Major = 6
	MajorSimple Major = 7
)

var majorNames = [8]string{"unsigned integer", "negative integer", "byte string", "text string", "array", "map", "tag", "simple value or float"}

// String names the major type as an error message would.
func (m Major) String() string { return majorNames[m&7] }

// Simple values and the break stop code as initial bytes.
const (
	False byte = 0xf4
	True  byte = 0xf5
	Null  byte = 0xf6
	Undef byte = 0xf7
	Break byte = 0xff
)

// AppendHead appends the head of an item of major type m with argument v,
// in its shortest form.
func AppendHead(dst []byte, m Major, v uint64) []byte {
	mt := byte(m) << 5
	switch {
	case v < 24:
		return append(dst, mt|byte(v))
	case v <= 0xff:
		return append(dst, mt|24, byte(v))
	case v <= 0xffff:
		return append(dst, mt|25, byte(v>>8), byte(v))
	case v <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, mt|26), uint32(v))
	default:
		return binary.BigEndian.AppendUint64(append(dst, mt|27), v)
	}
}

// HeadLen is the length in bytes of the shortest head for argument v.
func HeadLen(v uint64) int {
	switch {
	case v < 24:
		return 1
	case v <= 0xff:
		return 2
	case v <= 0xffff:
		return 3
	case v <= 0xffffffff:
		return 5
	default:
		return 9
	}
}

// AppendUint appends v as an unsigned integer (major type 0).
func AppendUint(dst []byte, v uint64) []byte {
	if v < 24 {
		return append(dst, byte(v))
	}
	return AppendHead(dst, MajorUint, v)
}

// AppendInt appends v as major type 0 when v >= 0 and major type 1 otherwise.
func AppendInt(dst []byte, v int64) []byte {
	if v >= 0 {
		return AppendUint(dst, uint64(v))
	}
	// -1 - v cannot overflow for any negative int64.
	return AppendHead(dst, MajorNegInt, uint64(-1-v))
}

// AppendText appends s as a definite-length text string. The caller is
// responsible for s being valid UTF-8.
func AppendText(dst []byte, s string) []byte {
	return append(AppendHead(dst, MajorText, uint64(len(s))), s...)
}

// AppendBytes appends b as a definite-length byte string.
func AppendBytes(dst []byte, b []byte) []byte {
	return append(AppendHead(dst, MajorBytes, uint64(len(b))), b...)
}

// AppendBool appends true or false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, True)
	}
	return append(dst, False)
}

// AppendArrayHead appends the head of a definite-length array of n items.
func AppendArrayHead(dst []byte, n int) []byte { return AppendHead(dst, MajorArray, uint64(n)) }

// AppendMapHead appends the head of a definite-length map of n pairs.
func AppendMapHead(dst []byte, n int) []byte { return AppendHead(dst, MajorMap, uint64(n)) }

// MaxHeadLen is the longest head: an initial byte and 8 bytes of argument.
const MaxHeadLen = 9
