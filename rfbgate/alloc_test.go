//go:build !race

// Allocation counts are checked without the race detector only: it makes
// sync.Pool drop items and adds allocations of its own, so counts taken
// under -race say nothing about the code.

package rfbgate

import (
	"math/rand/v2"
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
