package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Fuzz inputs are a stream of bytes from the peer. The first byte picks
// the chunk size the stream is cut into and the milliseconds between
// chunks, so the fuzzer also varies how the bytes arrive.

func fuzzHostSeeds(t testing.TB) [][]byte {
	hello := frame(t, stdHello(codec.CapAll, 4096))
	resp := frame(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: &codec.Snapshot{Strings: []string{"a"}, Windows: []codec.Window{{ID: 1, Root: &codec.Node{ID: 1}}}}})
	errResp := frame(t, &codec.Response{ID: 2, Method: codec.MethodTap, Error: codec.NewError(codec.CodeBusy, "b")})
	ev := frame(t, &codec.Event{Stream: codec.StreamTree, Seq: 1, Type: codec.TypeWindowChanged, Body: &codec.WindowChanged{Window: 1, Change: 1}})
	gap := frame(t, &codec.Event{Stream: codec.StreamTree, Seq: 3, Type: codec.TypeWindowChanged, Body: &codec.WindowChanged{Window: 1, Change: 1}})
	resync := frame(t, &codec.Response{ID: 4, Method: codec.MethodResync, Result: &codec.ResyncResult{Seq: 4}})
	frames := frame(t, &codec.Event{Stream: codec.StreamFrames, Seq: 5, Type: codec.TypeFrame, Body: &codec.ScreenFrame{Image: []byte{1, 2}}})
	big := []byte{0, 0, 0x20, 0, 0xa4, 0x00, 0x03, 0x01, 0x03, 0x02, 0x09}
	cat := func(bs ...[]byte) []byte { return slices.Concat(append([][]byte{{3}}, bs...)...) }
	return [][]byte{
		cat(hello),
		cat(hello, resp, errResp),
		cat(hello, ev, gap, resync, ev, frames),
		cat(hello, big),
		cat(frame(t, &codec.Ping{Nonce: 1}), hello, frame(t, &codec.Pong{Nonce: 2})),
		cat(rawFrame([]byte{0xa1, 0x00, 0x18, 0x63}), hello),
		cat(frame(t, &codec.Hello{Versions: []uint32{2}, MaxFrame: 4096, Agent: "x"})),
	}
}

func fuzzAgentSeeds(t testing.TB) [][]byte {
	welcome := frame(t, &codec.Welcome{Version: codec.Some[uint32](1), MaxFrame: codec.Some[uint32](4096), Session: codec.Some[uint64](1)})
	cat := func(bs ...[]byte) []byte { return slices.Concat(append([][]byte{{5}}, bs...)...) }
	return [][]byte{
		cat(welcome),
		cat(welcome, frame(t, &codec.Request{ID: 1, Method: codec.MethodSnapshot, Params: codec.ParamsFor(codec.MethodSnapshot), DeadlineMS: codec.Some[uint32](5)})),
		cat(welcome, frame(t, &codec.Request{ID: 2, Method: codec.Method(50)}), frame(t, &codec.Request{ID: 3, Method: codec.MethodTap, Params: &codec.TapParams{X: 1}})),
		cat(welcome, []byte{0, 0, 0x20, 0, 0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x07}),
		cat(frame(t, &codec.Welcome{Error: codec.NewError(codec.CodeBadToken, "no")})),
		cat(welcome, rawFrame([]byte{0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x03, 0x03, 0xa1, 0x00, 0x61, 'x'})),
		cat(welcome, frame(t, &codec.Ping{Nonce: 9})),
	}
}

// chunks cuts data after its first byte as that byte says.
func chunks(data []byte) (size int, step time.Duration, rest []byte) {
	if len(data) == 0 {
		return 1, 0, nil
	}
	return int(data[0]%64) + 1, time.Duration(data[0]/64) * 400 * time.Millisecond, data[1:]
}

// checkOut checks that what a session sent is whole frames under limit.
func checkOut(t *testing.T, out []byte, limit uint32) {
	t.Helper()
	s := codec.NewSplitter(limit)
	for len(out) > 0 {
		st := s.Feed(out)
		out = out[st.N:]
		switch st.Kind {
		case codec.GotOversized:
			t.Fatalf("sent a frame of %d bytes over the limit %d", st.Oversized.Size, limit)
		case codec.GotFrame:
			if _, err := codec.Decode(st.Frame.Payload); err != nil {
				t.Fatalf("sent a frame that does not decode: %v", err)
			}
			st.Frame.Release()
		}
	}
	if s.Mid() {
		t.Fatal("sent a partial frame")
	}
}

func FuzzHostReceive(f *testing.F) {
	for _, s := range fuzzHostSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		size, step, in := chunks(data)
		h := NewHost(HostConfig{MaxFrame: 1 << 16, Token: codec.Opt[string]{}}, t0)
		now := t0
		issued := map[uint64]bool{}
		done := map[uint64]bool{}
		for len(in) > 0 {
			n := min(size, len(in))
			h.Receive(now, in[:n])
			in = in[n:]
			if h.Connected() && len(issued) < 4 {
				id, err := h.Request(now, codec.MethodTap, &codec.TapParams{}, 50*time.Millisecond)
				if err == nil {
					issued[id] = true
				}
			}
			now = now.Add(step)
			if at, ok := h.PollTimeout(); ok && !at.After(now) {
				h.HandleTimeout(now)
				if at, ok := h.PollTimeout(); ok && !at.After(now) {
					t.Fatalf("timer at %v still due at %v", at, now)
				}
			}
			checkOut(t, h.PollTransmit(), max(h.MaxFrame(), schema.DefaultMaxFrame))
			for e, ok := h.PollEvent(); ok; e, ok = h.PollEvent() {
				if c, ok := e.(*Completed); ok {
					if !issued[c.ID] || done[c.ID] {
						t.Fatalf("completion of %d: issued %v, done before %v", c.ID, issued[c.ID], done[c.ID])
					}
					done[c.ID] = true
				}
			}
		}
		h.EndOfStream(now)
		for e, ok := h.PollEvent(); ok; e, ok = h.PollEvent() {
			if c, ok := e.(*Completed); ok {
				done[c.ID] = true
			}
		}
		if len(done) != len(issued) {
			t.Fatalf("%d requests issued, %d completed by the end of the stream", len(issued), len(done))
		}
	})
}

func FuzzAgentReceive(f *testing.F) {
	for _, s := range fuzzAgentSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		size, step, in := chunks(data)
		a := NewAgent(AgentConfig{MaxFrame: 1 << 16, Capabilities: codec.CapTree | codec.CapEvents}, t0)
		a.PollTransmit()
		now := t0
		answered := 0
		for len(in) > 0 {
			n := min(size, len(in))
			a.Receive(now, in[:n])
			in = in[n:]
			now = now.Add(step)
			if at, ok := a.PollTimeout(); ok && !at.After(now) {
				a.HandleTimeout(now)
			}
			for e, ok := a.PollEvent(); ok; e, ok = a.PollEvent() {
				if in, ok := e.(*Incoming); ok {
					if in.Method.Capability() != 0 && !a.Capabilities().Has(in.Method.Capability()) {
						t.Fatalf("delivered %s without its capability", in.Method)
					}
					if !in.Method.Known() {
						t.Fatalf("delivered unknown method %s", in.Method)
					}
					if answered%2 == 0 {
						if err := a.Respond(now, in.ID, codec.ResultFor(in.Method)); err != nil && a.Connected() {
							t.Logf("respond: %v", err)
						}
					}
					answered++
				}
			}
			if a.Connected() {
				a.SendEvent(codec.StreamTree, codec.TypeWindowChanged, &codec.WindowChanged{})
			}
			checkOut(t, a.PollTransmit(), max(a.MaxFrame(), schema.DefaultMaxFrame))
		}
	})
}

// TestWriteFuzzCorpus rewrites testdata/fuzz from the seeds above when
// SESSION_WRITE_CORPUS=1; otherwise it checks the corpus is there.
func TestWriteFuzzCorpus(t *testing.T) {
	for name, seeds := range map[string][][]byte{"FuzzHostReceive": fuzzHostSeeds(t), "FuzzAgentReceive": fuzzAgentSeeds(t)} {
		dir := filepath.Join("testdata", "fuzz", name)
		if os.Getenv("SESSION_WRITE_CORPUS") == "1" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, s := range seeds {
				body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) < len(seeds) {
			t.Fatalf("corpus %s: %d files (%v), want at least %d; run with SESSION_WRITE_CORPUS=1", dir, len(ents), err, len(seeds))
		}
	}
}
