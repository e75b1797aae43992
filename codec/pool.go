package codec

import (
	"github.com/valyala/bytebufferpool"
)

// framePool holds the buffers of frame payloads. bytebufferpool calibrates
// itself to the sizes in use, so a stray 16 MiB frame does not pin 16 MiB
// buffers in the pool for good.
var framePool bytebufferpool.Pool

// getBuffer returns a pooled buffer with room for n bytes and length 0.
func getBuffer(n int) *bytebufferpool.ByteBuffer {
	b := framePool.Get()
	if cap(b.B) < n {
		b.B = make([]byte, 0, n)
	}
	b.B = b.B[:0]
	return b
}

// putBuffer returns b to the pool. Under the wirebench_poison build tag
// the bytes are overwritten first, so a view used after release reads
// garbage that tests can see.
func putBuffer(b *bytebufferpool.ByteBuffer) {
	if poisonReleased {
		full := b.B[:cap(b.B)]
		for i := range full {
			full[i] = 0xDB
		}
	}
	framePool.Put(b)
}
