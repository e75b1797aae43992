package rfbgate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// fakeXvnc is an RFB 3.8 server with VNC authentication that behaves, for
// what the dial limiter is about, as TigerVNC's Xvnc does: every new
// connection from an address is a black mark until one authenticates
// (which clears them); at threshold marks the address is turned away with
// "RFB 003.003", security type 0 and "Too many security failures" for
// block, doubling. It counts the handshakes in flight (accepted, ServerInit
// not yet sent) and the most there ever were.
type fakeXvnc struct {
	Addr string

	pw        Secret
	hold      time.Duration // each handshake takes this long before the server speaks
	threshold int           // 0: no blacklist
	block     time.Duration
	silent    atomic.Int64 // this many next connections never get ProtocolVersion

	mu          sync.Mutex
	marks       int
	blockUntil  time.Time
	blockFor    time.Duration
	inFlight    int
	maxInFlight int
	refused     int
	authFails   int
	inits       int
}

func newFakeXvnc(t *testing.T, password string, hold time.Duration, threshold int, block time.Duration) *fakeXvnc {
	t.Helper()
	f := &fakeXvnc{pw: NewSecret(password), hold: hold, threshold: threshold, block: block, blockFor: block}
	f.Addr = serveLoopback(t, f.serve)
	return f
}

// serveLoopback runs serve on every connection to a new loopback listener
// until the test ends, then closes the listener and the connections and
// waits for serve to return.
func serveLoopback(t *testing.T, serve func(c net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

// admit applies the blacklist to a new connection, as TigerVNC's
// Blacklist::isBlackmarked does.
func (f *fakeXvnc) admit() bool {
	if f.threshold == 0 {
		return true
	}
	if f.marks == 0 {
		f.marks, f.blockUntil, f.blockFor = 1, time.Time{}, f.block
	}
	if f.marks >= f.threshold {
		if now := time.Now(); !now.Before(f.blockUntil) {
			f.blockUntil = now.Add(f.blockFor)
			f.blockFor *= 2
			return true
		}
		return false
	}
	f.marks++
	return true
}

func (f *fakeXvnc) serve(c net.Conn) {
	f.mu.Lock()
	ok := f.admit()
	if !ok {
		f.refused++
	}
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.mu.Unlock()
	done := func() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }
	if !ok {
		defer done()
		const reason = "Too many security failures"
		msg := binary.BigEndian.AppendUint32([]byte("RFB 003.003\n\x00\x00\x00\x00"), uint32(len(reason)))
		c.Write(append(msg, reason...))
		return
	}
	if f.silent.Add(-1) >= 0 { // accepted by the kernel, never by the server
		defer done()
		io.Copy(io.Discard, c)
		return
	}
	time.Sleep(f.hold)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("RFB 003.008\n"))
	io.ReadFull(c, make([]byte, 12))
	c.Write([]byte{2, 19, rfb.SecurityVNCAuth})
	io.ReadFull(c, make([]byte, 1))
	ch := [16]byte{7, 1, 2, 3}
	c.Write(ch[:])
	var resp [16]byte
	if _, err := io.ReadFull(c, resp[:]); err != nil {
		done()
		return
	}
	if resp != VNCAuthResponse(f.pw, ch) {
		f.mu.Lock()
		f.authFails++
		f.inFlight--
		f.mu.Unlock()
		const reason = "Authentication failure"
		c.Write(binary.BigEndian.AppendUint32([]byte{0, 0, 0, 1}, uint32(len(reason))))
		c.Write([]byte(reason))
		return
	}
	f.mu.Lock()
	f.marks = 0 // authenticated: the address's marks are cleared
	f.mu.Unlock()
	c.Write([]byte{0, 0, 0, 0})
	io.ReadFull(c, make([]byte, 1))
	f.mu.Lock()
	f.inits++
	f.inFlight--
	f.mu.Unlock()
	c.Write(serverInit("fake"))
	c.SetDeadline(time.Time{})
	io.Copy(io.Discard, c)
}

// counts returns the most handshakes in flight, refusals, password
// failures and ServerInits sent.
func (f *fakeXvnc) counts() (maxInFlight, refused, authFails, inits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxInFlight, f.refused, f.authFails, f.inits
}

// crowdResult is what one viewer of a crowd got: ServerInit, or the
// relay's close status and reason.
type crowdResult struct {
	ok     bool
	status websocket.StatusCode
	reason string
	err    error
}

// openCrowd opens n viewers of agent at the same moment (all WebSockets
// first, then one release) and returns each one's outcome; opened viewers
// are closed at the test's end.
func openCrowd(t *testing.T, tr *testRelay, agent string, n int) ([]crowdResult, time.Duration) {
	t.Helper()
	urls := make([]string, n)
	for i := range urls {
		tk, err := tr.Watch(agent, fmt.Sprintf("v%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		urls[i] = tr.wsURL(tk.Token, agent)
	}
	res := make([]crowdResult, n)
	var ready, wg sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	wg.Add(n)
	var mu sync.Mutex
	var last time.Time
	for i := range urls {
		go func() {
			defer wg.Done()
			ready.Done()
			<-release
			res[i] = openOne(t, urls[i])
			if res[i].ok {
				mu.Lock()
				last = time.Now()
				mu.Unlock()
			}
		}()
	}
	ready.Wait()
	start := time.Now()
	close(release)
	wg.Wait()
	return res, last.Sub(start)
}

// openOne opens a viewer and reads to ServerInit; on failure it reports the
// relay's close status and reason.
func openOne(t *testing.T, url string) crowdResult {
	c, err := dialRFB(t, url, false)
	if err == nil {
		if len(c.Init) < 24 {
			return crowdResult{err: fmt.Errorf("short ServerInit %x", c.Init)}
		}
		return crowdResult{ok: true}
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return crowdResult{status: ce.Code, reason: ce.Reason, err: err}
	}
	return crowdResult{status: -1, err: err}
}

// crowdAllIn opens n viewers of computer "a" at once, requires all of them
// to reach ServerInit, and returns the time to the last and the dial
// stats.
func crowdAllIn(t *testing.T, tr *testRelay, n int) (time.Duration, DialStats) {
	t.Helper()
	res, took := openCrowd(t, tr, "a", n)
	if got, bad := okCount(res); got != n {
		t.Fatalf("%d of %d viewers reached ServerInit (dial stats %+v); failures: %q", got, n, tr.DialStats("a"), bad)
	}
	return took, tr.DialStats("a")
}

// okCount counts the viewers that reached ServerInit and describes the
// others' failures.
func okCount(res []crowdResult) (int, []string) {
	n := 0
	var bad []string
	for _, r := range res {
		if r.ok {
			n++
		} else {
			bad = append(bad, fmt.Sprintf("close %d %q: %v", r.status, r.reason, r.err))
		}
	}
	return n, bad
}

// TestDialLimiterInFlight: a crowd opened at once through the relay never
// has more than K handshakes in flight at the server, as the fake server
// counts them, and every viewer reaches ServerInit; with K under the
// blacklist threshold the server never turns the relay away.
func TestDialLimiterInFlight(t *testing.T) {
	for _, k := range []int{1, 3, 4} {
		t.Run(fmt.Sprintf("K=%d", k), func(t *testing.T) {
			f := newFakeXvnc(t, testPassword, 30*time.Millisecond, 5, time.Second)
			tr := newTestRelay(t, Config{PerViewerUpstream: true,
				Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
				Dial:      DialPolicy{InFlight: k},
			})
			const n = 20
			_, st := crowdAllIn(t, tr, n)
			maxIn, refused, authFails, inits := f.counts()
			t.Logf("K=%d: server saw at most %d handshakes at once; relay stats %+v", k, maxIn, st)
			if maxIn > k || st.MaxInFlight > k {
				t.Fatalf("server saw %d handshakes at once (relay counted %d), limit %d", maxIn, st.MaxInFlight, k)
			}
			// The limiter allows K, not fewer: 20 viewers queued behind
			// 30 ms handshakes fill every slot.
			if maxIn != k {
				t.Fatalf("server saw at most %d handshakes at once, want the limit %d", maxIn, k)
			}
			if refused != 0 || authFails != 0 || inits != n || st.Retries != 0 || st.Handshakes != n {
				t.Fatalf("refused %d, password failures %d, inits %d, stats %+v", refused, authFails, inits, st)
			}
		})
	}
}

// TestDialRetriesBlacklist: with the limit set over the server's blacklist
// threshold the server turns viewers away; the relay retries them with
// backoff, every viewer gets in, and none of it is a password failure.
func TestDialRetriesBlacklist(t *testing.T) {
	f := newFakeXvnc(t, testPassword, 20*time.Millisecond, 5, 200*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
		Dial:      DialPolicy{InFlight: 10, Backoff: 20 * time.Millisecond},
	})
	tr.open(t, "a", "first", false) // the password is proven: 10 in flight from now
	const n = 20
	took, st := crowdAllIn(t, tr, n)
	_, refused, authFails, _ := f.counts()
	t.Logf("%d viewers in %v; server refused %d connections; relay stats %+v", n, took, refused, st)
	if refused == 0 || st.Blacklisted == 0 || st.Retries == 0 {
		t.Fatalf("the server never turned the relay away (refused %d, stats %+v): the test does not test retries", refused, st)
	}
	if authFails != 0 || st.AuthFailures != 0 {
		t.Fatalf("password failures: server %d, relay %d", authFails, st.AuthFailures)
	}
	l := tr.logs.String()
	if strings.Contains(l, "refused the password") || strings.Contains(l, "VNC handshake failed") || strings.Contains(l, "level=WARN") {
		t.Fatalf("a blacklist refusal was logged as a failure:\n%s", l)
	}
	if !strings.Contains(l, "Too many security failures") || !strings.Contains(l, "not a password failure") {
		t.Fatalf("the retries are not logged with the server's reason:\n%s", l)
	}
}

// TestDialAuthFailureNotRetried: a crowd with the wrong password costs the
// server one password failure: the relay tries one handshake at a time
// until the password is proven, retries none, and holds off the rest.
func TestDialAuthFailureNotRetried(t *testing.T) {
	f := newFakeXvnc(t, testPassword, 10*time.Millisecond, 5, time.Second)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret("not-" + testPassword)}},
	})
	const n = 10
	res, _ := openCrowd(t, tr, "a", n)
	for i, r := range res {
		if r.ok || r.status != websocket.StatusTryAgainLater || !strings.Contains(r.reason, "refused the relay") {
			t.Fatalf("viewer %d: %+v, want close 1013 \"computer refused the relay\"", i, r)
		}
	}
	maxIn, refused, authFails, _ := f.counts()
	st := tr.DialStats("a")
	if authFails != 1 || st.AuthFailures != 1 || st.Retries != 0 || refused != 0 || maxIn != 1 {
		t.Fatalf("server: %d password failures, %d refused, %d at once; relay stats %+v; want one failure, no retry", authFails, refused, maxIn, st)
	}
	if l := tr.logs.String(); strings.Count(l, "VNC handshake failed") != 1 || strings.Contains(l, "retrying") {
		t.Fatalf("want one handshake failure logged and no retry:\n%s", l)
	}
}

// TestDialTimeoutRetried: connections the server accepted in the kernel
// but never answered (its backlog was full) time out on ProtocolVersion
// and are retried; the viewer gets in.
func TestDialTimeoutRetried(t *testing.T) {
	f := newFakeXvnc(t, testPassword, 0, 0, 0)
	f.silent.Store(2)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:        []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
		HandshakeTimeout: 200 * time.Millisecond,
		Dial:             DialPolicy{Backoff: 10 * time.Millisecond},
	})
	tr.open(t, "a", "s", false)
	st := tr.DialStats("a")
	if st.Timeouts != 2 || st.Retries != 2 || st.Handshakes != 1 || st.AuthFailures != 0 {
		t.Fatalf("stats %+v, want 2 timeouts retried and 1 handshake", st)
	}
	if l := tr.logs.String(); !strings.Contains(l, "ProtocolVersion") || !strings.Contains(l, "timeout") {
		t.Fatalf("retry log does not say what timed out:\n%s", l)
	}
}

// TestDialQueueLimit: Queue viewers may wait (at the limit, all served);
// one more is closed at once with 1013 saying the computer is busy.
func TestDialQueueLimit(t *testing.T) {
	f := newFakeXvnc(t, testPassword, 0, 0, 0)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
		Dial:      DialPolicy{InFlight: 1, Queue: 2},
	})
	slot := tr.takeDialSlot(t, "a")
	results := make(chan crowdResult, 2)
	for i := range 2 { // two waiting: at the limit
		tk, _ := tr.Watch("a", fmt.Sprintf("s%d", i))
		go func() { results <- openOne(t, tr.wsURL(tk.Token, "a")) }()
		waitFor(t, func() bool { return tr.dialWaiting("a") == i+1 })
	}
	tk, _ := tr.Watch("a", "over")
	over := openOne(t, tr.wsURL(tk.Token, "a")) // past it
	if over.ok || over.status != websocket.StatusTryAgainLater || !strings.Contains(over.reason, "2 viewers already waiting") {
		t.Fatalf("viewer past the queue: %+v, want 1013 \"computer busy: 2 viewers already waiting\"", over)
	}
	slot()
	for range 2 {
		if r := <-results; !r.ok {
			t.Fatalf("a viewer within the queue: %+v", r)
		}
	}
	if st := tr.DialStats("a"); st.QueueFull != 1 || st.Handshakes != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestDialDeadline: a viewer that waits its whole deadline for a turn, and
// one whose retries outlast it, are closed with 1013 and a reason saying
// so.
func TestDialDeadline(t *testing.T) {
	t.Run("queued", func(t *testing.T) {
		f := newFakeXvnc(t, testPassword, 0, 0, 0)
		tr := newTestRelay(t, Config{PerViewerUpstream: true,
			Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
			Dial:      DialPolicy{InFlight: 1, Wait: 400 * time.Millisecond},
		})
		defer tr.takeDialSlot(t, "a")()
		tk, _ := tr.Watch("a", "late")
		start := time.Now()
		r := openOne(t, tr.wsURL(tk.Token, "a"))
		if r.ok || r.status != websocket.StatusTryAgainLater || !strings.Contains(r.reason, "no turn to connect within 400ms") {
			t.Fatalf("queued viewer: %+v, want 1013 \"computer busy: no turn to connect within 400ms\"", r)
		}
		if el := time.Since(start); el < 400*time.Millisecond {
			t.Fatalf("closed after %v, before its deadline", el)
		}
		if st := tr.DialStats("a"); st.Expired != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
	t.Run("retrying", func(t *testing.T) {
		f := newFakeXvnc(t, testPassword, 0, 1, time.Hour) // every connection is turned away
		f.mu.Lock()
		f.marks = 1
		f.blockUntil = time.Now().Add(time.Hour)
		f.mu.Unlock()
		tr := newTestRelay(t, Config{PerViewerUpstream: true,
			Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
			Dial:      DialPolicy{Wait: 500 * time.Millisecond, Backoff: 20 * time.Millisecond},
		})
		tk, _ := tr.Watch("a", "s")
		r := openOne(t, tr.wsURL(tk.Token, "a"))
		if r.ok || r.status != websocket.StatusTryAgainLater || !strings.Contains(r.reason, "not connected within 500ms") {
			t.Fatalf("viewer: %+v, want 1013 \"computer busy: not connected within 500ms\"", r)
		}
		st := tr.DialStats("a")
		if st.Retries < 2 || st.Expired != 1 || st.AuthFailures != 0 {
			t.Fatalf("stats %+v, want retries, one expired viewer, no password failure", st)
		}
		if l := tr.logs.String(); !strings.Contains(l, "kept turning the relay away") || strings.Contains(l, "refused the password") {
			t.Fatalf("log:\n%s", l)
		}
	})
}

// TestDialRelayClosing: a viewer waiting for a turn when the relay closes
// is told so (1001), not left waiting.
func TestDialRelayClosing(t *testing.T) {
	f := newFakeXvnc(t, testPassword, 0, 0, 0)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: f.Addr, Password: NewSecret(testPassword)}},
		Dial:      DialPolicy{InFlight: 1},
	})
	defer tr.takeDialSlot(t, "a")()
	tk, _ := tr.Watch("a", "waiting")
	res := make(chan crowdResult, 1)
	go func() {
		// The viewer's NetConn reads 1001 as EOF: read the close itself.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, tr.wsURL(tk.Token, "a"), &websocket.DialOptions{Subprotocols: []string{"binary"}})
		if err != nil {
			res <- crowdResult{status: -1, err: err}
			return
		}
		defer ws.CloseNow()
		_, _, err = ws.Read(ctx)
		res <- crowdResult{status: websocket.CloseStatus(err), err: err}
	}()
	waitFor(t, func() bool { return tr.dialWaiting("a") == 1 })
	go tr.Close()
	select {
	case r := <-res:
		if r.ok || r.status != websocket.StatusGoingAway {
			t.Fatalf("waiting viewer: %+v (%v), want close 1001", r, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting viewer was not closed with the relay")
	}
}

// takeDialSlot holds one of agent's handshake slots, as a handshake in
// flight would, until the returned function is called.
func (r *Relay) takeDialSlot(t *testing.T, agent string) func() {
	t.Helper()
	if err := r.dialers[agent].acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	return func() { once.Do(func() { r.dialers[agent].release(nil) }) }
}

// dialWaiting is the number of agent's viewers waiting for a turn.
func (r *Relay) dialWaiting(agent string) int {
	l := r.dialers[agent]
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiters)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDialLimiter: the limiter alone: one slot until the password is
// proven, then K; waiters are served in order; a waiter whose context ends
// leaves the line, and a slot granted as it ended is passed on.
func TestDialLimiter(t *testing.T) {
	l := newDialLimiter(DialPolicy{InFlight: 2, Queue: 3}.withDefaults())
	ctx := context.Background()
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := l.acquire(short); !errors.Is(err, ErrDialDeadline) {
		t.Fatalf("second slot before the password is proven: %v", err)
	}
	l.release(ptr(true))
	for range 2 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	order := make(chan int, 3)
	for i := range 3 { // at the queue limit
		go func() {
			if l.acquire(ctx) == nil {
				order <- i
			}
		}()
		for l.mu.Lock(); len(l.waiters) != i+1; l.mu.Lock() {
			l.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
		l.mu.Unlock()
	}
	if err := l.acquire(ctx); !errors.Is(err, ErrDialQueueFull) { // past it
		t.Fatalf("fourth waiter: %v", err)
	}
	for want := range 3 {
		l.release(nil)
		if got := <-order; got != want {
			t.Fatalf("served waiter %d, want %d (first in, first out)", got, want)
		}
	}
	l.mu.Lock()
	in, waiting, st := l.inFlight, len(l.waiters), l.stats
	l.mu.Unlock()
	if in != 2 || waiting != 0 || st.MaxInFlight != 2 || st.QueueFull != 1 {
		t.Fatalf("in flight %d, waiting %d, stats %+v", in, waiting, st)
	}
	// A password refusal: back to one slot.
	l.release(ptr(false))
	if err := l.acquire(short); !errors.Is(err, ErrDialDeadline) {
		t.Fatalf("a slot after the password was refused, with one in flight: %v", err)
	}
	// A waiter whose context ends leaves the line; a slot granted to one
	// as its context ended goes to the next in line.
	w1 := &dialWaiter{ready: make(chan struct{})}
	w2 := &dialWaiter{ready: make(chan struct{})}
	l.mu.Lock()
	l.waiters = append(l.waiters, w1, w2)
	l.mu.Unlock()
	l.leave(w2)
	l.release(nil) // in flight 0: the slot goes to w1
	if !w1.granted || w2.granted {
		t.Fatalf("granted: first %v, second (gone) %v", w1.granted, w2.granted)
	}
	next := make(chan error, 1)
	go func() { next <- l.acquire(ctx) }()
	for l.mu.Lock(); len(l.waiters) != 1; l.mu.Lock() {
		l.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	l.mu.Unlock()
	l.leave(w1) // w1's context ended as it was granted
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight != 1 || len(l.waiters) != 0 {
		t.Fatalf("in flight %d, waiting %d, want 1 and 0", l.inFlight, len(l.waiters))
	}
}

// TestRetryable: which handshake failures are retried. Blacklist refusals
// and timeouts connecting or waiting for ProtocolVersion are; a password
// refusal, a refused connection, another refusal and any other step are
// not.
func TestRetryable(t *testing.T) {
	reason := func(s string) []byte { return binary.BigEndian.AppendUint32(nil, uint32(len(s))) }
	refusal33 := func(r string) func(c net.Conn) {
		return func(c net.Conn) {
			c.Write(append(append([]byte("RFB 003.003\n\x00\x00\x00\x00"), reason(r)...), r...))
		}
	}
	cases := []struct {
		name   string
		script func(c net.Conn)
		retry  bool
	}{
		{"blacklist-3.3", refusal33("Too many security failures"), true},
		{"refusal-3.3-other-reason", refusal33("Server busy"), true},
		{"refusal-3.3-no-reason", func(c net.Conn) { c.Write([]byte("RFB 003.003\n\x00\x00\x00\x00")) }, false},
		{"refusal-3.3-reason-at-limit", refusal33(strings.Repeat("x", rfb.MaxReasonLen)), true},
		{"refusal-3.3-reason-over-limit", func(c net.Conn) { c.Write([]byte("RFB 003.003\n\x00\x00\x00\x00\x00\x00\x10\x01")) }, false},
		{"genuine-3.3", func(c net.Conn) { c.Write([]byte("RFB 003.003\n\x00\x00\x00\x02")) }, false},
		{"blacklist-3.8", func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			c.Write(append(append([]byte{0}, reason("Too many security failures")...), "Too many security failures"...))
		}, true},
		{"refusal-3.8-other-reason", func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			c.Write(append(append([]byte{0}, reason("no")...), "no"...))
		}, false},
		{"version-timeout", func(c net.Conn) { time.Sleep(200 * time.Millisecond) }, true},
		{"security-types-timeout", func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			time.Sleep(200 * time.Millisecond)
		}, false},
		{"closed-at-once", func(c net.Conn) {}, false},
	}
	for _, c := range cases {
		conn := fakeServer(t, c.script)
		conn.SetDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := ClientHandshake(conn, NewSecret("pw"))
		if err == nil {
			t.Fatalf("%s: handshake succeeded", c.name)
		}
		if got := retryable(err); got != c.retry {
			t.Errorf("%s: retryable(%v) = %v, want %v", c.name, err, got, c.retry)
		}
		if errors.Is(err, ErrAuthFailed) {
			t.Errorf("%s: %v counted as a password failure", c.name, err)
		}
	}
	// A password refusal is final, whatever its reason says (the
	// handshake's SecurityResult error, as TestClientHandshakeErrors gets it).
	auth := &HandshakeError{Side: "server", Step: "SecurityResult", Err: fmt.Errorf("%w (result 1): %q", ErrAuthFailed, "Too many security failures")}
	if retryable(auth) {
		t.Errorf("retryable(%v)", auth)
	}
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if !retryable(&connectError{timeout}) || retryable(&connectError{refused}) {
		t.Error("a connect timeout is retried and a refused connection is not")
	}
}
