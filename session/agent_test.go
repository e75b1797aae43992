package session

import (
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

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
	if pe, ok := e.(*ProtocolError); !ok || a.PollTransmit() != nil || !strings.Contains(pe.Err.Error(), "skipped a request from the host before the welcome") {
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
	// A second welcome is skipped and reported, the session going on.
	a.Receive(t0, frame(t, &codec.Welcome{Version: codec.Some[uint32](1), MaxFrame: codec.Some[uint32](4096), Session: codec.Some[uint64](6)}))
	if pe, ok := a.PollEvent(); !ok || !strings.Contains(pe.(*ProtocolError).Err.Error(), "skipped a welcome from the host after the welcome") || a.Session() != 5 || !a.Connected() {
		t.Fatalf("second welcome: %#v, session %d", pe, a.Session())
	}
	// Once answered, the id may come again.
	a.Respond(t0, 8, &codec.Empty{})
	a.Receive(t0, req)
	if e, _ := a.PollEvent(); e.(*Incoming).ID != 8 {
		t.Fatalf("id reused after its answer: %#v", e)
	}
}
