package session

import (
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

// t0 is the tests' epoch; tests move time by hand from it.
var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// pair is a host and an agent joined in memory, with a hand-driven clock.
type pair struct {
	t   testing.TB
	h   *Host
	a   *Agent
	now time.Time
	he  []HostEvent
	ae  []AgentEvent
	// cut stops the bytes of one direction when set.
	cutToHost, cutToAgent bool
}

func fullCaps() AgentConfig {
	return AgentConfig{Capabilities: codec.CapAll, Name: "test-agent/1"}
}

// newPair connects a host and an agent and checks the handshake went through.
func newPair(t testing.TB, hc HostConfig, ac AgentConfig) *pair {
	t.Helper()
	p := &pair{t: t, now: t0}
	p.h = NewHost(hc, t0)
	p.a = NewAgent(ac, t0)
	p.pump()
	if !p.h.Connected() || !p.a.Connected() {
		t.Fatalf("handshake did not complete: host events %v, agent events %v", p.he, p.ae)
	}
	p.he, p.ae = nil, nil
	return p
}

// pump moves bytes both ways until neither side has anything to send,
// collecting events.
func (p *pair) pump() {
	for i := 0; i < 1000; i++ {
		moved := false
		if p.cutToHost {
		} else if b := p.a.PollTransmit(); len(b) > 0 {
			p.h.Receive(p.now, b)
			moved = true
		}
		if p.cutToAgent {
		} else if b := p.h.PollTransmit(); len(b) > 0 {
			p.a.Receive(p.now, b)
			moved = true
		}
		p.drain()
		if !moved {
			return
		}
	}
	p.t.Fatal("pump: the sessions keep talking")
}

func (p *pair) drain() {
	for e, ok := p.h.PollEvent(); ok; e, ok = p.h.PollEvent() {
		p.he = append(p.he, e)
	}
	for e, ok := p.a.PollEvent(); ok; e, ok = p.a.PollEvent() {
		p.ae = append(p.ae, e)
	}
}

// advance moves the clock by d, firing each timer at its own time, as a
// perfect event loop would.
func (p *pair) advance(d time.Duration) {
	target := p.now.Add(d)
	for {
		ht, hok := p.h.PollTimeout()
		at, aok := p.a.PollTimeout()
		next, ok := earliest(ht, hok, at, aok)
		if !ok || next.After(target) {
			break
		}
		if next.After(p.now) {
			p.now = next
		}
		if hok && !ht.After(p.now) {
			p.h.HandleTimeout(p.now)
		}
		if aok && !at.After(p.now) {
			p.a.HandleTimeout(p.now)
		}
		p.pump()
	}
	p.now = target
	p.pump()
}

// takeHost returns and forgets the host's collected events.
func (p *pair) takeHost() []HostEvent {
	e := p.he
	p.he = nil
	return e
}

func (p *pair) takeAgent() []AgentEvent {
	e := p.ae
	p.ae = nil
	return e
}

// incoming returns the one Incoming request the agent delivered.
func (p *pair) incoming() *Incoming {
	p.t.Helper()
	var in *Incoming
	for _, e := range p.takeAgent() {
		if x, ok := e.(*Incoming); ok {
			if in != nil {
				p.t.Fatalf("two requests delivered: %d and %d", in.ID, x.ID)
			}
			in = x
		}
	}
	if in == nil {
		p.t.Fatal("no request delivered to the agent")
	}
	return in
}

// completions returns the Completed events among evs, by id.
func completions(evs []HostEvent) map[uint64]*Completed {
	out := map[uint64]*Completed{}
	for _, e := range evs {
		if c, ok := e.(*Completed); ok {
			out[c.ID] = c
		}
	}
	return out
}

// ofType returns the events of type T, of a host's or an agent's events.
func ofType[T, E any](evs []E) []T {
	var out []T
	for _, e := range evs {
		if x, ok := any(e).(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// frame encodes m as a frame with no limit.
func frame(t testing.TB, m codec.Message) []byte {
	t.Helper()
	b, err := codec.AppendFrame(nil, m, ^uint32(0))
	if err != nil {
		t.Fatalf("frame %T: %v", m, err)
	}
	return b
}

// rawFrame frames a raw CBOR payload.
func rawFrame(payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, payload...)
}

// messages decodes a byte stream into its messages.
func messages(t testing.TB, b []byte) []codec.Message {
	t.Helper()
	s := codec.NewSplitter(^uint32(0))
	var out []codec.Message
	for len(b) > 0 {
		st := s.Feed(b)
		b = b[st.N:]
		if st.Kind == codec.GotFrame {
			m, err := codec.Decode(st.Frame.Payload)
			st.Frame.Release()
			if err != nil {
				t.Fatalf("decode sent frame: %v", err)
			}
			out = append(out, m)
		}
	}
	if s.Mid() {
		t.Fatal("sent bytes end inside a frame")
	}
	return out
}

// wantCode checks that err is a *codec.Error with code c whose message
// holds every one of subs.
func wantCode(t testing.TB, err error, c codec.Code, subs ...string) *codec.Error {
	t.Helper()
	e, ok := err.(*codec.Error)
	if !ok {
		t.Fatalf("error %v (%T), want a *codec.Error with code %s", err, err, c)
	}
	if e.Code != c {
		t.Fatalf("error code %s (%v), want %s", e.Code, e, c)
	}
	if e.Retryable != c.Retryable() {
		t.Errorf("error %v: retryable %v, the table says %v", e, e.Retryable, c.Retryable())
	}
	for _, s := range subs {
		if !strings.Contains(e.Message, s) {
			t.Errorf("error message %q does not mention %q", e.Message, s)
		}
	}
	return e
}

// connectedHost returns a host that has answered a hello with caps, and
// the welcome it sent.
func connectedHost(t testing.TB, hc HostConfig, hello *codec.Hello) (*Host, *codec.Welcome) {
	t.Helper()
	h := NewHost(hc, t0)
	h.Receive(t0, frame(t, hello))
	ms := messages(t, h.PollTransmit())
	if len(ms) != 1 {
		t.Fatalf("host sent %d messages for a hello, want 1 welcome", len(ms))
	}
	w, ok := ms[0].(*codec.Welcome)
	if !ok {
		t.Fatalf("host answered a hello with %T", ms[0])
	}
	if w.Error == nil {
		if e, _ := h.PollEvent(); e == nil {
			t.Fatal("no Connected event")
		}
	}
	return h, w
}

func stdHello(caps codec.Capabilities, maxFrame uint32) *codec.Hello {
	return &codec.Hello{Versions: []uint32{1}, MaxFrame: maxFrame, Capabilities: caps, Agent: "raw"}
}

// connectedAgent returns an agent that has read a welcome with limit.
func connectedAgent(t testing.TB, ac AgentConfig, limit uint32) *Agent {
	t.Helper()
	a := NewAgent(ac, t0)
	a.PollTransmit()
	a.Receive(t0, frame(t, &codec.Welcome{Version: codec.Some[uint32](1), MaxFrame: codec.Some(limit), Session: codec.Some[uint64](5)}))
	if !a.Connected() {
		e, _ := a.PollEvent()
		t.Fatalf("agent did not accept the welcome: %#v", e)
	}
	a.PollEvent()
	return a
}
