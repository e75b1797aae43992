package cbor

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestPutWriters: each Put writer writes the bytes its Append twin
// appends, at every head length, at an offset inside a larger buffer,
// and returns the offset past them.
func TestPutWriters(t *testing.T) {
	check := func(name string, want []byte, put func(b []byte, i int) int) {
		t.Helper()
		b := bytes.Repeat([]byte{0xee}, 3+len(want)+MaxHeadLen)
		end := put(b, 3)
		if end != 3+len(want) || !bytes.Equal(b[3:end], want) || b[2] != 0xee || b[end] != 0xee {
			t.Errorf("%s: wrote % x up to %d, want % x", name, b[3:end], end, want)
		}
	}
	for _, v := range []uint64{0, 23, 24, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64} {
		check("PutUint", AppendUint(nil, v), func(b []byte, i int) int { return PutUint(b, i, v) })
		check("PutHead", AppendHead(nil, MajorMap, v), func(b []byte, i int) int { return PutHead(b, i, MajorMap, v) })
		if v <= math.MaxInt64 {
			iv := -1 - int64(v)
			check("PutInt", AppendInt(nil, iv), func(b []byte, i int) int { return PutInt(b, i, iv) })
			check("PutInt", AppendInt(nil, int64(v)), func(b []byte, i int) int { return PutInt(b, i, int64(v)) })
		}
	}
	for _, n := range []int{0, 23, 24, 255, 256, 70000} {
		s := strings.Repeat("é", n/2) + strings.Repeat("a", n%2)
		check("PutText", AppendText(nil, s), func(b []byte, i int) int { return PutText(b, i, s) })
	}
}
