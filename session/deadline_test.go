package session

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
)

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
