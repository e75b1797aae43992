package session

import (
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
