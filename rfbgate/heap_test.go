//go:build !race

// The race detector adds shadow memory and allocations of its own, so the
// heap a viewer costs is measured without it.

package rfbgate

import (
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

// viewerHeapBudget bounds the live heap one open viewer costs, everything
// in this process: the relay's side (its gate, WebSocket and TCP
// connections, goroutine stacks), the test client's WebSocket and the
// synthetic server's connection. About 84 KiB, with no buffer held between
// messages (buffers.go); 155 KiB when each viewer kept a 64 KiB batch and
// 4+4 KiB of browser-side buffers, 402 KiB with 256+32+64 KiB.
const viewerHeapBudget = 96 << 10

// heapViewers is how many viewers the heap tests open.
const heapViewers = 50

// TestViewerHeap: 50 viewers at rest (the server sends a byte every
// 200 ms) cost at most viewerHeapBudget of live heap each.
func TestViewerHeap(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1, 200*time.Millisecond)
	per := heapPerViewer(t, addr, nil)
	t.Logf("%d viewers at rest: %.1f KiB of live heap each (budget %d KiB), relay and client together", heapViewers, float64(per)/1024, viewerHeapBudget>>10)
	if per > viewerHeapBudget {
		t.Fatalf("a viewer costs %d bytes of live heap, budget %d", per, viewerHeapBudget)
	}
}

// TestIdleViewersRetain: 50 viewers that each received a 1 MB update at
// full speed (in batches of up to serverBatchMax) and then went idle
// retain no more live heap each than viewerHeapBudget: no batch buffer
// outlives its batch. When each viewer kept its grown batch buffer, this
// was over 300 KiB a viewer.
func TestIdleViewersRetain(t *testing.T) {
	const w, h = 640, 400
	script := append(srvUpdate(srvRect(0, 0, w, h, rfb.EncodingRaw)), make([]byte, w*h*4)...)
	addr := scriptedVNC(t, testPassword, script)
	per := heapPerViewer(t, addr, func(v *rawViewer) {
		if _, err := io.CopyN(io.Discard, v.conn, int64(len(script))); err != nil {
			t.Errorf("viewer %s: reading the update: %v", v.name, err)
		}
	})
	t.Logf("%d viewers idle after %d bytes each: %.1f KiB of live heap each (budget %d KiB), relay and client together", heapViewers, len(script), float64(per)/1024, viewerHeapBudget>>10)
	if per > viewerHeapBudget {
		t.Fatalf("an idle viewer retains %d bytes of live heap, budget %d", per, viewerHeapBudget)
	}
}

// TestStalledViewersRetain: 50 viewers that stop reading while the
// computer has 4 MB of update for each (more than the sockets between
// them hold) retain no more live heap each than viewerHeapBudget: a viewer
// whose browser takes nothing more holds no batch buffer while its write
// waits (it reads from the computer only what its socket can take). When a
// blocked write kept its batch, each held 256 KiB until WriteTimeout.
func TestStalledViewersRetain(t *testing.T) {
	const w, h = 1024, 1024
	script := append(srvUpdate(srvRect(0, 0, w, h, rfb.EncodingRaw)), make([]byte, w*h*4)...)
	addr := scriptedVNC(t, testPassword, script)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	before := liveHeap()
	openHeapViewers(t, tr, nil) // and they read nothing until the test ends
	// Stalled: the bytes sent to the viewers stop growing, short of the
	// whole update for each.
	sent := func() (n uint64) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		for v := range tr.viewers["a"] {
			n += v.toViewer.Load()
		}
		return n
	}
	last, still := sent(), 0
	for deadline := time.Now().Add(20 * time.Second); still < 5; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the viewers never stalled: %d bytes sent so far", last)
		}
		if n := sent(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	if last >= uint64(heapViewers*len(script)) {
		t.Fatalf("every viewer got its whole update (%d bytes): the sockets held it all, nothing stalled", last)
	}
	per := (liveHeap() - before) / heapViewers
	t.Logf("%d viewers stalled after %d bytes in all (%d KiB each): %.1f KiB of live heap each (budget %d KiB), relay and client together",
		heapViewers, last, last/heapViewers>>10, float64(per)/1024, viewerHeapBudget>>10)
	if per > viewerHeapBudget {
		t.Fatalf("a stalled viewer retains %d bytes of live heap, budget %d", per, viewerHeapBudget)
	}
}

// heapPerViewer opens heapViewers viewers of the server at addr, runs use
// on each (nil: nothing), and returns the live heap they cost each.
func heapPerViewer(t *testing.T, addr string, use func(*rawViewer)) int64 {
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	before := liveHeap()
	openHeapViewers(t, tr, use)
	return (liveHeap() - before) / heapViewers
}

// openHeapViewers opens heapViewers viewers of computer "a", each of its
// own surface, runs use on each (nil: nothing), and waits until the relay
// counts them all open; they close at the test's end.
func openHeapViewers(t *testing.T, tr *testRelay, use func(*rawViewer)) {
	for i := range heapViewers {
		tk, _ := tr.Watch("a", fmt.Sprintf("s%d", i))
		v, err := dialRFBRaw(tr.wsURL(tk.Token, "a"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.close)
		if use != nil {
			use(v)
		}
	}
	waitFor(t, func() bool { return tr.Viewers("a") == heapViewers })
}

// liveHeap is the heap in use after collections, stacks included. Two
// collections: what a sync.Pool held at the first is freed by the second,
// so pooled buffers no viewer holds are not counted.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
