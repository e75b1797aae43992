package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/faultproxy"
	"github.com/wirebench/wirebench/internal/testio"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// The link tests of issue 21: wire host's driver (netconn.Redialer, over
// real loopback sockets) against agent-sim's serving code, through a
// fault proxy. Every request a test makes is counted in a ledger, which
// checks at the end that each one ended, once, with an answer,
// deadline_exceeded or disconnected.

// ledger counts requests and how they ended.
type ledger struct {
	made     int
	pending  map[uint64]codec.Method
	answered int
	deadline int
	disconn  int // failed with disconnected, at once or when their session closed
}

// end records the outcome of a request that was sent.
func (l *ledger) end(t *testing.T, c *session.Completed) {
	t.Helper()
	if _, ok := l.pending[c.ID]; !ok {
		t.Fatalf("request %d (%s) completed but is not pending", c.ID, c.Method)
	}
	delete(l.pending, c.ID)
	l.outcome(t, c.Err)
}

func (l *ledger) outcome(t *testing.T, e *codec.Error) {
	t.Helper()
	switch {
	case e == nil:
		l.answered++
	case e.Code == codec.CodeDeadlineExceeded:
		l.deadline++
	case e.Code == codec.CodeDisconnected && e.Retryable:
		l.disconn++
	default:
		t.Fatalf("a request ended with %s: %v; want an answer, deadline_exceeded or disconnected", e.Code, e)
	}
}

// check asserts that every request made has ended.
func (l *ledger) check(t *testing.T) {
	t.Helper()
	if len(l.pending) != 0 || l.made != l.answered+l.deadline+l.disconn {
		t.Fatalf("%d requests made: %d answered, %d deadline_exceeded, %d disconnected, %d still pending", l.made, l.answered, l.deadline, l.disconn, len(l.pending))
	}
	t.Logf("%d requests: %d answered, %d deadline_exceeded, %d disconnected", l.made, l.answered, l.deadline, l.disconn)
}

// linkHost is a host kept connected by a netconn.Redialer, with what
// it saw.
type linkHost struct {
	t         *testing.T
	rd        *netconn.Redialer
	led       ledger
	closed    []*session.Closed
	closedAt  []time.Time
	connected []time.Time
	attempts  []*netconn.Attempt
	redials   []*netconn.Redialing
	restored  []*netconn.Restored
	inSync    int
	frames    int
	dropped   uint64
}

func newLinkHost(t *testing.T, addr string) *linkHost {
	t.Helper()
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	lh := &linkHost{t: t, led: ledger{pending: map[uint64]codec.Method{}}}
	lh.rd = netconn.NewRedialer(netconn.RedialConfig{
		Dial: func(ctx context.Context) (net.Conn, error) { return dialer.DialContext(ctx, "tcp", addr) },
		Host: session.HostConfig{Session: 100},
	})
	t.Cleanup(func() { lh.rd.Close() })
	lh.until(10*time.Second, "the first handshake", lh.rd.Connected)
	return lh
}

// until drives the host until cond holds; d only bounds a failure.
func (lh *linkHost) until(d time.Duration, what string, cond func() bool) {
	lh.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := lh.rd.Run(ctx, func() bool {
		lh.events()
		return cond()
	})
	if err != nil {
		lh.t.Fatalf("waiting for %s: %v (closes %d, attempts %d)", what, err, len(lh.closed), len(lh.attempts))
	}
}

// for runs the host for d, calling each (if not nil) every tick.
func (lh *linkHost) runFor(d, tick time.Duration, each func()) {
	lh.t.Helper()
	end := time.Now().Add(d)
	next := time.Now()
	for time.Now().Before(end) {
		if each != nil && !time.Now().Before(next) {
			each()
			next = next.Add(tick)
		}
		wake := min(time.Until(next), time.Until(end))
		ctx, cancel := context.WithTimeout(context.Background(), max(wake, time.Millisecond))
		err := lh.rd.Run(ctx, func() bool { lh.events(); return false })
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			lh.t.Fatalf("run: %v", err)
		}
	}
}

func (lh *linkHost) events() {
	for e, ok := lh.rd.PollEvent(); ok; e, ok = lh.rd.PollEvent() {
		switch e := e.(type) {
		case *session.Completed:
			lh.led.end(lh.t, e)
		case *session.Closed:
			lh.closed = append(lh.closed, e)
			lh.closedAt = append(lh.closedAt, time.Now())
		case *session.Connected:
			lh.connected = append(lh.connected, time.Now())
		case *netconn.Attempt:
			lh.attempts = append(lh.attempts, e)
		case *netconn.Redialing:
			lh.redials = append(lh.redials, e)
		case *netconn.Restored:
			lh.restored = append(lh.restored, e)
		case *session.InSync:
			lh.inSync++
		case *session.StreamEvent:
			if e.Event.Stream == codec.StreamFrames {
				lh.frames++
			}
		case *session.Dropped:
			if e.Stream == codec.StreamFrames {
				lh.dropped += e.Count
			}
		}
	}
}

// request makes one request, counting it; one refused at once counts as
// ended then.
func (lh *linkHost) request(m codec.Method, p codec.Params, deadline time.Duration) {
	lh.t.Helper()
	lh.led.made++
	id, err := lh.rd.Request(time.Now(), m, p, deadline)
	if err != nil {
		var pe *codec.Error
		if !errors.As(err, &pe) {
			lh.t.Fatalf("%s: %v", m, err)
		}
		lh.led.outcome(lh.t, pe)
		return
	}
	lh.led.pending[id] = m
}

// settle waits until no request is pending.
func (lh *linkHost) settle() {
	lh.t.Helper()
	lh.until(30*time.Second, "every request to end", func() bool { return len(lh.led.pending) == 0 })
}

// linkAgent is agent-sim serving on a loopback port behind a fault
// proxy; stop ends it (closing its connections) and start brings it back
// on the same port.
type linkAgent struct {
	t     *testing.T
	cfg   asimConfig
	addr  string
	stopF func()
	peak  atomic.Int64
}

func startLinkAgent(t *testing.T, cfg asimConfig) *linkAgent {
	t.Helper()
	la := &linkAgent{t: t, cfg: cfg, addr: "127.0.0.1:0"}
	la.cfg.peakBacklog = &la.peak
	la.start()
	t.Cleanup(la.stop)
	return la
}

func (la *linkAgent) start() {
	la.t.Helper()
	cfg := asimTestDefaults(la.cfg)
	ln, err := net.Listen("tcp", la.addr)
	if err != nil {
		la.t.Fatal(err)
	}
	la.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := &testio.SyncBuffer{}
	go func() { done <- asimServe(ctx, ln, cfg, logs) }()
	la.stopF = func() {
		cancel()
		if err := <-done; err != nil {
			la.t.Errorf("agent-sim: %v", err)
		}
		if la.t.Failed() {
			la.t.Logf("agent-sim's log:\n%s", logs.String())
		}
	}
}

func (la *linkAgent) stop() {
	if la.stopF != nil {
		la.stopF()
		la.stopF = nil
	}
}

func linkProxy(t *testing.T, target string, cfg faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// calls makes one of each kind of request the agent answers quickly.
func (lh *linkHost) calls() {
	lh.request(codec.MethodSnapshot, nil, 5*time.Second)
	lh.request(codec.MethodTap, &codec.TapParams{X: 10, Y: 300}, 5*time.Second)
	lh.request(codec.MethodDeviceInfo, nil, 5*time.Second)
	lh.request(codec.MethodScreenshot, &codec.ScreenshotParams{ScalePct: codec.Some[uint32](20)}, 5*time.Second)
}

func TestLinkSplitWrites(t *testing.T) {
	la := startLinkAgent(t, asimConfig{seed: 3, tick: 50 * time.Millisecond})
	p := linkProxy(t, la.addr, faultproxy.Config{})
	p.SetSplit(faultproxy.Both, 1)
	p.SetDelay(faultproxy.ToClient, 5*time.Millisecond)
	lh := newLinkHost(t, p.Addr())
	for i := 0; i < 3; i++ {
		lh.calls()
	}
	lh.settle()
	lh.led.check(t)
	if lh.led.answered != lh.led.made || len(lh.closed) != 0 {
		t.Fatalf("split writes: %d of %d answered, %d closes", lh.led.answered, lh.led.made, len(lh.closed))
	}
	if p.Writes(faultproxy.ToClient) != p.Moved(faultproxy.ToClient) {
		t.Fatalf("%d writes for %d bytes: not split to single bytes", p.Writes(faultproxy.ToClient), p.Moved(faultproxy.ToClient))
	}
}

// TestLinkSlowUplink: the agent sends about 19 KB/s of frames (5 a
// second, 50 % scale) and the link to the host carries 8 KB/s, for 11 s:
// the session stays up, frames are dropped at the agent (its backlog
// stays under its limit plus a frame) and the host counts them, and
// requests made meanwhile end (answered, mostly).
func TestLinkSlowUplink(t *testing.T) {
	la := startLinkAgent(t, asimConfig{seed: 5, tick: 250 * time.Millisecond, backlog: 16 << 10})
	// A link that holds little in flight: the proxy reads 2 KiB at a
	// time, one chunk waiting, into a small kernel buffer.
	p := linkProxy(t, la.addr, faultproxy.Config{Chunk: 2 << 10, Queue: 1, ReadBuffer: 4 << 10})
	lh := newLinkHost(t, p.Addr())
	lh.request(codec.MethodFramesStart, &codec.FramesStartParams{MaxFPS: codec.Some[uint32](5), ScalePct: codec.Some[uint32](50)}, 5*time.Second)
	lh.settle()
	// The agent's rate, measured before the throttle.
	offer := p.Moved(faultproxy.ToClient)
	lh.runFor(2*time.Second, time.Second, nil)
	offered := (p.Moved(faultproxy.ToClient) - offer) / 2
	p.SetRate(faultproxy.ToClient, 8<<10)
	start := time.Now()
	before := p.Moved(faultproxy.ToClient)
	ask := func() { lh.request(codec.MethodDeviceInfo, nil, 8*time.Second) }
	lh.runFor(11*time.Second, time.Second, ask)
	// A busy host encodes fewer frames, so the backlog that makes the
	// agent drop one may take longer to build: up to 40 s in all.
	for lh.dropped == 0 && len(lh.closed) == 0 && time.Since(start) < 40*time.Second {
		lh.runFor(time.Second, time.Second, ask)
	}
	lived := time.Since(start)
	moved := p.Moved(faultproxy.ToClient) - before
	if len(lh.closed) != 0 {
		t.Fatalf("the session closed over the slow link after %v: %v", lh.closedAt[0].Sub(start), lh.closed[0].Err)
	}
	t.Logf("slow uplink: agent offers %.1f KB/s; up for %v, %d bytes at %.1f KB/s to the host, %d frames delivered, %d dropped, agent backlog peak %d bytes",
		float64(offered)/1024, lived.Round(time.Millisecond), moved, float64(moved)/lived.Seconds()/1024, lh.frames, lh.dropped, la.peak.Load())
	// About 19 KB/s on an idle machine; a busy one encodes fewer frames,
	// and the test needs only an overload: well over the link's 8 KB/s.
	if offered < 12<<10 {
		t.Fatalf("the agent offered %d bytes a second, not an overload of the 8 KB/s link", offered)
	}
	if lh.dropped == 0 {
		t.Fatal("no frame dropped: the agent did not push back")
	}
	if peak := la.peak.Load(); peak > 16<<10+16<<10 {
		t.Fatalf("agent backlog peaked at %d bytes, over its limit of 16 KiB plus a frame", peak)
	}
	p.SetRate(faultproxy.ToClient, 0)
	lh.request(codec.MethodFramesStop, nil, 5*time.Second)
	lh.settle()
	lh.led.check(t)
	if lh.led.answered == 0 {
		t.Fatal("no request answered over the slow link")
	}
}

// TestLinkStall: with nothing moving either way the host closes as
// Silent, on time; it then keeps dialing, and reconnects once the link
// moves again.
func TestLinkStall(t *testing.T) {
	la := startLinkAgent(t, asimConfig{seed: 6})
	p := linkProxy(t, la.addr, faultproxy.Config{})
	lh := newLinkHost(t, p.Addr())
	lh.calls()
	lh.settle()
	p.Stall(faultproxy.Both)
	stalled := time.Now()
	lh.request(codec.MethodSnapshot, nil, 0)                      // no deadline: only the close ends it
	lh.request(codec.MethodDeviceInfo, nil, 200*time.Millisecond) // ends at its deadline and grace, before the close
	lh.until(10*time.Second, "the silent close", func() bool { return len(lh.closed) > 0 })
	took := lh.closedAt[0].Sub(stalled)
	t.Logf("stall: closed as %s after %v", lh.closed[0].Reason, took.Round(time.Millisecond))
	if lh.closed[0].Reason != session.CloseSilent {
		t.Fatalf("closed as %s, want silent", lh.closed[0].Reason)
	}
	// Last heard at most PingAfter before the stall (pings keep a quiet
	// link talking); closed SilentAfter after, plus a scheduling margin.
	if took < session.SilentAfter-session.PingAfter-100*time.Millisecond || took > session.SilentAfter+time.Second {
		t.Fatalf("closed %v after the stall, want SilentAfter (%v) after last hearing the agent", took, session.SilentAfter)
	}
	// Still stalled: the next dials connect to the proxy but hear no
	// hello, and fail as silent too.
	lh.until(15*time.Second, "a dial that fails in the stall", func() bool {
		for _, a := range lh.attempts {
			if a.Err != nil {
				return true
			}
		}
		return false
	})
	p.Resume(faultproxy.Both)
	lh.until(15*time.Second, "the reconnection", func() bool { return len(lh.connected) >= 2 })
	lh.calls()
	lh.settle()
	lh.led.check(t)
	if lh.led.deadline != 1 || lh.led.disconn != 1 {
		t.Fatalf("%d deadline_exceeded and %d disconnected, want the one of each made in the stall", lh.led.deadline, lh.led.disconn)
	}
}

// TestLinkCutThenReconnect: a cut ends the session at once; the host
// redials after ResyncBackoff, and the new session restores the frames
// the host had started and resyncs the tree stream it had seen.
func TestLinkCutThenReconnect(t *testing.T) {
	la := startLinkAgent(t, asimConfig{seed: 7, tick: 30 * time.Millisecond})
	p := linkProxy(t, la.addr, faultproxy.Config{})
	lh := newLinkHost(t, p.Addr())
	lh.request(codec.MethodFramesStart, &codec.FramesStartParams{MaxFPS: codec.Some[uint32](10), ScalePct: codec.Some[uint32](10)}, 5*time.Second)
	lh.calls()
	lh.settle()
	lh.until(5*time.Second, "frames and tree events", func() bool { return lh.frames >= 2 })
	// Requests in flight at the cut end with disconnected.
	lh.request(codec.MethodSnapshot, nil, 0)
	lh.request(codec.MethodScreenshot, &codec.ScreenshotParams{}, 0)
	cut := time.Now()
	if n := p.Cut(); n != 1 {
		t.Fatalf("cut %d connections", n)
	}
	lh.until(10*time.Second, "the close", func() bool { return len(lh.closed) > 0 })
	if r := lh.closed[0].Reason; r != session.CloseEndOfStream {
		t.Fatalf("closed as %s after a cut, want end_of_stream", r)
	}
	// While it redials, a request fails at once.
	if !lh.rd.Connected() {
		lh.request(codec.MethodTap, &codec.TapParams{}, time.Second)
	}
	lh.until(10*time.Second, "the reconnection", func() bool { return len(lh.connected) >= 2 })
	t.Logf("cut: reconnected %v after the cut (closed after %v)", lh.connected[1].Sub(cut).Round(time.Millisecond), lh.closedAt[0].Sub(cut).Round(time.Millisecond))
	if lh.connected[1].Sub(lh.closedAt[0]) < session.ResyncBackoff {
		t.Fatalf("redialed %v after the close, before the backoff of %v", lh.connected[1].Sub(lh.closedAt[0]), session.ResyncBackoff)
	}
	framesBefore := lh.frames
	lh.until(10*time.Second, "frames and the tree restored", func() bool {
		return len(lh.restored) >= 2 && lh.inSync >= 1 && lh.frames >= framesBefore+2
	})
	for _, r := range lh.restored {
		if r.Err != nil {
			t.Fatalf("restoring %s: %v", r.Method, r.Err)
		}
	}
	lh.calls()
	lh.request(codec.MethodFramesStop, nil, 5*time.Second)
	lh.settle()
	lh.led.check(t)
	if lh.led.disconn < 2 {
		t.Fatalf("%d requests ended disconnected, want at least the 2 in flight at the cut", lh.led.disconn)
	}
}

// TestLinkAgentRestart: the agent goes away and comes back on the same
// port; the host's dials fail meanwhile, each reported, with the backoff
// doubling, and it reconnects once the agent is back.
func TestLinkAgentRestart(t *testing.T) {
	la := startLinkAgent(t, asimConfig{seed: 8})
	lh := newLinkHost(t, la.addr)
	lh.calls()
	lh.settle()
	la.stop()
	lh.until(10*time.Second, "three failed dials", func() bool {
		n := 0
		for _, a := range lh.attempts {
			if a.Err != nil {
				n++
			}
		}
		return n >= 3
	})
	lh.request(codec.MethodDeviceInfo, nil, time.Second) // fails at once
	// The waits: after the close, then after each failed dial.
	if len(lh.redials) != 1 {
		t.Fatalf("%d Redialing events, want 1", len(lh.redials))
	}
	retries := []time.Duration{lh.redials[0].Retry}
	for _, a := range lh.attempts {
		if a.Err != nil {
			retries = append(retries, a.Retry)
		}
	}
	if retries[0] != session.ResyncBackoff || retries[1] != 2*retries[0] || retries[2] != 2*retries[1] || retries[3] != 2*retries[2] {
		t.Fatalf("retry waits %v, want %v doubling", retries, session.ResyncBackoff)
	}
	la.start()
	lh.until(15*time.Second, "the reconnection", func() bool { return len(lh.connected) >= 2 })
	lh.calls()
	lh.settle()
	lh.led.check(t)
}
