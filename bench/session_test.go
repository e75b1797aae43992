package bench

import (
	"testing"
	"time"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/session"
)

// BenchmarkSession: the session layer's cost on top of the codec. The
// host and the agent run in memory, joined by handing each one's
// PollTransmit to the other's Receive, on a clock that stands still.
//
// op=request_roundtrip: one snapshot request from the host and its
// response from the agent (a seeded 200-node snapshot), from Request to
// the host's Completed event: two frames encoded, split and decoded, the
// request delivered as Incoming, the response matched to its request.
func BenchmarkSession(b *testing.B) {
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
			ev, _ := a.PollEvent()
			in, ok := ev.(*session.Incoming)
			if !ok {
				b.Fatalf("agent event %#v, want the request", ev)
			}
			if err := a.Respond(now, in.ID, snap); err != nil {
				b.Fatal(err)
			}
			h.Receive(now, a.PollTransmit())
			ev2, _ := h.PollEvent()
			if done, ok := ev2.(*session.Completed); !ok || done.ID != id || done.Err != nil {
				b.Fatalf("host event %#v, want request %d completed", ev2, id)
			}
		}
		c.Stop()
	})
}

// sessionPair returns a host and an agent past their handshake.
func sessionPair(b *testing.B, now time.Time) (*session.Host, *session.Agent) {
	h := session.NewHost(session.HostConfig{Session: 1}, now)
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
