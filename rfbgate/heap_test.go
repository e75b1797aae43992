//go:build !race

// The race detector adds shadow memory and allocations of its own, so the
// heap a viewer costs is measured without it.

package rfbgate

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// viewerHeapBudget bounds the live heap one open viewer costs, everything
// in this process: the relay's side (its buffers, gate, WebSocket and TCP
// connections, goroutine stacks), the test client's WebSocket and the
// synthetic server's connection. About 155 KiB with the buffers of
// buffers.go (72 KiB of them); the relay's buffers alone were 352 KiB
// before.
const viewerHeapBudget = 192 << 10

// TestViewerHeap: 50 viewers at rest (the server sends a byte every
// 200 ms) cost at most viewerHeapBudget of live heap each.
func TestViewerHeap(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1, 200*time.Millisecond)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	const n = 50
	before := liveHeap()
	for i := range n {
		tk, _ := tr.Watch("a", fmt.Sprintf("s%d", i))
		v, err := dialRFBRaw(tr.wsURL(tk.Token, "a"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(v.close)
	}
	waitFor(t, func() bool { return tr.Viewers("a") == n })
	per := (liveHeap() - before) / n
	t.Logf("%d viewers at rest: %.1f KiB of live heap each (budget %d KiB), relay and client together", n, float64(per)/1024, viewerHeapBudget>>10)
	if per > viewerHeapBudget {
		t.Fatalf("a viewer costs %d bytes of live heap, budget %d", per, viewerHeapBudget)
	}
}

// liveHeap is the heap in use after a collection, stacks included.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
