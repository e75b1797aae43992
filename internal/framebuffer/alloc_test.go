package framebuffer

import (
	"runtime"
	"unsafe"
)

// decoderOwn is what NewDecoder allocates whatever the stream: its read
// buffer and itself (the ZRLE tile and five zstreams are in the struct),
// with room for the error.
var decoderOwn = uint64(ReadBufferSize) + uint64(unsafe.Sizeof(Decoder{})) + 4096

// allocated reports the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
