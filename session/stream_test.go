package session

import (
	"slices"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

func treeEvent(p *pair, node uint32) uint64 {
	p.t.Helper()
	seq, err := p.a.SendEvent(codec.StreamTree, codec.TypeContentChanged, &codec.ContentChanged{Window: 1, Node: node, Change: schema.ContentText})
	if err != nil {
		p.t.Fatal(err)
	}
	return seq
}

// delivered lists the seqs of the StreamEvents among evs for stream s.
func delivered(evs []HostEvent, s codec.Stream) []uint64 {
	var out []uint64
	for _, e := range ofType[*StreamEvent](evs) {
		if e.Event.Stream == s {
			out = append(out, e.Event.Seq)
		}
	}
	return out
}

func TestLosslessStreamInOrderFromOne(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	for i := uint32(1); i <= 3; i++ {
		if seq := treeEvent(p, i); seq != uint64(i) {
			t.Fatalf("event %d numbered %d, want from 1 on", i, seq)
		}
	}
	p.pump()
	evs := p.takeHost()
	if got := delivered(evs, codec.StreamTree); !slices.Equal(got, []uint64{1, 2, 3}) || len(evs) != 3 {
		t.Fatalf("events %v, delivered %v, want 1 2 3 and nothing else", evs, got)
	}
	if cc := ofType[*StreamEvent](evs)[2].Event.Body.(*codec.ContentChanged); cc.Node != 3 {
		t.Fatalf("body %+v", cc)
	}
}

// answerResync answers the resync delivered to the agent with its next
// seq and returns the request.
func answerResync(p *pair, fail *codec.Error) *Incoming {
	p.t.Helper()
	in := p.incoming()
	if in.Method != codec.MethodResync {
		p.t.Fatalf("delivered %s, want resync", in.Method)
	}
	if fail != nil {
		p.a.Fail(p.now, in.ID, fail)
	} else {
		s := in.Params.(*codec.ResyncParams).Stream
		p.a.Respond(p.now, in.ID, &codec.ResyncResult{Seq: p.a.NextSeq(s)})
	}
	p.pump()
	return in
}

func TestSkipEventPutsLosslessStreamOutOfSyncAndResyncsAutomatically(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	treeEvent(p, 1)
	if n := p.a.SkipEvent(codec.StreamTree); n != 2 {
		t.Fatalf("skipped %d, want 2", n)
	}
	treeEvent(p, 3)
	p.pump()
	evs := p.takeHost()
	if oos := ofType[*OutOfSync](evs); len(oos) != 1 || oos[0].Want != 2 || oos[0].Got != 3 || oos[0].Stream != codec.StreamTree {
		t.Fatalf("events %v, want OutOfSync want 2 got 3", evs)
	}
	if dr := ofType[*Dropped](evs); len(dr) != 1 || dr[0].Seq != 3 || dr[0].Count != 1 {
		t.Fatalf("events %v, want event 3 dropped", evs)
	}
	if got := delivered(evs, codec.StreamTree); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("delivered %v, want only 1", got)
	}
	if p.h.InSyncStream(codec.StreamTree) {
		t.Fatal("stream in sync after a gap")
	}
	// Events while out of sync are dropped.
	treeEvent(p, 4)
	in := p.incoming() // the automatic resync went out before event 4 arrived
	if in.Method != codec.MethodResync || in.Params.(*codec.ResyncParams).Stream != codec.StreamTree {
		t.Fatalf("agent got %s %+v, want resync of the tree stream", in.Method, in.Params)
	}
	p.pump()
	if dr := ofType[*Dropped](p.takeHost()); len(dr) != 1 || dr[0].Seq != 4 {
		t.Fatalf("event 4 while out of sync: %v", dr)
	}
	p.a.Respond(p.now, in.ID, &codec.ResyncResult{Seq: p.a.NextSeq(codec.StreamTree)})
	treeEvent(p, 5)
	treeEvent(p, 6)
	p.pump()
	evs = p.takeHost()
	if is := ofType[*InSync](evs); len(is) != 1 || is[0].From != 5 {
		t.Fatalf("events %v, want InSync from 5", evs)
	}
	if len(ofType[*Completed](evs)) != 0 {
		t.Fatal("an automatic resync reported as Completed")
	}
	if got := delivered(evs, codec.StreamTree); !slices.Equal(got, []uint64{5, 6}) {
		t.Fatalf("delivered %v after the resync, want 5 6", got)
	}
	if p.h.Dropped(codec.StreamTree) != 2 {
		t.Fatalf("dropped %d, want 2", p.h.Dropped(codec.StreamTree))
	}
}

func TestRetryableResyncFailureBacksOffDoubling(t *testing.T) {
	p := resyncing(t)
	busy := codec.NewError(codec.CodeBusy, "try later")
	answerResync(p, busy)
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000}
	for i, w := range want {
		w *= time.Millisecond
		at, _ := p.h.PollTimeout()
		// Other timers (pings) may come first; find the resync's.
		start := p.now
		p.advance(w - time.Millisecond)
		if len(ofType[*Incoming](p.ae)) != 0 {
			t.Fatalf("retry %d went out before %v (timeout was %v)", i+1, w, at.Sub(start))
		}
		p.advance(time.Millisecond)
		if len(ofType[*Incoming](p.ae)) != 1 {
			t.Fatalf("retry %d did not go out at %v", i+1, w)
		}
		if len(ofType[*ResyncFailed](p.takeHost())) != 0 {
			t.Fatal("a retryable failure of an automatic resync reported as ResyncFailed")
		}
		if i < len(want)-1 {
			answerResync(p, busy)
		}
	}
	answerResync(p, nil)
	if is := ofType[*InSync](p.takeHost()); len(is) != 1 || is[0].From != 3 {
		t.Fatal("no InSync after the retries")
	}
	// The backoff starts over after a success.
	p.a.SkipEvent(codec.StreamTree)
	treeEvent(p, 4)
	p.pump()
	answerResync(p, busy)
	p.advance(100 * time.Millisecond)
	if len(ofType[*Incoming](p.ae)) != 1 {
		t.Fatal("backoff did not start over at 100ms after a success")
	}
}

func TestResyncFailureNoRetryFixesIsReported(t *testing.T) {
	p := resyncing(t)
	answerResync(p, codec.NewError(codec.CodeInternal, "broken"))
	rf := ofType[*ResyncFailed](p.takeHost())
	if len(rf) != 1 || rf[0].Err.Code != codec.CodeInternal || rf[0].Stream != codec.StreamTree {
		t.Fatalf("ResyncFailed %v", rf)
	}
	p.advance(10 * time.Second)
	if len(ofType[*Incoming](p.takeAgent())) != 0 {
		t.Fatal("a non-retryable resync failure was retried")
	}
	treeEvent(p, 3)
	p.pump()
	evs := p.takeHost()
	if len(delivered(evs, codec.StreamTree)) != 0 || len(ofType[*Dropped](evs)) != 1 || p.h.InSyncStream(codec.StreamTree) {
		t.Fatalf("events %v: the stream must stay out of sync", evs)
	}
}

func TestExplicitResyncFailureIsReportedEvenWhenRetryable(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	id, err := p.h.Resync(p.now, codec.StreamTree, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.pump()
	answerResync(p, codec.NewError(codec.CodeBusy, "later"))
	evs := p.takeHost()
	if c := completions(evs)[id]; c == nil || c.Err.Code != codec.CodeBusy {
		t.Fatalf("events %v, want the explicit resync completed with busy", evs)
	}
	if rf := ofType[*ResyncFailed](evs); len(rf) != 1 || rf[0].Err.Code != codec.CodeBusy {
		t.Fatalf("events %v, want ResyncFailed busy", evs)
	}
	p.advance(10 * time.Second)
	if len(ofType[*Incoming](p.takeAgent())) != 0 {
		t.Fatal("an explicit resync was retried")
	}
	// And a successful one reports both.
	id, _ = p.h.Resync(p.now, codec.StreamTree, 0)
	p.pump()
	answerResync(p, nil)
	evs = p.takeHost()
	if c := completions(evs)[id]; c == nil || c.Err != nil || c.Result.(*codec.ResyncResult).Seq != 1 {
		t.Fatalf("events %v", evs)
	}
	if is := ofType[*InSync](evs); len(is) != 1 || is[0].From != 1 {
		t.Fatalf("events %v, want InSync from 1", evs)
	}
}

func TestLossyStreamCountsSkippedNumbersAsDroppedFrames(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	send := func() {
		if _, err := p.a.SendEvent(codec.StreamFrames, codec.TypeFrame, &codec.ScreenFrame{Width: 1, Height: 1, Image: []byte{1}}); err != nil {
			t.Fatal(err)
		}
	}
	send()
	p.a.SkipEvent(codec.StreamFrames)
	p.a.SkipEvent(codec.StreamFrames)
	send()
	send()
	p.pump()
	evs := p.takeHost()
	if got := delivered(evs, codec.StreamFrames); !slices.Equal(got, []uint64{1, 4, 5}) {
		t.Fatalf("delivered %v, want 1 4 5", got)
	}
	if dr := ofType[*Dropped](evs); len(dr) != 1 || dr[0].Seq != 2 || dr[0].Count != 2 {
		t.Fatalf("dropped %v, want 2 frames from 2", dr)
	}
	if len(ofType[*OutOfSync](evs)) != 0 || len(ofType[*Incoming](p.takeAgent())) != 0 {
		t.Fatal("a lossy stream went out of sync or resynced")
	}
	if p.h.Dropped(codec.StreamFrames) != 2 {
		t.Fatalf("dropped frames %d, want 2", p.h.Dropped(codec.StreamFrames))
	}
	// A number that does not increase is dropped.
	p.h.Receive(p.now, frame(t, &codec.Event{Stream: codec.StreamFrames, Seq: 5, Type: codec.TypeFrame, Body: &codec.ScreenFrame{}}))
	p.drain()
	if dr := ofType[*Dropped](p.takeHost()); len(dr) != 1 || dr[0].Seq != 5 || dr[0].Count != 1 {
		t.Fatalf("repeated number: %v", dr)
	}
}

func TestUnknownStreamIsLossless(t *testing.T) {
	h, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 1<<20))
	h.PollTransmit()
	h.Receive(t0, frame(t, &codec.Event{Stream: 7, Seq: 1, Type: 3}))
	h.Receive(t0, frame(t, &codec.Event{Stream: 7, Seq: 3, Type: 3}))
	var evs []HostEvent
	for e, ok := h.PollEvent(); ok; e, ok = h.PollEvent() {
		evs = append(evs, e)
	}
	if got := delivered(evs, 7); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("delivered %v", got)
	}
	if oos := ofType[*OutOfSync](evs); len(oos) != 1 || oos[0].Stream != 7 || oos[0].Want != 2 {
		t.Fatalf("events %v, want stream 7 out of sync", evs)
	}
	r := messages(t, h.PollTransmit())[0].(*codec.Request)
	if r.Method != codec.MethodResync || r.Params.(*codec.ResyncParams).Stream != 7 {
		t.Fatalf("sent %+v, want a resync of stream 7", r)
	}
}

func TestOutOfSyncWithoutEventsCapabilityFailsTheResync(t *testing.T) {
	p := newPair(t, HostConfig{}, AgentConfig{Capabilities: codec.CapTree})
	p.a.SkipEvent(codec.StreamTree)
	treeEvent(p, 2)
	p.pump()
	rf := ofType[*ResyncFailed](p.takeHost())
	if len(rf) != 1 {
		t.Fatal("no ResyncFailed")
	}
	wantCode(t, rf[0].Err, codec.CodeMissingCapability, "events")
	if len(p.takeAgent()) != 0 {
		t.Fatal("a resync went out without the events capability")
	}
}

func TestStreamsNumberFromOneOnEachConnection(t *testing.T) {
	for range 2 {
		p := newPair(t, HostConfig{}, fullCaps())
		if seq := treeEvent(p, 1); seq != 1 {
			t.Fatalf("first event %d", seq)
		}
		p.pump()
		if got := delivered(p.takeHost(), codec.StreamTree); !slices.Equal(got, []uint64{1}) {
			t.Fatalf("delivered %v", got)
		}
	}
}

func TestResyncSentWithRequestCountsForItsStream(t *testing.T) {
	p := newPair(t, HostConfig{}, fullCaps())
	p.a.SkipEvent(7)
	p.a.SendEvent(7, 0, nil)
	p.pump()
	answerResync(p, codec.NewError(codec.CodeInternal, "no")) // the automatic one fails for good
	if p.h.InSyncStream(7) {
		t.Fatal("stream 7 in sync")
	}
	p.takeHost()
	id, err := p.h.Request(p.now, codec.MethodResync, &codec.ResyncParams{Stream: 7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.pump()
	answerResync(p, nil)
	evs := p.takeHost()
	if c := completions(evs)[id]; c == nil || c.Err != nil {
		t.Fatalf("events %v", evs)
	}
	if is := ofType[*InSync](evs); len(is) != 1 || is[0].Stream != 7 || is[0].From != 3 || !p.h.InSyncStream(7) {
		t.Fatalf("events %v, want stream 7 in sync from 3", evs)
	}
}

// resyncing returns a pair whose agent skipped a tree event, so that the
// host found a gap and asked for a resync; the host's events are taken.
func resyncing(t *testing.T) *pair {
	p := newPair(t, HostConfig{}, fullCaps())
	p.a.SkipEvent(codec.StreamTree)
	treeEvent(p, 2)
	p.pump()
	p.takeHost()
	return p
}

func TestResyncBackoffDoublesToItsMaximum(t *testing.T) {
	want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000}
	for i, w := range want {
		if got := Backoff(i + 1); got != w*time.Millisecond {
			t.Errorf("failure %d: backoff %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if Backoff(1000) != ResyncBackoffMax {
		t.Error("backoff past the maximum")
	}
}
