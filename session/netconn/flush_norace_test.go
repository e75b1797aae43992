//go:build !race

package netconn

import (
	"context"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/testio"
	"github.com/wirebench/wirebench/session"
)

// TestFlushWithAPongAllocatesNothing: a Flush while a pong waits ahead of
// the bulk (here, the welcome) writes the two as they are queued, without
// copying them into one buffer first. Each round is a fresh session, whose
// transmit queue has no buffer to reuse yet.
func TestFlushWithAPongAllocatesNothing(t *testing.T) {
	addr := testio.Serve(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	// A hello, which queues the welcome, and a ping, which queues a pong.
	var in []byte
	for _, m := range []codec.Message{&codec.Hello{Versions: []uint32{1}, MaxFrame: 1 << 20, Capabilities: codec.CapAll, Agent: "t"}, &codec.Ping{Nonce: 7}} {
		var err error
		if in, err = codec.AppendFrame(in, m, schema.DefaultMaxFrame); err != nil {
			t.Fatal(err)
		}
	}
	fewest := uint64(1 << 62)
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		h := session.NewHost(session.HostConfig{}, time.Now())
		d := New(c, h)
		// A short Run lets the Conn's goroutines start and settle.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		d.Run(ctx, nil)
		cancel()
		h.Receive(time.Now(), in)
		if !h.Connected() || h.Backlog() == 0 {
			t.Fatalf("no welcome queued: connected %v, backlog %d", h.Connected(), h.Backlog())
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err = d.Flush()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if h.Backlog() != 0 {
			t.Fatalf("%d bytes left after Flush", h.Backlog())
		}
		fewest = min(fewest, after.Mallocs-before.Mallocs)
		d.Close()
	}
	if fewest != 0 {
		t.Fatalf("Flush with a pong waiting allocated %d times, want 0", fewest)
	}
}
