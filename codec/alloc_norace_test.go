//go:build !race

// Allocation counts are checked without the race detector only: under it
// sync.Pool drops items and the runtime allocates more.

package codec_test

import (
	"io"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// TestPooledFrameReadAllocations: reading and releasing frames of a steady
// stream allocates nothing once the pool is warm.
func TestPooledFrameReadAllocations(t *testing.T) {
	var stream []byte
	for _, name := range []string{"request_tap", "response_snapshot", "response_screenshot", "event_content_changed"} {
		s, _ := golden.Lookup(name)
		stream = append(stream, frameOf(t, s.Msg)...)
	}
	big := bigResponse(t, 1, 256<<10)
	stream = append(stream, frameOf(t, big)...)
	r := codec.NewReader(&loopReader{b: stream}, schema.DefaultMaxFrame)
	for i := 0; i < 20; i++ {
		f, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		f.Release()
	}
	allocs := testing.AllocsPerRun(100, func() {
		f, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		f.Release()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pooled frame read", allocs)
	}
	// The splitter too.
	sp := codec.NewSplitter(schema.DefaultMaxFrame)
	feed := func() {
		in := stream
		for len(in) > 0 {
			st := sp.Feed(in)
			in = in[st.N:]
			if st.Kind == codec.GotFrame {
				st.Frame.Release()
			}
		}
	}
	feed()
	if allocs := testing.AllocsPerRun(20, feed); allocs != 0 {
		t.Errorf("%v allocations per splitter pass", allocs)
	}
	wr := codec.NewWriter(io.Discard, schema.DefaultMaxFrame)
	s, _ := golden.Lookup("response_snapshot")
	wr.WriteMessage(s.Msg)
	if allocs := testing.AllocsPerRun(50, func() { wr.WriteMessage(s.Msg) }); allocs != 0 {
		t.Errorf("%v allocations per frame write", allocs)
	}
}
