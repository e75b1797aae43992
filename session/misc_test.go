package session

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

func TestLocalCloseFailsPendingRequests(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id1, _ := p.h.Request(p.now, codec.MethodTap, &codec.TapParams{}, time.Second)
	id2, _ := p.h.Request(p.now, codec.MethodSnapshot, nil, 0)
	p.h.Close(p.now)
	p.drain()
	evs := p.takeHost()
	cs := completions(evs)
	if len(cs) != 2 || cs[id1] == nil || cs[id2] == nil {
		t.Fatalf("events %v, want both requests failed", evs)
	}
	wantCode(t, cs[id1].Err, codec.CodeDisconnected, "host closed", "reconnect")
	if evs[0].(*Completed).ID != id1 {
		t.Fatal("pending requests not failed in id order")
	}
	if cl := ofType[*Closed](evs); len(cl) != 1 || cl[0].Reason != CloseLocal || cl[0].Reason.String() != "local" {
		t.Fatalf("events %v, want Closed local", evs)
	}
	p.h.Close(p.now) // twice is harmless
	if _, ok := p.h.PollEvent(); ok {
		t.Fatal("a second Close reported again")
	}
	// A timer armed before the close never fires after it.
	p.h.HandleTimeout(p.now.Add(time.Hour))
	if _, ok := p.h.PollEvent(); ok {
		t.Fatal("a closed host fired a timer")
	}

	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 4, Method: codec.MethodTap, Params: &codec.TapParams{}}))
	a.PollEvent()
	a.Close(t0)
	e, _ := a.PollEvent()
	if cl, ok := e.(*Closed); !ok || cl.Reason != CloseLocal {
		t.Fatalf("event %#v", e)
	}
	if err := a.Respond(t0, 4, &codec.Empty{}); err == nil {
		t.Fatal("a closed agent took an answer")
	}
}

func TestCloseReasonNames(t *testing.T) {
	for r, want := range map[CloseReason]string{CloseSilent: "silent", CloseEndOfStream: "end_of_stream", CloseRejected: "rejected", CloseProtocol: "protocol", CloseLocal: "local", 0: "close_reason(0)", 99: "close_reason(99)"} {
		if r.String() != want {
			t.Errorf("%d: %q, want %q", r, r.String(), want)
		}
	}
}

func TestAgentSilentBeforeTheWelcomeCloses(t *testing.T) {
	a := NewAgent(fullCaps(), t0)
	a.PollTransmit()
	a.HandleTimeout(t0.Add(SilentAfter - time.Millisecond))
	if b := a.PollTransmit(); b != nil {
		t.Fatal("agent pinged before the welcome")
	}
	if _, ok := a.PollEvent(); ok {
		t.Fatal("closed too early")
	}
	a.HandleTimeout(t0.Add(SilentAfter))
	e, _ := a.PollEvent()
	if cl, ok := e.(*Closed); !ok || cl.Reason != CloseSilent {
		t.Fatalf("event %#v, want Closed silent", e)
	}
	wantCode(t, e.(*Closed).Err, codec.CodeDisconnected, "host")
}

func TestAgentSkipsRequestsBeforeTheWelcomeAndDuplicateIDs(t *testing.T) {
	a := NewAgent(fullCaps(), t0)
	a.PollTransmit()
	a.Receive(t0, frame(t, &codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.TapParams{}}))
	e, _ := a.PollEvent()
	if _, ok := e.(*ProtocolError); !ok || a.PollTransmit() != nil {
		t.Fatalf("request before the welcome: %#v", e)
	}
	if _, err := a.SendEvent(codec.StreamTree, 0, nil); err == nil {
		t.Fatal("event sent before the welcome")
	}
	a = connectedAgent(t, fullCaps(), 4096)
	req := frame(t, &codec.Request{ID: 8, Method: codec.MethodTap, Params: &codec.TapParams{}})
	a.Receive(t0, append(req, req...))
	if e, _ := a.PollEvent(); e.(*Incoming).ID != 8 {
		t.Fatalf("event %#v", e)
	}
	e, _ = a.PollEvent()
	if _, ok := e.(*ProtocolError); !ok {
		t.Fatalf("duplicate id in flight: %#v, want a ProtocolError", e)
	}
	if a.PollTransmit() != nil || a.Pending() != 1 {
		t.Fatal("the duplicate was answered")
	}
	// Once answered, the id may come again.
	a.Respond(t0, 8, &codec.Empty{})
	a.Receive(t0, req)
	if e, _ := a.PollEvent(); e.(*Incoming).ID != 8 {
		t.Fatalf("id reused after its answer: %#v", e)
	}
}

func TestAgentZeroDeadlineExpiresAtOnce(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 2, Method: codec.MethodTap, Params: &codec.TapParams{}, DeadlineMS: codec.Some[uint32](0)}))
	if e, ok := a.PollEvent(); ok {
		t.Fatalf("expired request delivered: %#v", e)
	}
	wantCode(t, messages(t, a.PollTransmit())[0].(*codec.Response).Error, codec.CodeDeadlineExceeded, "0 ms")
}

func TestAgentReusedIDGetsItsOwnDeadline(t *testing.T) {
	// Request 5 with a 100 ms deadline is answered; a new request 5 with
	// a 1 s deadline must not expire at the first one's 100 ms.
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 5, Method: codec.MethodTap, Params: &codec.TapParams{}, DeadlineMS: codec.Some[uint32](100)}))
	a.Respond(t0, 5, &codec.Empty{})
	a.Receive(t0, frame(t, &codec.Request{ID: 5, Method: codec.MethodTap, Params: &codec.TapParams{}, DeadlineMS: codec.Some[uint32](1000)}))
	a.PollTransmit()
	for _, ok := a.PollEvent(); ok; _, ok = a.PollEvent() {
	}
	a.HandleTimeout(t0.Add(100 * time.Millisecond))
	if b := a.PollTransmit(); b != nil {
		t.Fatalf("the stale timer fired: %v", messages(t, b))
	}
	at, _ := a.PollTimeout()
	if !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("next timeout %v, want 1s", at.Sub(t0))
	}
}

func TestDeadlineMS(t *testing.T) {
	for d, want := range map[time.Duration]uint32{
		time.Millisecond:        1,
		1500 * time.Microsecond: 2,
		time.Nanosecond:         1,
		time.Second:             1000,
		1 << 62:                 0xffffffff,
	} {
		if got := deadlineMS(d); got != want {
			t.Errorf("deadlineMS(%v) = %d, want %d", d, got, want)
		}
	}
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	if _, err := h.Request(t0, codec.MethodTap, nil, -time.Second); err == nil {
		t.Fatal("negative deadline accepted")
	}
	if _, err := h.Request(t0, codec.MethodTap, &codec.KeyParams{}, 0); err == nil {
		t.Fatal("key params in a tap request accepted")
	}
	if h.PollTransmit() != nil {
		t.Fatal("refused requests sent")
	}
}

func TestTimersPopInTimeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tm timers
	for i := range 500 {
		tm.push(timer{at: t0.Add(time.Duration(r.IntN(1000)) * time.Millisecond), id: uint64(i)})
	}
	last := t0
	for tm.len() > 0 {
		top, _ := tm.peek()
		x := tm.pop()
		if x != top {
			t.Fatal("pop is not peek")
		}
		if x.at.Before(last) {
			t.Fatalf("timer at %v popped after %v", x.at.Sub(t0), last.Sub(t0))
		}
		last = x.at
	}
	if _, ok := tm.peek(); ok {
		t.Fatal("empty heap peeks a timer")
	}
}

func TestResyncBackoffDoublesToItsMaximum(t *testing.T) {
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000}
	for i, w := range want {
		if got := resyncBackoff(i + 1); got != w*time.Millisecond {
			t.Errorf("failure %d: backoff %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if resyncBackoff(1000) != ResyncBackoffMax {
		t.Error("backoff past the maximum")
	}
}
