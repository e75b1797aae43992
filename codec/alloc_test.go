//go:build !race

// Allocation counts. Left out of race builds: the race detector adds
// allocations of its own and makes sync.Pool drop items at random, so a
// count taken there means nothing. make test runs them in the plain run.

package codec_test

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// TestEncodeAllocations: encoding any sample into a buffer with room
// allocates nothing.
func TestEncodeAllocations(t *testing.T) {
	buf := make([]byte, 0, 1<<20)
	for _, s := range golden.Samples() {
		m := s.Msg
		allocs := testing.AllocsPerRun(50, func() {
			var err error
			if buf, err = codec.Append(buf[:0], m); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per encode", s.Name, allocs)
		}
	}
}

// loopReader serves the same bytes forever.
type loopReader struct {
	b   []byte
	off int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.b[l.off:])
	l.off = (l.off + n) % len(l.b)
	return n, nil
}

// TestDecodeAllocations holds the owned decoder to its budgets: one
// allocation for a message without strings, its parameters or body
// allocated with it, and no copy of the input when nothing points into it.
func TestDecodeAllocations(t *testing.T) {
	for name, budget := range map[string]float64{
		"request_tap":           1,
		"event_content_changed": 1,
		"ping":                  1,
		"request_snapshot":      2, // the request and its params, the evict list
		"response_tap":          1,
	} {
		s, _ := golden.Lookup(name)
		b := mustMarshal(t, s.Msg)
		if allocs := testing.AllocsPerRun(100, func() { codec.Decode(b) }); allocs > budget {
			t.Errorf("%s: %v allocations per decode, budget %v", name, allocs, budget)
		}
	}
}

// TestLargeFramesKeepTheirBuffers: after a long run of small frames, a
// rare large frame still finds a pooled buffer (bytebufferpool calibrates
// each size class on its own).
func TestLargeFramesKeepTheirBuffers(t *testing.T) {
	// sync.Pool drops its contents at garbage collections; hold them off
	// so that what is measured is bytebufferpool's calibration alone.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// sync.Pool keeps a private slot per P that other Ps cannot take
	// from: one P, so that a goroutine moving between Ps does not miss it.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	small := frameOf(t, &codec.Ping{Nonce: 1})
	big := frameOf(t, bigResponse(t, 1, 256<<10))
	const n = 45_000 // past bytebufferpool's calibration (42 000 calls)
	smalls := bytes.Repeat(small, n)
	r := codec.NewReader(&loopReader{b: append(append([]byte{}, big...), smalls...)}, schema.DefaultMaxFrame)
	next := func() {
		f, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		f.Release()
	}
	for i := 0; i < n+1; i++ {
		next()
	}
	// The stream is now at the big frame again: count one read of it. The
	// count is process-wide, so a finalizer allocating meanwhile would be
	// counted too: on a count above zero, go round the stream once more
	// (n small frames, then the big one) and count again, up to three times.
	var got uint64
	for attempt := 0; attempt < 3; attempt++ {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		next()
		runtime.ReadMemStats(&after)
		if got = after.Mallocs - before.Mallocs; got == 0 {
			return
		}
		t.Logf("read %d of the large frame: %d allocations", attempt+1, got)
		for i := 0; i < n; i++ {
			next()
		}
	}
	t.Errorf("a large frame after %d small ones: %d allocations, three times", n, got)
}
