//go:build !race

// Allocation counts are checked without the race detector only: it makes
// sync.Pool drop items and adds allocations of its own, so counts taken
// under -race say nothing about the code.

package rfbgate

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestServerFilterDoesNotAllocate: framing a buffer of thousands of server
// messages of every kind, for the holder and for a watcher, allocates
// nothing (0 allocations per message).
func TestServerFilterDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var in []byte
	msgs := 0
	for ; msgs < 2000; msgs++ {
		in, _ = genServerMsg(r, in)
	}
	buf := make([]byte, len(in))
	for _, holder := range []bool{true, false} {
		f := newFilter(t, holder)
		a := minAllocs(20, func() {
			copy(buf, in)
			if _, rest, err := f.Filter(buf); err != nil || len(rest) != 0 {
				t.Fatalf("filter: %v, %d left", err, len(rest))
			}
		})
		if a != 0 {
			t.Fatalf("holder=%v: %.1f allocations per Filter of %d messages", holder, a, msgs)
		}
	}
}

func TestGateFeedDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var in []byte
	for i := 0; i < 2000; i++ {
		in, _ = genMsg(r, in, Limits{}.withDefaults())
	}
	for _, kbd := range []bool{true, false} {
		g := NewGate(Limits{})
		g.SetKeyboard(kbd)
		out := make([]byte, 0, 2*len(in))
		a := minAllocs(20, func() {
			var err error
			out, err = g.Feed(out[:0], in)
			if err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Fatalf("kbd=%v: %.1f allocations per Feed", kbd, a)
		}
	}
}

// relayAllocsPerMiB is the allocation budget of the relay's write path
// (issue 24: at most 8 per MiB relayed).
const relayAllocsPerMiB = 8

// TestRelayAllocsPerMiB: a viewer reading a server that sends as fast as
// it can costs at most relayAllocsPerMiB allocations per MiB relayed,
// counted over the whole process (relay, synthetic server and a client
// that reads without a context per message), with the filter on.
func TestRelayAllocsPerMiB(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 256<<10, 0)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	c := watchClose(t, tr, "a", "s", false)
	buf := make([]byte, 256<<10)
	read := func(n int64) {
		for got := int64(0); got < n; {
			k, err := c.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got += int64(k)
		}
	}
	read(4 << 20) // past the start: buffers grown, connections settled
	const mib = 32
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	read(mib << 20)
	runtime.ReadMemStats(&m1)
	per := float64(m1.Mallocs-m0.Mallocs) / mib
	t.Logf("%.2f allocations per MiB relayed (budget %d)", per, relayAllocsPerMiB)
	if per > relayAllocsPerMiB {
		t.Fatalf("%.2f allocations per MiB relayed, budget %d", per, relayAllocsPerMiB)
	}
}
