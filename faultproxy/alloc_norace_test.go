//go:build !race

package faultproxy

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/wirebench/wirebench/internal/testio"
)

// TestRelayReusesItsBuffers: relaying 1 MiB each way in 1 KiB chunks,
// split in two pieces each, allocates next to nothing: each direction
// reads into buffers it reuses, not a new chunk per read (which was
// 2,048 allocations and 2 MiB here at the least).
func TestRelayReusesItsBuffers(t *testing.T) {
	const size, chunk = 1 << 20, 1 << 10
	p := proxy(t, testio.Serve(t, echo), Config{Chunk: chunk})
	p.SetSplit(Both, chunk/2)
	c := dial(t, p)
	// Bytes that do not repeat: a buffer written over before its bytes
	// left would show.
	msg := make([]byte, size)
	rand.NewChaCha8([32]byte{1}).Read(msg)
	roundTrip(t, c, msg[:4*chunk]) // every goroutine and buffer in place
	start, wrote := make(chan struct{}), make(chan error, 1)
	go func() {
		<-start
		_, err := c.Write(msg)
		wrote <- err
	}()
	got := make([]byte, size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	close(start)
	_, err := io.ReadFull(c, got)
	runtime.ReadMemStats(&after)
	if err != nil || <-wrote != nil || !bytes.Equal(got, msg) {
		t.Fatalf("relay: read %v; the bytes came back the same: %v", err, bytes.Equal(got, msg))
	}
	if n := after.Mallocs - before.Mallocs; n > 64 {
		t.Fatalf("relaying %d bytes each way in %d-byte chunks allocated %d times (%d bytes), want at most 64",
			size, chunk, n, after.TotalAlloc-before.TotalAlloc)
	}
}
