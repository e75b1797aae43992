package session

import (
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

func TestPingAfterASecondOfSilence(t *testing.T) {
	for _, side := range []string{"host", "agent"} {
		t.Run(side, func(t *testing.T) {
			p := newPair(t, HostConfig{}, fullCaps())
			p.cutToHost, p.cutToAgent = true, true
			var out func() []byte
			if side == "host" {
				out = p.h.PollTransmit
			} else {
				out = p.a.PollTransmit
			}
			p.advance(999 * time.Millisecond)
			if b := out(); b != nil {
				t.Fatalf("sent %x before a second of silence", b)
			}
			p.advance(time.Millisecond)
			// pump with both directions cut leaves the ping queued.
			ms := messages(t, out())
			if len(ms) != 1 {
				t.Fatalf("sent %v at 1s of silence, want one ping", ms)
			}
			if _, ok := ms[0].(*codec.Ping); !ok {
				t.Fatalf("sent %T, want a ping", ms[0])
			}
			// One ping per silence.
			p.advance(1500 * time.Millisecond)
			if b := out(); b != nil {
				t.Fatalf("sent %x again in the same silence", b)
			}
		})
	}
}

func TestPingAnsweredWithPong(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	h.Receive(t0, frame(t, &codec.Ping{Nonce: 0xdeadbeef}))
	ms := messages(t, h.PollTransmit())
	if len(ms) != 1 || ms[0].(*codec.Pong).Nonce != 0xdeadbeef {
		t.Fatalf("answer %v, want pong 0xdeadbeef", ms)
	}
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Ping{Nonce: 3}))
	ms = messages(t, a.PollTransmit())
	if len(ms) != 1 || ms[0].(*codec.Pong).Nonce != 3 {
		t.Fatalf("answer %v, want pong 3", ms)
	}
}

func TestPingsKeepAQuietPairAlive(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	p.advance(30 * time.Second)
	if !p.h.Connected() || !p.a.Connected() {
		t.Fatalf("a quiet pair closed: host %v agent %v", p.he, p.ae)
	}
}

func TestSilentCloseFailsPendingAndLaterRequests(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id, _ := p.h.Request(p.now, codec.MethodSnapshot, nil, 0)
	p.pump()
	p.takeAgent()
	p.cutToHost, p.cutToAgent = true, true
	p.advance(2999 * time.Millisecond)
	if !p.h.Connected() {
		t.Fatal("closed before 3s of silence")
	}
	p.advance(time.Millisecond)
	evs := p.takeHost()
	c := completions(evs)[id]
	if c == nil {
		t.Fatalf("events %v, want the pending request failed", evs)
	}
	wantCode(t, c.Err, codec.CodeDisconnected, "reconnect", "3s")
	cl := ofType[*Closed](evs)
	if len(cl) != 1 || cl[0].Reason != CloseSilent {
		t.Fatalf("events %v, want Closed silent", evs)
	}
	if _, isCompleted := evs[len(evs)-1].(*Closed); !isCompleted {
		t.Fatal("Closed is not the last event")
	}
	_, err := p.h.Request(p.now, codec.MethodTap, &codec.TapParams{}, 0)
	wantCode(t, err, codec.CodeDisconnected, "reconnect")
	if _, ok := p.h.PollTimeout(); ok {
		t.Fatal("a closed host still has a timeout")
	}
	acl := ofType[*Closed](p.takeAgent())
	if len(acl) != 1 || acl[0].Reason != CloseSilent {
		t.Fatal("agent did not close as silent")
	}
	if _, err := p.a.SendEvent(codec.StreamTree, 0, nil); err == nil {
		t.Fatal("closed agent sent an event")
	}
}

func TestEndOfStreamClosesAtOnce(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id, _ := p.h.Request(p.now, codec.MethodSnapshot, nil, 0)
	p.h.EndOfStream(p.now)
	evs := p.takeHost()
	p.drain()
	evs = append(evs, p.takeHost()...)
	c := completions(evs)[id]
	if c == nil {
		t.Fatalf("events %v", evs)
	}
	wantCode(t, c.Err, codec.CodeDisconnected, "closed the connection", "reconnect")
	if cl := ofType[*Closed](evs); len(cl) != 1 || cl[0].Reason != CloseEndOfStream {
		t.Fatalf("events %v, want Closed end_of_stream", evs)
	}
	// Mid-frame end of stream says so.
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Ping{Nonce: 1})[:3])
	a.EndOfStream(t0)
	e, _ := a.PollEvent()
	if cl, ok := e.(*Closed); !ok || cl.Reason != CloseEndOfStream || !strings.Contains(cl.Err.Message, "middle of a frame") {
		t.Fatalf("event %#v", e)
	}
}

func TestDiscardedBytesAreNoSignOfLife(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{MaxFrame: 4096}, stdHello(codec.CapAll, 1<<20))
	h.PollTransmit()
	// An oversized frame claiming 1 GiB, its payload trickling in: the
	// host must close at 3s all the same.
	h.Receive(t0, []byte{0x40, 0, 0, 0})
	junk := make([]byte, 100)
	var closedAt time.Duration
	for ms := 100; ms <= 5000; ms += 100 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		h.Receive(now, junk)
		h.HandleTimeout(now)
		if !h.Connected() {
			closedAt = now.Sub(t0)
			break
		}
	}
	if closedAt != SilentAfter {
		t.Fatalf("closed at %v with discarded bytes arriving, want %v", closedAt, SilentAfter)
	}
	if h.Stats().OversizedIn != 1 {
		t.Fatalf("stats %+v", h.Stats())
	}
	// The control: the bytes of a frame being delivered do count, even
	// before the frame is whole.
	h2, _ := connectedHost(t, HostConfig{MaxFrame: 1 << 20}, stdHello(codec.CapAll, 1<<20))
	big := frame(t, &codec.Response{ID: 1, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{Image: make([]byte, 5000)}})
	for i, ms := 0, 100; ms <= 5000; i, ms = i+100, ms+100 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		h2.Receive(now, big[i:i+100])
		h2.HandleTimeout(now)
	}
	if !h2.Connected() {
		t.Fatal("a slow but live frame closed the session")
	}
}

func TestHandshakeSilenceCloses(t *testing.T) {
	h := NewHost(HostConfig{}, t0)
	at, ok := h.PollTimeout()
	if !ok || !at.Equal(t0.Add(SilentAfter)) {
		t.Fatalf("timeout %v %v before the hello, want the silence close at 3s", at.Sub(t0), ok)
	}
	h.HandleTimeout(at)
	if b := h.PollTransmit(); b != nil {
		t.Fatal("pinged before the handshake")
	}
	e, _ := h.PollEvent()
	if cl, ok := e.(*Closed); !ok || cl.Reason != CloseSilent {
		t.Fatalf("event %#v, want Closed silent", e)
	}
}

func TestClockGoingBackwardsFiresNothing(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	p.advance(900 * time.Millisecond)
	p.h.HandleTimeout(p.now) // nothing due; the host has seen 0.9s
	p.h.HandleTimeout(t0)    // earlier than already seen
	// Heard "at t0", which is taken as the latest time seen, 0.9s.
	p.h.Receive(t0, frame(t, &codec.Pong{Nonce: 1}))
	if b := p.h.PollTransmit(); b != nil {
		t.Fatalf("sent %x on a clock going backwards", b)
	}
	at, _ := p.h.PollTimeout()
	if !at.Equal(t0.Add(900*time.Millisecond + PingAfter)) {
		t.Fatalf("ping at %v, want 1.9s", at.Sub(t0))
	}
}

func TestAgentDiscardedBytesAreNoSignOfLife(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	a.PollTransmit()
	a.Receive(t0, []byte{0x7f, 0, 0, 0}) // a frame claiming 2 GiB
	for ms := 250; ms <= 4000; ms += 250 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		a.Receive(now, make([]byte, 512))
		a.HandleTimeout(now)
		if !a.Connected() {
			if d := now.Sub(t0); d != SilentAfter {
				t.Fatalf("agent closed at %v, want %v", d, SilentAfter)
			}
			if a.Stats().OversizedIn != 1 {
				t.Fatalf("stats %+v", a.Stats())
			}
			return
		}
	}
	t.Fatal("discarded bytes kept the agent alive")
}

// TestOnePingWaitsAtATime: a ping that the transport has not taken yet is
// the only one queued, even when the peer is heard from meanwhile and a
// ping falls due again; the next one is timed once it has been handed out.
func TestOnePingWaitsAtATime(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	h.HandleTimeout(t0.Add(PingAfter)) // the first ping, not taken
	heard := t0.Add(PingAfter + 500*time.Millisecond)
	h.Receive(heard, frame(t, &codec.Pong{Nonce: 99}))
	if at, ok := h.PollTimeout(); !ok || !at.Equal(heard.Add(SilentAfter)) {
		t.Fatalf("next timeout %v with a ping waiting, want only the silence at %v", at, heard.Add(SilentAfter))
	}
	h.HandleTimeout(heard.Add(PingAfter))
	ms := messages(t, h.PollTransmitAt(heard.Add(PingAfter), 0))
	if len(ms) != 1 {
		t.Fatalf("sent %v, want the one ping that waited", ms)
	}
	if _, ok := ms[0].(*codec.Ping); !ok {
		t.Fatalf("sent %T, want a ping", ms[0])
	}
	// Handed out, it no longer holds the next one back.
	if at, ok := h.PollTimeout(); !ok || !at.Before(heard.Add(SilentAfter)) {
		t.Fatalf("next timeout %v once the ping left, want a ping due before the silence at %v", at, heard.Add(SilentAfter))
	}
}
