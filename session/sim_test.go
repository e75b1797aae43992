package session

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// The simulation joins a Host and an Agent through a link that delivers
// the bytes in order but in random chunk sizes and with random stalls,
// drives both with random work for thousands of steps on a hand-moved
// clock, and checks, for every seed:
//
//   - each request accepted by Host.Request completes exactly once, and a
//     request with a deadline no later than its deadline plus the grace;
//   - each event the agent sent arrives in order or is reported dropped,
//     never both, and lossless streams arrive without gaps between resyncs;
//   - no timer is lost: after HandleTimeout(now) nothing is due at now, and
//     the clock never passes a due timer without firing it;
//   - the connection never closes, the pings keeping it alive through the
//     stalls.
//
// TestSimulationSilentClose runs the same with stalls long enough to
// close the session as Silent, and checks that the close fails every
// pending request exactly once with disconnected, that later requests
// are refused the same way, and that nothing is reported after Closed.

const (
	simSeeds     = 64
	simSteps     = 5000
	simMaxStall  = 900 * time.Millisecond
	simHostFrame = 4096
)

// simLink is one direction of the simulated connection.
type simLink struct {
	buf        []byte
	stallUntil time.Time
}

type simIssued struct {
	at       time.Time
	deadline time.Duration
	method   codec.Method
	done     bool
}

type simAnswer struct {
	at  time.Time
	id  uint64
	in  *Incoming
	err *codec.Error
}

type sim struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	now   time.Time
	step  int
	h     *Host
	a     *Agent
	toH   simLink
	toA   simLink
	quiet bool // the drain phase: no new work, no busy answers

	maxStall    time.Duration
	allowClose  bool // the silent-close variant
	hostClosed  bool
	agentClosed bool

	issued  map[uint64]*simIssued
	answers []simAnswer

	sent      map[codec.Stream]map[uint64]bool // numbers the agent sent
	got       map[codec.Stream]map[uint64]bool // numbers delivered
	dropped   map[codec.Stream]map[uint64]bool // numbers reported dropped
	last      map[codec.Stream]uint64          // last delivered number
	expect    map[codec.Stream]uint64          // lossless: number due next
	completed int
	stats     struct{ expired, hostExpired, tooLarge, late, resyncs, outOfSync, pings int }
}

func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("seed %d step %d at %v: %s", s.seed, s.step, s.now.Sub(t0), fmt.Sprintf(format, args...))
}

func TestSimulation(t *testing.T) {
	seeds := simSeeds
	if testing.Short() {
		seeds = 4
	}
	var total struct{ completed, expired, hostExpired, tooLarge, late, resyncs, outOfSync, events, pings int }
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		s := runSim(t, seed, simSteps, simMaxStall, false)
		total.completed += s.completed
		total.expired += s.stats.expired
		total.tooLarge += s.stats.tooLarge
		total.late += s.stats.late
		total.resyncs += s.stats.resyncs
		total.outOfSync += s.stats.outOfSync
		total.pings += s.stats.pings
		total.hostExpired += s.stats.hostExpired
		for _, m := range s.got {
			total.events += len(m)
		}
	}
	t.Logf("%d seeds x %d steps: %+v", seeds, simSteps, total)
	// The simulation must exercise what it checks.
	if total.expired == 0 || total.tooLarge == 0 || total.late == 0 || total.resyncs == 0 || total.outOfSync == 0 || total.pings == 0 || total.hostExpired == 0 {
		t.Fatalf("the simulation did not exercise every path: %+v", total)
	}
}

func TestSimulationSilentClose(t *testing.T) {
	closed := 0
	for seed := uint64(1); seed <= 32; seed++ {
		s := runSim(t, seed, simSteps, 6*time.Second, true)
		if s.hostClosed {
			closed++
		}
	}
	if closed == 0 {
		t.Fatal("no seed closed the session: the variant tests nothing")
	}
	t.Logf("%d of 32 seeds closed as silent", closed)
}

func runSim(t *testing.T, seed uint64, steps int, maxStall time.Duration, allowClose bool) *sim {
	s := &sim{
		maxStall: maxStall, allowClose: allowClose,
		t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x5e55)), now: t0,
		issued: map[uint64]*simIssued{},
		sent:   map[codec.Stream]map[uint64]bool{}, got: map[codec.Stream]map[uint64]bool{},
		dropped: map[codec.Stream]map[uint64]bool{}, last: map[codec.Stream]uint64{}, expect: map[codec.Stream]uint64{},
	}
	s.h = NewHost(HostConfig{MaxFrame: simHostFrame, Session: seed}, s.now)
	s.a = NewAgent(AgentConfig{Capabilities: codec.CapAll, Name: "sim"}, s.now)
	for s.step = 0; s.step < steps; s.step++ {
		s.tick()
		if s.hostClosed {
			break
		}
	}
	if s.hostClosed {
		s.checkClosed()
		return s
	}
	// Drain: no new work; every answer still scheduled goes out.
	s.quiet = true
	for i := 0; ; i++ {
		if s.h.InFlight() == 0 && len(s.answers) == 0 && len(s.toH.buf) == 0 && len(s.toA.buf) == 0 && s.h.Backlog() == 0 && s.a.Backlog() == 0 {
			break
		}
		if i > 200000 {
			s.fail("did not drain: %d in flight, %d answers scheduled", s.h.InFlight(), len(s.answers))
		}
		s.tick()
	}
	s.check()
	return s
}

// tick is one step: move the clock (never past a due timer), fire timers,
// move bytes, do random work, read events.
func (s *sim) tick() {
	d := time.Duration(s.rng.IntN(20)) * time.Millisecond
	if s.rng.IntN(50) == 0 {
		d = time.Duration(s.rng.IntN(400)) * time.Millisecond
	}
	next := s.now.Add(d)
	ht, hok := s.h.PollTimeout()
	at, aok := s.a.PollTimeout()
	if due, ok := earliest(ht, hok, at, aok); ok && due.Before(next) {
		if due.Before(s.now) {
			s.fail("a timer at %v was left behind", due.Sub(t0))
		}
		next = due
	}
	s.now = next
	if hok && !ht.After(s.now) {
		s.h.HandleTimeout(s.now)
		if nt, ok := s.h.PollTimeout(); ok && !nt.After(s.now) {
			s.fail("host timer still due after HandleTimeout: %v", nt.Sub(t0))
		}
	}
	if aok && !at.After(s.now) {
		s.a.HandleTimeout(s.now)
		if nt, ok := s.a.PollTimeout(); ok && !nt.After(s.now) {
			s.fail("agent timer still due after HandleTimeout: %v", nt.Sub(t0))
		}
	}
	s.agentWork()
	s.hostWork()
	s.move(&s.toH, s.take(s.a.PollTransmitAt), s.h.Receive)
	s.move(&s.toA, s.take(s.h.PollTransmitAt), s.a.Receive)
	s.hostEvents()
	s.agentEvents()
}

// take hands out what a side has to send as a driver would: everything
// at once, or one take of whole frames up to a random size (control
// frames first), or nothing this step, as a writer still busy.
func (s *sim) take(poll func(time.Time, int) []byte) []byte {
	switch s.rng.IntN(4) {
	case 0:
		return poll(s.now, 0)
	case 1:
		return poll(s.now, 1+s.rng.IntN(2000))
	case 2:
		return poll(s.now, 1+s.rng.IntN(50))
	}
	return nil
}

// move queues out on the link and delivers a random chunk unless the
// link is stalled; a stall starts only right after a delivery.
func (s *sim) move(l *simLink, out []byte, recv func(time.Time, []byte)) {
	l.buf = append(l.buf, out...)
	if len(l.buf) == 0 || s.now.Before(l.stallUntil) {
		return
	}
	var n int
	switch s.rng.IntN(4) {
	case 0:
		n = 1 + s.rng.IntN(min(8, len(l.buf)))
	case 1:
		n = 1 + s.rng.IntN(min(300, len(l.buf)))
	case 2:
		n = 1 + s.rng.IntN(len(l.buf))
	default:
		n = len(l.buf)
	}
	chunk := append([]byte(nil), l.buf[:n]...)
	l.buf = l.buf[n:]
	recv(s.now, chunk)
	if !s.quiet && s.rng.IntN(150) == 0 {
		l.stallUntil = s.now.Add(time.Duration(1+s.rng.Int64N(int64(s.maxStall))) * time.Nanosecond)
	}
}

var simMethods = []codec.Method{codec.MethodSnapshot, codec.MethodTap, codec.MethodScreenshot, codec.MethodBounds, codec.MethodDeviceInfo, codec.MethodSwipe, codec.Method(77)}

func (s *sim) hostWork() {
	if s.quiet || !s.h.Connected() {
		return
	}
	if s.rng.IntN(8) == 0 {
		m := simMethods[s.rng.IntN(len(simMethods))]
		var deadline time.Duration
		if s.rng.IntN(2) == 0 {
			deadline = time.Duration(20+s.rng.IntN(800)) * time.Millisecond
		}
		id, err := s.h.Request(s.now, m, nil, deadline)
		if err != nil {
			s.fail("request %s: %v", m, err)
		}
		if _, dup := s.issued[id]; dup {
			s.fail("id %d reused", id)
		}
		s.issued[id] = &simIssued{at: s.now, deadline: deadline, method: m}
	}
	if s.rng.IntN(400) == 0 {
		id, err := s.h.Resync(s.now, codec.StreamTree, 0)
		if err != nil {
			s.fail("resync: %v", err)
		}
		s.issued[id] = &simIssued{at: s.now, method: codec.MethodResync}
	}
}

func (s *sim) agentWork() {
	// Answers that are due.
	keep := s.answers[:0]
	for _, an := range s.answers {
		if s.quiet && !an.at.Before(s.now) {
			an.at = s.now
		}
		if an.at.After(s.now) {
			keep = append(keep, an)
			continue
		}
		var err error
		if an.err != nil {
			err = s.a.Fail(s.now, an.id, an.err)
		} else {
			err = s.a.Respond(s.now, an.id, s.result(an.in))
		}
		var pe *codec.Error
		switch {
		case err == nil:
		case s.agentClosed:
		case errors.Is(err, ErrNotPending):
			s.stats.late++
		case errors.As(err, &pe) && pe.Code == codec.CodeFrameTooLarge:
			s.stats.tooLarge++
		default:
			s.fail("answer %d: %v", an.id, err)
		}
	}
	s.answers = keep
	if s.quiet || !s.a.Connected() {
		return
	}
	switch r := s.rng.IntN(100); {
	case r < 10:
		s.event(codec.StreamTree, codec.TypeContentChanged, &codec.ContentChanged{Window: 1, Node: uint32(s.rng.IntN(9)), Change: schema.ContentText})
	case r < 11:
		s.a.SkipEvent(codec.StreamTree)
	case r < 16:
		s.event(codec.StreamFrames, codec.TypeFrame, &codec.ScreenFrame{Width: 4, Height: 4, Image: make([]byte, s.rng.IntN(64))})
	case r < 18:
		s.a.SkipEvent(codec.StreamFrames)
	case r < 19:
		s.event(codec.Stream(5), 0, nil)
	}
}

func (s *sim) event(st codec.Stream, typ codec.EventType, body codec.EventBody) {
	seq, err := s.a.SendEvent(st, typ, body)
	if err != nil {
		s.fail("event: %v", err)
	}
	if s.sent[st] == nil {
		s.sent[st] = map[uint64]bool{}
	}
	s.sent[st][seq] = true
}

func (s *sim) result(in *Incoming) codec.Result {
	switch in.Method {
	case codec.MethodSnapshot:
		n := s.rng.IntN(120) // some of them over the 4096-byte limit
		root := &codec.Node{ID: 1}
		for i := range n {
			root.Children = append(root.Children, codec.Node{ID: uint32(i + 2), Text: "node text here"})
		}
		return &codec.Snapshot{Strings: []string{"android.view.View"}, Windows: []codec.Window{{ID: 1, Root: root}}, Seq: s.a.NextSeq(codec.StreamTree) - 1}
	case codec.MethodScreenshot:
		return &codec.ScreenshotResult{Width: 10, Height: 10, Image: make([]byte, s.rng.IntN(6000))}
	case codec.MethodBounds:
		return &codec.BoundsResult{}
	case codec.MethodDeviceInfo:
		return &codec.Device{Model: "sim"}
	case codec.MethodResync:
		return &codec.ResyncResult{Seq: s.a.NextSeq(in.Params.(*codec.ResyncParams).Stream)}
	}
	return &codec.Empty{}
}

func (s *sim) agentEvents() {
	for e, ok := s.a.PollEvent(); ok; e, ok = s.a.PollEvent() {
		switch e := e.(type) {
		case *Incoming:
			an := simAnswer{id: e.ID, in: e, at: s.now.Add(time.Duration(s.rng.IntN(600)) * time.Millisecond)}
			if e.Method == codec.MethodResync && !s.quiet {
				an.at = s.now.Add(time.Duration(s.rng.IntN(50)) * time.Millisecond)
				if s.rng.IntN(3) == 0 {
					an.err = codec.NewError(codec.CodeBusy, "sim busy")
				}
			} else if s.rng.IntN(20) == 0 {
				an.err = codec.NewError(codec.CodeNotFound, "sim gone")
			}
			s.answers = append(s.answers, an)
		case *Closed:
			if !s.allowClose || s.agentClosed {
				s.fail("agent closed: %v", e.Err)
			}
			s.agentClosed = true
			continue
		}
		if s.agentClosed {
			s.fail("agent event %T after Closed", e)
		}
	}
}

func (s *sim) set(m map[codec.Stream]map[uint64]bool, st codec.Stream, seq uint64) {
	if m[st] == nil {
		m[st] = map[uint64]bool{}
	}
	m[st][seq] = true
}

func (s *sim) hostEvents() {
	for e, ok := s.h.PollEvent(); ok; e, ok = s.h.PollEvent() {
		if s.hostClosed {
			s.fail("host event %T after Closed", e)
		}
		switch e := e.(type) {
		case *Completed:
			is := s.issued[e.ID]
			switch {
			case is == nil:
				s.fail("completion of request %d that was never issued", e.ID)
			case is.done:
				s.fail("request %d completed twice", e.ID)
			case (e.Err == nil) == (e.Result == nil) && is.method.Known():
				s.fail("request %d: result %v and error %v", e.ID, e.Result, e.Err)
			case is.deadline > 0 && s.now.After(is.at.Add(is.deadline+DeadlineGrace)):
				s.fail("request %d completed %v after it was sent, past deadline %v plus grace", e.ID, s.now.Sub(is.at), is.deadline)
			}
			if e.Err != nil && e.Err.Code == codec.CodeDeadlineExceeded {
				s.stats.expired++
				if strings.Contains(e.Err.Message, "grace") {
					s.stats.hostExpired++ // the host failed it itself
				}
			}
			if s.allowClose && e.Err != nil && e.Err.Code == codec.CodeDisconnected {
				if !strings.Contains(e.Err.Message, "reconnect") {
					s.fail("disconnected without a reconnect hint: %v", e.Err)
				}
			}
			if e.Err != nil && e.Err.Code == codec.CodeFrameTooLarge {
				s.stats.tooLarge++
			}
			is.done = true
			s.completed++
		case *StreamEvent:
			st, seq := e.Event.Stream, e.Event.Seq
			if !s.sent[st][seq] {
				s.fail("delivered %s event %d that was never sent", st, seq)
			}
			if seq <= s.last[st] {
				s.fail("%s event %d delivered after %d", st, seq, s.last[st])
			}
			if !st.Lossy() {
				want := s.expect[st]
				if want == 0 {
					want = 1
				}
				if seq != want {
					s.fail("lossless %s delivered %d where %d was due", st, seq, want)
				}
				s.expect[st] = seq + 1
			}
			s.last[st] = seq
			s.set(s.got, st, seq)
		case *Dropped:
			for q := e.Seq; q < e.Seq+e.Count; q++ {
				s.set(s.dropped, e.Stream, q)
			}
		case *OutOfSync:
			s.stats.outOfSync++
		case *InSync:
			s.stats.resyncs++
			s.expect[e.Stream] = e.From
		case *ResyncFailed:
			// Only explicit resyncs fail for good here (the agent answers
			// busy, which an automatic one retries).
		case *Connected:
		case *ProtocolError:
			s.fail("protocol error: %v", e.Err)
		case *Closed:
			if !s.allowClose {
				s.fail("host closed: %v", e.Err)
			}
			if e.Reason != CloseSilent {
				s.fail("host closed as %s, want silent", e.Reason)
			}
			s.hostClosed = true
		}
	}
}

func (s *sim) check() {
	for id, is := range s.issued {
		if !is.done {
			s.fail("request %d (%s) never completed", id, is.method)
		}
	}
	for st, sent := range s.sent {
		for seq := range sent {
			g, d := s.got[st][seq], s.dropped[st][seq]
			if g == d {
				s.fail("%s event %d: delivered %v, reported dropped %v; want exactly one", st, seq, g, d)
			}
		}
	}
	for st, got := range s.got {
		for seq := range got {
			if s.dropped[st][seq] {
				s.fail("%s event %d both delivered and dropped", st, seq)
			}
		}
	}
	s.stats.pings = int(s.h.live.nonce + s.a.live.nonce)
}

// checkClosed checks the state after the host closed as silent.
func (s *sim) checkClosed() {
	s.hostEvents() // nothing may follow Closed
	for id, is := range s.issued {
		if !is.done {
			s.fail("request %d (%s) pending at the close never completed", id, is.method)
		}
	}
	if s.h.InFlight() != 0 {
		s.fail("%d requests in flight after the close", s.h.InFlight())
	}
	_, err := s.h.Request(s.now, codec.MethodTap, nil, 0)
	var pe *codec.Error
	if !errors.As(err, &pe) || pe.Code != codec.CodeDisconnected || !strings.Contains(pe.Message, "reconnect") {
		s.fail("request after the close: %v, want disconnected with a reconnect hint", err)
	}
	if _, ok := s.h.PollTimeout(); ok {
		s.fail("a closed host still has a timer")
	}
	// The agent, hearing nothing more, closes within SilentAfter of the
	// last bytes it got.
	for i := 0; !s.agentClosed; i++ {
		if i > 100000 {
			s.fail("the agent never closed after the host did")
		}
		s.tick()
	}
}
