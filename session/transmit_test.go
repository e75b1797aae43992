package session

import (
	"errors"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// frameEvent is a frames-stream body of n image bytes.
func frameEvent(n int) *codec.ScreenFrame {
	return &codec.ScreenFrame{Width: 10, Height: 10, Format: schema.FormatPNG, Image: make([]byte, n)}
}

func TestControlFramesGoAheadOfBulk(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 1<<20)
	for i := 0; i < 5; i++ {
		if _, err := a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(1000)); err != nil {
			t.Fatal(err)
		}
	}
	a.Receive(t0, frame(t, &codec.Ping{Nonce: 42}))
	b := a.PollTransmitAt(t0, 2500)
	ms := messages(t, b)
	if len(ms) != 1 || ms[0].(*codec.Pong).Nonce != 42 {
		t.Fatalf("first take %v, want the pong alone", ms)
	}
	// Then whole frames, at most 2500 bytes a take: two frames of ~1030.
	var seqs []uint64
	for b := a.PollTransmitAt(t0, 2500); b != nil; b = a.PollTransmitAt(t0, 2500) {
		if len(b) > 2500 {
			t.Fatalf("a take of %d bytes, over the 2500 asked", len(b))
		}
		got := messages(t, b)
		if len(got) == 0 {
			t.Fatal("an empty take")
		}
		for _, m := range got {
			seqs = append(seqs, m.(*codec.Event).Seq)
		}
		// A ping queued between two takes goes out next.
		if len(seqs) == 2 {
			a.Receive(t0, frame(t, &codec.Ping{Nonce: 43}))
			if ms := messages(t, a.PollTransmitAt(t0, 2500)); len(ms) != 1 || ms[0].(*codec.Pong).Nonce != 43 {
				t.Fatalf("take after a ping: %v, want its pong", ms)
			}
		}
	}
	if len(seqs) != 5 || seqs[0] != 1 || seqs[4] != 5 {
		t.Fatalf("events went out as %v, want 1..5 in order", seqs)
	}
	// A frame longer than max still goes out, alone.
	a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(5000))
	if b := a.PollTransmitAt(t0, 100); len(messages(t, b)) != 1 || len(b) < 5000 {
		t.Fatalf("take of a long frame: %d bytes", len(b))
	}
	if a.Backlog() != 0 {
		t.Fatalf("backlog %d after everything went out", a.Backlog())
	}
}

// TestTakenBytesStayValid: what a take handed out is not written over by
// what is queued before the next take.
func TestTakenBytesStayValid(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 1<<20)
	a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(100))
	a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(100))
	first := a.PollTransmitAt(t0, 50) // one frame
	keep := append([]byte(nil), first...)
	for i := 0; i < 20; i++ {
		a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(300))
		a.Receive(t0, frame(t, &codec.Ping{Nonce: uint64(i)}))
	}
	if string(first) != string(keep) {
		t.Fatal("the bytes of a take changed before the next take")
	}
	all := a.PollTransmit()
	keep = append(keep[:0], all...)
	for i := 0; i < 20; i++ {
		a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(300))
	}
	if string(all) != string(keep) {
		t.Fatal("the bytes of PollTransmit changed before the next take")
	}
	ms := messages(t, all)
	if _, ok := ms[0].(*codec.Pong); !ok || len(ms) != 20+21 {
		t.Fatalf("PollTransmit handed out %d messages, the first %T; want the 20 pongs first, then 21 events", len(ms), ms[0])
	}
}

func TestBackpressureRefusesEventsAtTheLimit(t *testing.T) {
	cfg := fullCaps()
	cfg.MaxBacklog = 4096
	a := connectedAgent(t, cfg, 1<<20)
	if !a.Writable() {
		t.Fatal("an empty agent is not writable")
	}
	sent := 0
	for a.Writable() {
		if _, err := a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(1000)); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	if sent != 5 || a.Backlog() < 4096 || a.Backlog() > 4096+1100 {
		t.Fatalf("%d events queued, backlog %d; want 5 (the limit reached by the fifth)", sent, a.Backlog())
	}
	// One past the limit: refused, its number used.
	seq, err := a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(1000))
	if !errors.Is(err, ErrBackpressure) || seq != 6 || a.NextSeq(codec.StreamFrames) != 7 {
		t.Fatalf("event past the limit: seq %d, %v; want 6 skipped with ErrBackpressure", seq, err)
	}
	if a.Stats().Backpressured != 1 {
		t.Fatalf("stats %+v", a.Stats())
	}
	// Responses are queued whatever the backlog.
	a.Receive(t0, frame(t, &codec.Request{ID: 9, Method: codec.MethodDeviceInfo, Params: &codec.DeviceInfoParams{}}))
	in, _ := a.PollEvent()
	if err := a.Respond(t0, in.(*Incoming).ID, &codec.Device{Model: "m"}); err != nil {
		t.Fatalf("respond over the backlog: %v", err)
	}
	// Drained, the agent takes events again, and the host sees the gap
	// as one dropped frame.
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	h.Receive(t0, a.PollTransmit())
	if _, err := a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(1000)); err != nil {
		t.Fatalf("after draining: %v", err)
	}
	h.Receive(t0, a.PollTransmit())
	if h.Dropped(codec.StreamFrames) != 1 {
		t.Fatalf("host counted %d dropped frames, want 1", h.Dropped(codec.StreamFrames))
	}
}

// TestSlowUplinkStaysUp is the slow link of issue 21 without I/O: the
// agent makes 19 KB/s of frames, the link to the host carries 8 KB/s,
// the host only listens. Over a minute neither side closes, the
// agent's backlog stays under its limit plus a frame, frames are
// dropped (not queued), and every ping the host sends is answered.
func TestSlowUplinkStaysUp(t *testing.T) {
	cfg := fullCaps()
	cfg.MaxBacklog = 16 << 10
	p := newPair(t, HostConfig{}, cfg)
	var link []byte // bytes handed out by the agent, not yet delivered
	const (
		step    = 10 * time.Millisecond
		rate    = 8 << 10      // bytes a second, agent to host
		frameSz = 19 << 10 / 4 // four frames a second
	)
	p.cutToHost = true // the test moves that direction itself
	maxBacklog := 0
	for i := 0; i < 6000; i++ {
		p.now = p.now.Add(step)
		if i%25 == 0 {
			if p.a.Writable() {
				p.a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(frameSz))
			} else {
				p.a.SkipEvent(codec.StreamFrames)
			}
		}
		maxBacklog = max(maxBacklog, p.a.Backlog())
		// The agent's driver writes a take whenever the link has room
		// for it (a shallow transport buffer of 4 KiB).
		if len(link) < 4<<10 {
			link = append(link, p.a.PollTransmitAt(p.now, 4<<10)...)
		}
		n := min(len(link), rate*int(step)/int(time.Second))
		p.h.Receive(p.now, link[:n])
		link = link[n:]
		p.h.HandleTimeout(p.now)
		p.a.HandleTimeout(p.now)
		p.pump()
	}
	if cl := ofType[*Closed](append(p.takeHost(), nil)); len(cl) > 0 || !p.h.Connected() || !p.a.Connected() {
		t.Fatalf("closed over a slow link: host %v agent %v", p.h.Connected(), p.a.Connected())
	}
	if maxBacklog > cfg.MaxBacklog+frameSz+100 {
		t.Fatalf("agent backlog reached %d bytes, over its limit %d plus a frame", maxBacklog, cfg.MaxBacklog)
	}
	if p.h.Dropped(codec.StreamFrames) == 0 {
		t.Fatal("no frame dropped at 19 KB/s over 8 KB/s")
	}
}

func TestPingAnswerClockStartsWhenThePingLeaves(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 1<<20)
	a.PollTransmit()
	a.SendEvent(codec.StreamFrames, codec.TypeFrame, frameEvent(20000))
	// A driver writing a long frame: its take leaves at once, and the
	// next (the ping queued at 1s) only at 2.5s.
	if b := a.PollTransmitAt(t0, 4096); len(b) < 20000 {
		t.Fatalf("take %d bytes", len(b))
	}
	a.HandleTimeout(t0.Add(PingAfter))
	if a.Backlog() == 0 {
		t.Fatal("no ping queued at 1s")
	}
	left := t0.Add(2500 * time.Millisecond)
	if ms := messages(t, a.PollTransmitAt(left, 4096)); len(ms) != 1 {
		t.Fatalf("take at 2.5s: %v, want the ping", ms)
	} else if _, ok := ms[0].(*codec.Ping); !ok {
		t.Fatalf("take at 2.5s: %T, want the ping", ms[0])
	}
	at, _ := a.PollTimeout()
	if want := left.Add(SilentAfter - PingAfter); !at.Equal(want) {
		t.Fatalf("silence close at %v, want %v (2s after the ping left)", at.Sub(t0), want.Sub(t0))
	}
	a.HandleTimeout(at.Add(-time.Millisecond))
	if !a.Connected() {
		t.Fatal("closed before the ping had its time")
	}
	a.HandleTimeout(at)
	if a.Connected() {
		t.Fatal("still open when the ping's time was up")
	}
	// A ping that never leaves (a transport that takes nothing) does not
	// put the close off: 3s after the peer was last heard from.
	b := connectedAgent(t, fullCaps(), 1<<20)
	b.PollTransmit()
	b.HandleTimeout(t0.Add(PingAfter))
	b.HandleTimeout(t0.Add(SilentAfter - time.Millisecond))
	if !b.Connected() {
		t.Fatal("closed early")
	}
	b.HandleTimeout(t0.Add(SilentAfter))
	if b.Connected() {
		t.Fatal("a ping that never left kept the session open past SilentAfter")
	}
}

// TestKeepaliveWhileTheSessionOnlyListens: a host that hears the agent
// all the time but sends nothing pings every KeepaliveAfter, so the
// agent keeps hearing it; a host that sends requests does not.
func TestKeepaliveWhileTheSessionOnlyListens(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	var pings []time.Duration
	for ms := 100; ms <= 10000; ms += 100 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		h.Receive(now, frame(t, &codec.Event{Stream: codec.StreamFrames, Seq: uint64(ms / 100), Type: codec.TypeFrame, Body: frameEvent(10)}))
		h.HandleTimeout(now)
		for _, m := range messages(t, h.PollTransmitAt(now, 0)) {
			if _, ok := m.(*codec.Ping); ok {
				pings = append(pings, now.Sub(t0))
			}
		}
	}
	if len(pings) != 5 || pings[0] != KeepaliveAfter || pings[4] != 5*KeepaliveAfter {
		t.Fatalf("pings at %v, want one every %v", pings, KeepaliveAfter)
	}
	h2, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	for ms := 100; ms <= 5000; ms += 100 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		h2.Receive(now, frame(t, &codec.Event{Stream: codec.StreamFrames, Seq: uint64(ms / 100), Type: codec.TypeFrame, Body: frameEvent(10)}))
		if ms%1000 == 0 {
			h2.Request(now, codec.MethodDeviceInfo, nil, 0)
		}
		h2.HandleTimeout(now)
		for _, m := range messages(t, h2.PollTransmitAt(now, 0)) {
			if _, ok := m.(*codec.Ping); ok {
				t.Fatalf("pinged at %v while sending requests every second", now.Sub(t0))
			}
		}
	}
}
