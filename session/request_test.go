package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

func TestRequestIDsUniqueAndResponsesInAnyOrder(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	var ids []uint64
	for _, xy := range [][2]int32{{1, 2}, {3, 4}, {5, 6}} {
		id, err := p.h.Request(p.now, codec.MethodTap, &codec.TapParams{X: xy[0], Y: xy[1]}, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	id4, _ := p.h.Request(p.now, codec.MethodScreenshot, nil, 0)
	seen := map[uint64]bool{}
	for _, id := range append(ids, id4) {
		if seen[id] {
			t.Fatalf("id %d handed out twice among requests in flight %v", id, ids)
		}
		seen[id] = true
	}
	p.pump()
	var got []*Incoming
	for _, e := range p.takeAgent() {
		got = append(got, e.(*Incoming))
	}
	if len(got) != 4 || p.h.InFlight() != 4 {
		t.Fatalf("agent got %d requests, host has %d in flight; want 4", len(got), p.h.InFlight())
	}
	if tp := got[1].Params.(*codec.TapParams); tp.X != 3 || tp.Y != 4 {
		t.Fatalf("second request's params %+v", tp)
	}
	// Answer in reverse order.
	for i := len(got) - 1; i >= 0; i-- {
		var r codec.Result = &codec.Empty{}
		if got[i].Method == codec.MethodScreenshot {
			r = &codec.ScreenshotResult{Width: 2, Height: 3, Image: []byte{1}}
		}
		if err := p.a.Respond(p.now, got[i].ID, r); err != nil {
			t.Fatal(err)
		}
	}
	p.pump()
	evs := p.takeHost()
	cs := completions(evs)
	if len(evs) != 4 || len(cs) != 4 {
		t.Fatalf("host events %v, want 4 completions", evs)
	}
	if evs[0].(*Completed).ID != id4 {
		t.Fatalf("first completion is %d, want the last request %d", evs[0].(*Completed).ID, id4)
	}
	if sr, ok := cs[id4].Result.(*codec.ScreenshotResult); !ok || sr.Width != 2 || cs[id4].Err != nil {
		t.Fatalf("screenshot completion %+v", cs[id4])
	}
	for _, id := range ids {
		if c := cs[id]; c == nil || c.Method != codec.MethodTap || c.Err != nil {
			t.Fatalf("tap %d completion %+v", id, c)
		}
	}
	if p.h.InFlight() != 0 || p.a.Pending() != 0 {
		t.Fatalf("in flight %d, pending %d after all answers", p.h.InFlight(), p.a.Pending())
	}
}

func TestAgentAnswersDeadlineExceededAndDropsTheLateAnswer(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id, _ := p.h.Request(p.now, codec.MethodSnapshot, nil, 250*time.Millisecond)
	p.pump()
	in := p.incoming()
	if !in.Deadline.Equal(p.now.Add(250 * time.Millisecond)) {
		t.Fatalf("deadline %v, want receipt plus 250ms", in.Deadline.Sub(p.now))
	}
	p.advance(249 * time.Millisecond)
	if len(p.takeHost()) != 0 {
		t.Fatal("completion before the deadline")
	}
	p.advance(time.Millisecond)
	c := completions(p.takeHost())[id]
	if c == nil {
		t.Fatal("no completion at the deadline")
	}
	wantCode(t, c.Err, codec.CodeDeadlineExceeded, "250 ms")
	if ex := ofType[*Expired](p.takeAgent()); len(ex) != 1 || ex[0].ID != id {
		t.Fatalf("agent did not report the request expired: %v", ex)
	}
	// The late answer is dropped: an error, nothing sent.
	if err := p.a.Respond(p.now, id, &codec.Snapshot{}); !errors.Is(err, ErrNotPending) {
		t.Fatalf("late answer: %v, want ErrNotPending", err)
	}
	if b := p.a.PollTransmit(); b != nil {
		t.Fatalf("late answer sent %x", b)
	}
	// The connection stays usable.
	id2, err := p.h.Request(p.now, codec.MethodTap, &codec.TapParams{}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.pump()
	p.a.Respond(p.now, p.incoming().ID, &codec.Empty{})
	p.pump()
	if c := completions(p.takeHost())[id2]; c == nil || c.Err != nil {
		t.Fatalf("request after the expiry: %+v", c)
	}
}

func TestAgentRespondAtTheDeadlineBeforeItsTimerFired(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 3, Method: codec.MethodTap, Params: &codec.TapParams{}, DeadlineMS: codec.Some[uint32](10)}))
	a.PollEvent()
	err := a.Respond(t0.Add(10*time.Millisecond), 3, &codec.Empty{})
	if !errors.Is(err, ErrNotPending) {
		t.Fatalf("answer at the deadline: %v, want ErrNotPending", err)
	}
	ms := messages(t, a.PollTransmit())
	if len(ms) != 1 {
		t.Fatalf("sent %v, want one deadline_exceeded response", ms)
	}
	wantCode(t, ms[0].(*codec.Response).Error, codec.CodeDeadlineExceeded)
}

func TestHostFailsRequestAfterDeadlineAndGrace(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	id, err := h.Request(t0, codec.MethodSnapshot, nil, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	req := messages(t, h.PollTransmit())[0].(*codec.Request)
	if req.DeadlineMS != codec.Some[uint32](200) {
		t.Fatalf("deadline_ms %+v, want 200", req.DeadlineMS)
	}
	at, ok := h.PollTimeout()
	if !ok {
		t.Fatal("no timeout armed")
	}
	if !at.Equal(t0.Add(PingAfter)) {
		t.Fatalf("first timeout %v, want the ping at 1s", at.Sub(t0))
	}
	// Keep the agent audible; fire at 1.199s: nothing.
	h.Receive(t0.Add(1100*time.Millisecond), frame(t, &codec.Pong{Nonce: 1}))
	h.HandleTimeout(t0.Add(1199 * time.Millisecond))
	if e, ok := h.PollEvent(); ok {
		t.Fatalf("event %#v before deadline plus grace", e)
	}
	at, _ = h.PollTimeout()
	if !at.Equal(t0.Add(1200 * time.Millisecond)) {
		t.Fatalf("next timeout %v, want 1.2s (deadline plus grace)", at.Sub(t0))
	}
	h.HandleTimeout(at)
	e, _ := h.PollEvent()
	c, ok := e.(*Completed)
	if !ok || c.ID != id {
		t.Fatalf("event %#v, want the request completed", e)
	}
	wantCode(t, c.Err, codec.CodeDeadlineExceeded, "200ms", "grace")
	// A late response is dropped.
	h.Receive(at, frame(t, &codec.Response{ID: id, Method: codec.MethodSnapshot, Result: &codec.Snapshot{}}))
	if e, ok := h.PollEvent(); ok {
		t.Fatalf("late response reported: %#v", e)
	}
	if h.Stats().LateResponses != 1 || !h.Connected() {
		t.Fatalf("stats %+v, connected %v", h.Stats(), h.Connected())
	}
}

func TestHostRefusesMissingCapabilityAndSendsNothing(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapTree|codec.CapScreenshot, 1<<20))
	_, err := h.Request(t0, codec.MethodTap, &codec.TapParams{X: 1}, 0)
	wantCode(t, err, codec.CodeMissingCapability, "tap", "input")
	_, err = h.Resync(t0, codec.StreamTree, 0)
	wantCode(t, err, codec.CodeMissingCapability, "resync", "events")
	if b := h.PollTransmit(); b != nil {
		t.Fatalf("sent %x for a refused request", b)
	}
	if h.InFlight() != 0 {
		t.Fatal("refused request in flight")
	}
	// device_info needs none.
	if _, err := h.Request(t0, codec.MethodDeviceInfo, nil, 0); err != nil {
		t.Fatal(err)
	}
}

func TestAgentRefusesMissingCapability(t *testing.T) {
	a := connectedAgent(t, AgentConfig{Capabilities: codec.CapTree}, 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 9, Method: codec.MethodSwipe, Params: &codec.SwipeParams{}}))
	if e, ok := a.PollEvent(); ok {
		t.Fatalf("refused request delivered: %#v", e)
	}
	r := messages(t, a.PollTransmit())[0].(*codec.Response)
	if r.ID != 9 || r.Method != codec.MethodSwipe {
		t.Fatalf("response %+v", r)
	}
	wantCode(t, r.Error, codec.CodeMissingCapability, "swipe", "input")
}

func TestUnknownMethodAnsweredUnknownMethod(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id, err := p.h.Request(p.now, codec.Method(99), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.pump()
	if len(p.takeAgent()) != 0 {
		t.Fatal("unknown method delivered to the agent's caller")
	}
	c := completions(p.takeHost())[id]
	if c == nil {
		t.Fatal("no completion")
	}
	wantCode(t, c.Err, codec.CodeUnknownMethod, "99")
	if p.a.Stats().Refused != 1 {
		t.Fatalf("agent stats %+v", p.a.Stats())
	}
}

func TestUnknownKindSkipped(t *testing.T) {
	unknown := rawFrame([]byte{0xa2, 0x00, 0x18, 0x2a, 0x01, 0x63, 'a', 'b', 'c'}) // {0: 42, 1: "abc"}
	ping := frame(t, &codec.Ping{Nonce: 7})
	check := func(t *testing.T, out []byte, evs int, unknowns uint64) {
		t.Helper()
		ms := messages(t, out)
		if len(ms) != 1 || ms[0].(*codec.Pong).Nonce != 7 {
			t.Fatalf("sent %v, want only the pong to the ping after the unknown kind", ms)
		}
		if evs != 0 || unknowns != 1 {
			t.Fatalf("%d events, %d unknown kinds counted; want 0 and 1", evs, unknowns)
		}
	}
	t.Run("host", func(t *testing.T) {
		h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
		h.Receive(t0, append(unknown, ping...))
		n := 0
		for _, ok := h.PollEvent(); ok; _, ok = h.PollEvent() {
			n++
		}
		check(t, h.PollTransmit(), n, h.Stats().UnknownKinds)
	})
	t.Run("agent", func(t *testing.T) {
		a := connectedAgent(t, fullCaps(), 4096)
		a.Receive(t0, append(unknown, ping...))
		n := 0
		for _, ok := a.PollEvent(); ok; _, ok = a.PollEvent() {
			n++
		}
		check(t, a.PollTransmit(), n, a.Stats().UnknownKinds)
	})
}

func TestAgentAnswersUndecodableRequestBadRequest(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	// {0: 2, 1: 5, 2: 3 (tap), 3: {0: "x"}}: x must be an integer.
	a.Receive(t0, rawFrame([]byte{0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x03, 0x03, 0xa1, 0x00, 0x61, 'x'}))
	r := messages(t, a.PollTransmit())[0].(*codec.Response)
	if r.ID != 5 || r.Method != codec.MethodTap {
		t.Fatalf("response %+v", r)
	}
	wantCode(t, r.Error, codec.CodeBadRequest, "request 5")
}

func TestNegotiatedLimitOnOutgoingMessages(t *testing.T) {
	p := newPair(t, HostConfig{MaxFrame: 4096}, fullCaps())
	_, err := p.h.Request(p.now, codec.MethodTypeText, &codec.TypeTextParams{Text: strings.Repeat("x", 5000)}, 0)
	wantCode(t, err, codec.CodeFrameTooLarge, "4096")
	if b := p.h.PollTransmit(); b != nil || p.h.InFlight() != 0 {
		t.Fatalf("oversized request sent %d bytes, %d in flight", len(b), p.h.InFlight())
	}
	seq, err := p.a.SendEvent(codec.StreamFrames, codec.TypeFrame, &codec.ScreenFrame{Image: make([]byte, 5000)})
	var big *codec.FrameTooLargeError
	if !errors.As(err, &big) || seq != 1 {
		t.Fatalf("oversized event: seq %d, %v", seq, err)
	}
	if b := p.a.PollTransmit(); b != nil {
		t.Fatalf("oversized event sent %d bytes", len(b))
	}
	if p.a.NextSeq(codec.StreamFrames) != 2 {
		t.Fatal("the refused event's number was not skipped")
	}
}

func TestOversizedResponseFailsItsRequest(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{MaxFrame: 4096}, stdHello(codec.CapAll, 1<<20))
	id, _ := h.Request(t0, codec.MethodScreenshot, nil, 0)
	other, _ := h.Request(t0, codec.MethodTap, &codec.TapParams{}, 0)
	h.PollTransmit()
	big := frame(t, &codec.Response{ID: id, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{Image: make([]byte, 10000)}})
	next := frame(t, &codec.Response{ID: other, Method: codec.MethodTap, Result: &codec.Empty{}})
	// In small pieces, to cross the peek and the discard.
	in := append(big, next...)
	for len(in) > 0 {
		n := min(7, len(in))
		h.Receive(t0, in[:n])
		in = in[n:]
	}
	var evs []HostEvent
	for e, ok := h.PollEvent(); ok; e, ok = h.PollEvent() {
		evs = append(evs, e)
	}
	cs := completions(evs)
	if len(evs) != 2 || cs[id] == nil || cs[other] == nil {
		t.Fatalf("events %v, want both requests completed", evs)
	}
	wantCode(t, cs[id].Err, codec.CodeFrameTooLarge, "4096", "request 1", "screenshot")
	if cs[other].Err != nil {
		t.Fatalf("the frame after the oversized one: %v", cs[other].Err)
	}
}

func TestAgentAnswersOversizedRequestFrameTooLarge(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	req := frame(t, &codec.Request{ID: 31, Method: codec.MethodTypeText, Params: &codec.TypeTextParams{Text: strings.Repeat("y", 6000)}})
	a.Receive(t0, req)
	if e, ok := a.PollEvent(); ok {
		t.Fatalf("oversized request delivered: %#v", e)
	}
	r := messages(t, a.PollTransmit())[0].(*codec.Response)
	if r.ID != 31 || r.Method != codec.MethodTypeText {
		t.Fatalf("response %+v", r)
	}
	wantCode(t, r.Error, codec.CodeFrameTooLarge, "4096", "request 31", "type_text")
}

func TestAgentReplacesItsOwnOversizedResponse(t *testing.T) {
	p := newPair(t, HostConfig{MaxFrame: 4096}, fullCaps())
	id, _ := p.h.Request(p.now, codec.MethodScreenshot, nil, 0)
	p.pump()
	err := p.a.Respond(p.now, p.incoming().ID, &codec.ScreenshotResult{Width: 1080, Height: 1920, Image: make([]byte, 8000)})
	wantCode(t, err, codec.CodeFrameTooLarge, "4096")
	p.pump()
	c := completions(p.takeHost())[id]
	if c == nil {
		t.Fatal("no completion")
	}
	wantCode(t, c.Err, codec.CodeFrameTooLarge, "4096", "request 1", "screenshot")
}

func TestResponseWithTheWrongMethodFailsItsRequest(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	id, _ := h.Request(t0, codec.MethodTap, &codec.TapParams{}, 0)
	h.Receive(t0, frame(t, &codec.Response{ID: id, Method: codec.MethodSnapshot, Result: &codec.Snapshot{}}))
	e, _ := h.PollEvent()
	wantCode(t, e.(*Completed).Err, codec.CodeBadRequest, "snapshot")
}

func TestAgentRespondWithNoResult(t *testing.T) {
	a := connectedAgent(t, fullCaps(), 4096)
	a.Receive(t0, frame(t, &codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.TapParams{}}))
	a.Receive(t0, frame(t, &codec.Request{ID: 2, Method: codec.MethodSnapshot, Params: codec.ParamsFor(codec.MethodSnapshot)}))
	if err := a.Respond(t0, 1, nil); err != nil {
		t.Fatalf("nil result for tap: %v", err)
	}
	wantCode(t, a.Respond(t0, 2, nil), codec.CodeInternal, "snapshot", "no result")
	ms := messages(t, a.PollTransmit())
	if len(ms) != 2 {
		t.Fatalf("sent %v", ms)
	}
	if r := ms[0].(*codec.Response); r.Error != nil || r.Result == nil {
		t.Fatalf("tap answer %+v, want an empty result", r)
	}
	wantCode(t, ms[1].(*codec.Response).Error, codec.CodeInternal, "no result")
}
