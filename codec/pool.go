package codec

import (
	"github.com/valyala/bytebufferpool"
)

// Frame buffers come from bytebufferpool pools, one per size class.
// A single pool calibrates itself to the sizes that make up 95 % of its
// traffic and drops larger buffers on Put, so on a stream of small events
// with a screenshot now and then every screenshot would get a fresh
// buffer. With a pool per class each calibrates among frames of its own
// size, and rare large frames keep their buffers.
var framePools [len(classLimits)]bytebufferpool.Pool

// classLimits are the upper bounds of the size classes.
var classLimits = [...]int{4 << 10, 64 << 10, 1 << 20, 1 << 62}

func sizeClass(n int) int {
	for i, l := range classLimits {
		if n <= l {
			return i
		}
	}
	return len(classLimits) - 1
}

// getBuffer returns a pooled buffer of length 0 for a frame of n bytes,
// with room for first of them at least (first <= n): a pooled buffer
// with room for all n when there is one, else a new one of first bytes,
// which grow grows as the bytes arrive.
func getBuffer(n, first int) *bytebufferpool.ByteBuffer {
	b := framePools[sizeClass(n)].Get()
	if cap(b.B) < first {
		b.B = make([]byte, 0, first)
	}
	b.B = b.B[:0]
	return b
}

// firstRoom is the most a frame's buffer holds before its payload's
// bytes arrive: a header claims up to the limit, and memory follows the
// bytes that came, doubling as they come (grow).
const firstRoom = 64 << 10

// grow makes room in b for more bytes of a payload of n in all, at
// least need more: twice its room, or all n when twice that would pass
// n (so the buffers of a frame add up to at most twice its size).
func grow(b []byte, need, n int) []byte {
	if cap(b)-len(b) >= need {
		return b
	}
	size := max(2*cap(b), len(b)+need)
	if 2*size > n {
		size = n
	}
	out := make([]byte, len(b), size)
	copy(out, b)
	return out
}

// putBuffer returns b to the pool of its capacity's class. Under the
// wirebench_poison build tag the bytes are overwritten first, so a view
// used after release reads garbage that tests can see.
func putBuffer(b *bytebufferpool.ByteBuffer) {
	if poisonReleased {
		full := b.B[:cap(b.B)]
		for i := range full {
			full[i] = 0xDB
		}
	}
	framePools[sizeClass(cap(b.B))].Put(b)
}
