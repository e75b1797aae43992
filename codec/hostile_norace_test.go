//go:build !race

// Allocation bounds, counted without the race detector only: its runtime
// allocates for itself.

package codec_test

import (
	"bytes"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// warmDecoder leaves a pooled decoder that has learned the densest
// honest snapshot there is, nodes of the least bytes with a scroll each:
// what it reserves on a guess for the next snapshot is then the most it
// ever reserves.
func warmDecoder(t *testing.T) {
	t.Helper()
	b := mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(2000, true)})
	if _, err := codec.Decode(b); err != nil {
		t.Fatal(err)
	}
}

// TestHostileFramesAllocation: no hostile frame makes Decode, a Decoder,
// or a Reader reading it, allocate more than allocbound.Hostile of its
// size, from a fresh decoder or from one that learned the densest
// snapshot.
func TestHostileFramesAllocation(t *testing.T) {
	for name, frame := range allocbound.Frames(t, "testdata/hostile") {
		payload := frame[schema.HeaderLen:]
		n := len(frame)
		for _, warm := range []bool{false, true} {
			allocbound.Fresh()
			if warm {
				warmDecoder(t)
			}
			var err error
			got := allocbound.Check(t, name+" Decode", n, allocbound.Hostile(n), func() { _, err = codec.Decode(payload) })
			if err == nil {
				t.Errorf("%s: decoded", name)
			}
			t.Logf("%-24s warm %-5v %6.2f bytes a byte: %v", name, warm, float64(got)/float64(n), err)
			// A Decoder, fresh or after the densest snapshot (whose
			// slabs it keeps: what it allocates anew is counted).
			allocbound.Fresh()
			dec := codec.NewDecoder(0)
			if warm {
				if _, err := dec.Decode(mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(2000, true)})); err != nil {
					t.Fatal(err)
				}
			}
			got = allocbound.Check(t, name+" Decoder", n, allocbound.Hostile(n), func() { _, err = dec.Decode(payload) })
			if err == nil {
				t.Errorf("%s: a Decoder decoded it", name)
			}
			t.Logf("%-24s warm %-5v %6.2f bytes a byte with a Decoder", name, warm, float64(got)/float64(n))
		}
		allocbound.Fresh()
		allocbound.Check(t, name+" Reader", n, allocbound.Hostile(n), func() {
			r := codec.NewReader(bytes.NewReader(frame), schema.DefaultMaxFrame)
			if f, err := r.Next(); err == nil {
				f.Release()
			}
		})
	}
}

// TestFrameHeaderClaimAllocation: a frame header claims a payload up to
// the limit, and the stream ends (or stalls) soon after: the Reader and
// the Splitter hold what came, not what the header claimed.
func TestFrameHeaderClaimAllocation(t *testing.T) {
	stream := append([]byte{0x00, 0xff, 0xff, 0xff}, bytes.Repeat([]byte{0xa0}, 100)...)
	n := len(stream)
	allocbound.Fresh()
	got := allocbound.Check(t, "Reader", n, allocbound.Hostile(n), func() {
		r := codec.NewReader(bytes.NewReader(stream), schema.DefaultMaxFrame)
		if _, err := r.Next(); err == nil {
			t.Error("a frame from a cut stream")
		}
	})
	t.Logf("Reader: %d bytes for a header claiming 16 MiB and %d bytes", got, n)
	allocbound.Fresh()
	got = allocbound.Check(t, "Splitter", n, allocbound.Hostile(n), func() {
		s := codec.NewSplitter(schema.DefaultMaxFrame)
		if st := s.Feed(stream); st.Kind != codec.NeedMore {
			t.Errorf("%v from a cut frame", st.Kind)
		}
		s.Reset()
	})
	t.Logf("Splitter: %d bytes", got)
}

// TestHonestFramesAllocation: valid snapshots of the densest kinds stay
// within the bound the package documents, k·n + C, from a fresh decoder
// and from a learned one: nodes of the least bytes, with and without a
// scroll each, in one children array and in a chain; a table of empty
// strings.
func TestHonestFramesAllocation(t *testing.T) {
	chainRoot := &codec.Node{ID: 1}
	for n, i := chainRoot, 0; i < schema.MaxNodeDepth-1; i++ {
		n.Children = []codec.Node{{}}
		n = &n.Children[0]
	}
	strs := &codec.Snapshot{Strings: make([]string, 100_000)}
	for name, s := range map[string]*codec.Snapshot{
		"least nodes":             denseSnapshot(40_000, false),
		"least nodes with scroll": denseSnapshot(40_000, true),
		"chain":                   {Windows: []codec.Window{{Root: chainRoot}}},
		"empty strings":           strs,
	} {
		b := mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
		n := len(b)
		for _, warm := range []bool{false, true} {
			allocbound.Fresh()
			if warm {
				warmDecoder(t)
			}
			got := allocbound.Check(t, name, n, decodeK*uint64(n)+decodeC, func() {
				if _, err := codec.Decode(b); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%-24s warm %-5v %6.2f bytes a byte (%d bytes)", name, warm, float64(got)/float64(n), n)
		}
	}
}

// TestReaderAllocationFollowsBytes: a large frame read in short reads
// costs the Reader at most 2·n + 96 KiB (its buffer doubles from 64 KiB as
// the bytes arrive, beside the 32 KiB read-ahead), and the Splitter fed
// in pieces the same.
func TestReaderAllocationFollowsBytes(t *testing.T) {
	p := append(cborBytesHead(4<<20), bytes.Repeat([]byte{0x5a}, 4<<20)...)
	frame := append([]byte{byte(len(p) >> 24), byte(len(p) >> 16), byte(len(p) >> 8), byte(len(p))}, p...)
	n := len(frame)
	limit := 2*uint64(n) + 96<<10
	allocbound.Fresh()
	got := allocbound.Check(t, "Reader", n, limit, func() {
		r := codec.NewReader(&chunkReader{b: frame, sizes: []byte{200, 255, 7}}, schema.DefaultMaxFrame)
		f, err := r.Next()
		if err != nil || !bytes.Equal(f.Payload, p) {
			t.Fatalf("%v", err)
		}
		f.Release()
	})
	t.Logf("Reader %.2f bytes a byte", float64(got)/float64(n))
	allocbound.Fresh()
	got = allocbound.Check(t, "Splitter", n, limit, func() {
		s := codec.NewSplitter(schema.DefaultMaxFrame)
		for in := frame; len(in) > 0; {
			st := s.Feed(in[:min(len(in), 1000)])
			in = in[st.N:]
			if st.Kind == codec.GotFrame {
				st.Frame.Release()
			}
		}
	})
	t.Logf("Splitter %.2f bytes a byte", float64(got)/float64(n))
}

// cborBytesHead is the head of a byte string of n bytes (n < 2^32).
func cborBytesHead(n int) []byte {
	return []byte{0x5a, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}
