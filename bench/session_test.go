package bench

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// BenchmarkSession: the session layer's cost on top of the codec. The
// host and the agent run in memory, joined by handing each one's
// PollTransmit to the other's Receive, on a clock that stands still.
//
// op=request_roundtrip: one snapshot request from the host and its
// response from the agent (a seeded 200-node snapshot), from Request to
// the host's Completed event: two frames encoded, split and decoded, the
// request delivered as Incoming, the response matched to its request.
//
// op=snapshot_stream: the per-frame work of BenchmarkLoopback without its
// sockets: with sessionWindow requests in flight, the agent answers one
// (the same snapshot), its bytes go to the host in the takes the driver
// writes (PollTransmitAt, netconn.WriteChunk), and the host, its answer
// completed, sends the next request. MB/s is of the response frames.
//
// op=snapshot_stream_trees: op=snapshot_stream with a host that reads
// the snapshots as codec.Trees (HostConfig.Trees).
func BenchmarkSession(b *testing.B) {
	support.Run(b, "op=snapshot_stream", func(b *testing.B) { snapshotStream(b, false) })
	support.Run(b, "op=snapshot_stream_trees", func(b *testing.B) { snapshotStream(b, true) })
	support.Run(b, "op=request_roundtrip", func(b *testing.B) {
		now := time.Unix(1_700_000_000, 0)
		h, a := sessionPair(b, now)
		snap := support.Snapshot(200, 1)
		params := &codec.SnapshotParams{Evict: []uint32{}}
		b.ReportAllocs()
		c := support.CountAllocs(b)
		for i := 0; i < b.N; i++ {
			id, err := h.Request(now, codec.MethodSnapshot, params, 0)
			if err != nil {
				b.Fatal(err)
			}
			a.Receive(now, h.PollTransmit())
			answer(b, a, now, snap)
			h.Receive(now, a.PollTransmit())
			completed(b, h, id, false)
		}
		c.Stop()
	})
}

// snapshotStream is op=snapshot_stream: with trees, the host reads the
// snapshots as codec.Trees (HostConfig.Trees), op=snapshot_stream_trees.
func snapshotStream(b *testing.B, trees bool) {
	now := time.Unix(1_700_000_000, 0)
	h, a := sessionPairWith(b, now, session.HostConfig{Session: 1, Trees: trees})
	snap := support.Snapshot(200, 1)
	params := &codec.SnapshotParams{Evict: []uint32{}}
	frame, err := codec.AppendFrame(nil, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: snap}, schema.DefaultMaxFrame)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < sessionWindow; i++ {
		if _, err := h.Request(now, codec.MethodSnapshot, params, 0); err != nil {
			b.Fatal(err)
		}
	}
	a.Receive(now, h.PollTransmit())
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	c := support.CountAllocs(b)
	for i := 0; i < b.N; i++ {
		answer(b, a, now, snap)
		for out := a.PollTransmitAt(now, netconn.WriteChunk); out != nil; out = a.PollTransmitAt(now, netconn.WriteChunk) {
			h.Receive(now, out)
		}
		completed(b, h, 0, trees)
		if _, err := h.Request(now, codec.MethodSnapshot, params, 0); err != nil {
			b.Fatal(err)
		}
		a.Receive(now, h.PollTransmitAt(now, netconn.WriteChunk))
	}
	c.Stop()
}

// answer has the agent answer its next event, a request, with res.
func answer(b *testing.B, a *session.Agent, now time.Time, res codec.Result) {
	b.Helper()
	ev, _ := a.PollEvent()
	in, ok := ev.(*session.Incoming)
	if !ok {
		b.Fatalf("agent event %#v, want a request", ev)
	}
	if err := a.Respond(now, in.ID, res); err != nil {
		b.Fatal(err)
	}
}

// completed checks that the host's next event is request id (0: any)
// completed without an error, with a *codec.Tree when tree is set.
func completed(b *testing.B, h *session.Host, id uint64, tree bool) {
	b.Helper()
	ev, _ := h.PollEvent()
	if done, ok := ev.(*session.Completed); !ok || (id != 0 && done.ID != id) || done.Err != nil {
		b.Fatalf("host event %#v, want request %d completed", ev, id)
	} else if _, isTree := done.Result.(*codec.Tree); isTree != tree {
		b.Fatalf("request %d completed with a %T", done.ID, done.Result)
	}
}

// sessionPair returns a host and an agent past their handshake.
func sessionPair(b *testing.B, now time.Time) (*session.Host, *session.Agent) {
	return sessionPairWith(b, now, session.HostConfig{Session: 1})
}

// sessionPairWith returns a host of config hc and an agent past their
// handshake.
func sessionPairWith(b *testing.B, now time.Time, hc session.HostConfig) (*session.Host, *session.Agent) {
	h := session.NewHost(hc, now)
	a := session.NewAgent(session.AgentConfig{Capabilities: codec.CapAll, Name: "bench"}, now)
	h.Receive(now, a.PollTransmit())
	a.Receive(now, h.PollTransmit())
	if !h.Connected() || !a.Connected() {
		b.Fatal("handshake failed")
	}
	h.PollEvent()
	a.PollEvent()
	return h, a
}

// sessionWindow is how many snapshot requests the session benchmarks keep
// in flight.
const sessionWindow = 8

// BenchmarkLoopback: snapshot responses from an agent to a host, each a
// session.Agent or session.Host driven by netconn over one TCP connection
// on loopback, with sessionWindow requests in flight: what a daemon gets
// from a device, syscalls and goroutines included. One op is one response
// (the seeded 200-node snapshot); reported in frames/s and MB/s of the
// response frames. Timed only: its per-frame work without the sockets is
// BenchmarkSession/op=snapshot_stream, which the count tier counts.
func BenchmarkLoopback(b *testing.B) {
	b.Run("op=snapshot_responses", func(b *testing.B) {
		snap := support.Snapshot(200, 1)
		frame, err := codec.AppendFrame(nil, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: snap}, schema.DefaultMaxFrame)
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		agentDone := make(chan error, 1)
		go func() { agentDone <- loopbackAgent(ctx, ln, snap) }()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		h := session.NewHost(session.HostConfig{Session: 1}, time.Now())
		d := netconn.New(c, h)
		defer d.Close()
		params := &codec.SnapshotParams{Evict: []uint32{}}
		sent, done := 0, 0
		var failed error
		send := func() {
			for ; sent < b.N && sent-done < sessionWindow; sent++ {
				if _, err := h.Request(time.Now(), codec.MethodSnapshot, params, 0); err != nil {
					failed = err
					return
				}
			}
		}
		b.SetBytes(int64(len(frame)))
		started := false
		err = d.Run(ctx, func() bool {
			for ev, ok := h.PollEvent(); ok; ev, ok = h.PollEvent() {
				switch ev := ev.(type) {
				case *session.Connected:
					b.ResetTimer()
					started = true
				case *session.Completed:
					if ev.Err != nil {
						failed = ev.Err
						return true
					}
					done++
				case *session.Closed:
					failed = ev.Err
					return true
				}
			}
			if started {
				send()
			}
			return failed != nil || done == b.N
		})
		b.StopTimer()
		if err != nil || failed != nil {
			b.Fatalf("after %d responses: %v %v", done, err, failed)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		cancel()
		if err := <-agentDone; err != nil && err != context.Canceled {
			b.Fatalf("agent: %v", err)
		}
	})
}

// loopbackAgent serves one connection on ln, answering every snapshot
// request with snap, until ctx ends or the host leaves.
func loopbackAgent(ctx context.Context, ln net.Listener, snap *codec.Snapshot) error {
	c, err := ln.Accept()
	if err != nil {
		return err
	}
	a := session.NewAgent(session.AgentConfig{Capabilities: codec.CapAll, Name: "bench"}, time.Now())
	d := netconn.New(c, a)
	defer d.Close()
	return d.Run(ctx, func() bool {
		for ev, ok := a.PollEvent(); ok; ev, ok = a.PollEvent() {
			switch ev := ev.(type) {
			case *session.Incoming:
				if err := a.Respond(time.Now(), ev.ID, snap); err != nil {
					return true
				}
			case *session.Closed:
				return true
			}
		}
		return false
	})
}
