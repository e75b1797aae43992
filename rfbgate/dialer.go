package rfbgate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Why the relay dials Xvnc through a limiter: TigerVNC counts every new
// connection from an address as a black mark until one of them
// authenticates (which clears the marks), and turns the address away for
// BlacklistTimeout (10 s, doubling) once BlacklistThreshold (5) is reached:
// "RFB 003.003", security type 0, "Too many security failures". Every
// viewer comes from the relay's address, so a crowd opening at once must
// not have five handshakes in flight. Xvnc's listen backlog is also 5: a
// connection beyond it is accepted by the kernel but never by Xvnc, and the
// relay would wait out its handshake timeout for a ProtocolVersion that
// never comes.

// Dial policy defaults.
const (
	DefaultDialInFlight = 3                // under TigerVNC's BlacklistThreshold of 5
	DefaultDialQueue    = 512              // viewers of one computer waiting for a turn
	DefaultDialWait     = 30 * time.Second // a viewer's deadline to reach ServerInit
	defaultDialBackoff  = 100 * time.Millisecond
	maxDialBackoff      = 2 * time.Second
)

// DialPolicy bounds and retries the relay's handshakes with a computer's
// Xvnc. Zero values take the defaults.
type DialPolicy struct {
	// InFlight is the most relay→Xvnc handshakes (connect to ServerInit)
	// in flight to one computer at a time: DefaultDialInFlight. Until a
	// handshake has succeeded (at start, and after Xvnc refused the
	// password) only one is in flight, so a wrong password is tried once,
	// never by a crowd.
	InFlight int
	// Queue is how many viewers of one computer may wait for a turn with
	// their WebSocket open: DefaultDialQueue. One more is closed at once
	// with 1013 (try again later).
	Queue int
	// Wait is each viewer's deadline, counted from its WebSocket opening,
	// to have the relay's handshake with Xvnc done: queueing and retries
	// included. DefaultDialWait. A viewer not served by then is closed with
	// 1013 and a reason saying so.
	Wait time.Duration
	// Backoff is the delay before the first retry of a refusal that is not
	// about the password or a timeout; it doubles (with jitter) up to 2 s.
	// defaultDialBackoff.
	Backoff time.Duration
}

func (p DialPolicy) withDefaults() DialPolicy {
	p.InFlight = positiveOr(p.InFlight, DefaultDialInFlight)
	p.Queue = positiveOr(p.Queue, DefaultDialQueue)
	p.Wait = positiveOr(p.Wait, DefaultDialWait)
	p.Backoff = positiveOr(p.Backoff, defaultDialBackoff)
	return p
}

// positiveOr is v, or def when v is not positive.
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// DialStats counts one computer's relay→Xvnc handshakes.
type DialStats struct {
	Handshakes   int64 // reached ServerInit
	Retries      int64 // attempts repeated after a blacklist refusal or a timeout
	Blacklisted  int64 // attempts Xvnc turned away before authentication
	Timeouts     int64 // attempts that timed out connecting or in the handshake
	AuthFailures int64 // attempts where Xvnc refused the password (never retried)
	QueueFull    int64 // viewers closed because the queue was full
	Expired      int64 // viewers closed because their deadline passed
	Waits        int64 // viewers that waited in line for a slot
	MaxInFlight  int   // the most handshakes in flight at once so far
}

// Dial attempt results: glass_dial_attempts_total's result label, and
// the DialStats counter an attempt adds to (dialResult).
const (
	dialOK          = "ok"
	dialAuth        = "auth_failed"
	dialBlacklisted = "blacklisted"
	dialTimeout     = "timeout"
	dialUnreachable = "unreachable"
	dialHandshake   = "handshake_failed"
)

// dialResult classifies a handshake attempt's outcome: the one place a
// dial error becomes a metric's reason and a counter.
func dialResult(err error) string {
	var re *RefusedError
	var ce *connectError
	switch {
	case err == nil:
		return dialOK
	case errors.Is(err, ErrAuthFailed):
		return dialAuth
	case errors.As(err, &re) && re.IsBlacklist():
		return dialBlacklisted
	case isTimeout(err):
		return dialTimeout
	case errors.As(err, &ce):
		return dialUnreachable
	}
	return dialHandshake
}

// countAttempt adds an attempt that ended with result to its counter.
func (s *DialStats) countAttempt(result string) {
	switch result {
	case dialOK:
		s.Handshakes++
	case dialAuth:
		s.AuthFailures++
	case dialBlacklisted:
		s.Blacklisted++
	case dialTimeout:
		s.Timeouts++
	}
}

// Errors of a dial that did not reach ServerInit.
var (
	// ErrDialQueueFull: DialPolicy.Queue viewers already wait for a turn.
	ErrDialQueueFull = errors.New("rfbgate: too many viewers waiting to connect")
	// ErrDialDeadline: the viewer's deadline passed before its turn or
	// between retries.
	ErrDialDeadline = errors.New("rfbgate: viewer not served before its deadline")
)

// dialLimiter is one computer's handshake slots and its FIFO of waiters.
type dialLimiter struct {
	mu       sync.Mutex
	limit    int
	queueMax int
	inFlight int
	proven   bool // a handshake succeeded since the start or the last password refusal
	waiters  []*dialWaiter
	stats    DialStats
}

type dialWaiter struct {
	ready   chan struct{}
	granted bool
}

func newDialLimiter(p DialPolicy) *dialLimiter {
	return &dialLimiter{limit: p.InFlight, queueMax: p.Queue}
}

// capLocked is the number of slots: one until the password is proven.
func (l *dialLimiter) capLocked() int {
	if !l.proven {
		return 1
	}
	return l.limit
}

// acquire takes a slot, waiting in line until ctx ends.
func (l *dialLimiter) acquire(ctx context.Context) error {
	l.mu.Lock()
	if len(l.waiters) == 0 && l.inFlight < l.capLocked() {
		l.takeLocked()
		l.mu.Unlock()
		return nil
	}
	if len(l.waiters) >= l.queueMax {
		l.stats.QueueFull++
		l.mu.Unlock()
		return ErrDialQueueFull
	}
	w := &dialWaiter{ready: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.stats.Waits++
	l.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	l.leave(w)
	return ErrDialDeadline
}

// leave takes w, whose context ended, out of the line; a slot granted to
// it at that moment passes on.
func (l *dialLimiter) leave(w *dialWaiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted {
		l.inFlight--
		l.grantLocked()
		return
	}
	for i, x := range l.waiters {
		if x == w {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			return
		}
	}
}

func (l *dialLimiter) takeLocked() {
	l.inFlight++
	l.stats.MaxInFlight = max(l.stats.MaxInFlight, l.inFlight)
}

// grantLocked hands free slots to the longest waiters.
func (l *dialLimiter) grantLocked() {
	for len(l.waiters) > 0 && l.inFlight < l.capLocked() {
		w := l.waiters[0]
		l.waiters[0] = nil
		l.waiters = l.waiters[1:]
		w.granted = true
		l.takeLocked()
		close(w.ready)
	}
}

// release gives a slot back; proven says whether the password is known
// good now (true after a success, false after a password refusal,
// unchanged otherwise: nil).
func (l *dialLimiter) release(proven *bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	if proven != nil {
		l.proven = *proven
	}
	l.grantLocked()
}

func (l *dialLimiter) count(f func(*DialStats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// DialStats returns agent's handshake counters (zero for an unknown agent).
func (r *Relay) DialStats(agent string) DialStats {
	l := r.dialers[agent]
	if l == nil {
		return DialStats{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// connectError is a failure to open the TCP connection.
type connectError struct{ err error }

func (e *connectError) Error() string { return "connect: " + e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// retryable reports whether a failed attempt is worth repeating: a
// blacklist refusal, or a timeout connecting or waiting for the server's
// ProtocolVersion (Xvnc's backlog was full). A password refusal, a refused
// connection or any other handshake failure is final.
func retryable(err error) bool {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.IsBlacklist()
	}
	var ce *connectError
	if errors.As(err, &ce) {
		return isTimeout(ce.err)
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		return he.Step == "ProtocolVersion" && isTimeout(he.Err)
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dialAttempt opens one connection to comp and runs the handshake, bounded
// by HandshakeTimeout and the viewer's deadline.
func (r *Relay) dialAttempt(ctx context.Context, comp Computer, deadline time.Time) (net.Conn, *ServerInit, error) {
	end := time.Now().Add(r.cfg.HandshakeTimeout)
	if deadline.Before(end) {
		end = deadline
	}
	dctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	var d net.Dialer
	server, err := d.DialContext(dctx, "tcp", comp.Addr)
	if err != nil {
		return nil, nil, &connectError{err}
	}
	server.SetDeadline(end)
	init, err := ClientHandshake(server, comp.Password)
	if err != nil {
		server.Close()
		return nil, nil, err
	}
	server.SetDeadline(time.Time{})
	return server, init, nil
}

// dialOnce runs one handshake with comp's Xvnc in a slot of l the caller
// has taken, for a viewer (dialComputer) or a check (Check), and does the
// bookkeeping of every attempt: it counts it by result (DialStats and
// glass_dial_attempts_total), holds off dialling after a password
// refusal, records whether the password is proven, and gives the slot
// back.
func (r *Relay) dialOnce(ctx context.Context, comp Computer, l *dialLimiter, deadline time.Time) (net.Conn, *ServerInit, error) {
	server, init, err := r.dialAttempt(ctx, comp, deadline)
	result := dialResult(err)
	r.metrics.dialAttempt(comp.Name, result)
	var proven *bool
	switch result {
	case dialOK:
		proven = ptr(true)
	case dialAuth:
		// Hold off before the slot passes on, so no viewer waiting for it
		// tries the refused password again.
		r.mu.Lock()
		r.authHold[comp.Name] = time.Now().Add(authHoldOff)
		r.mu.Unlock()
		proven = ptr(false)
	}
	l.count(func(s *DialStats) { s.countAttempt(result) })
	l.release(proven)
	return server, init, err
}

// dialComputer connects a viewer to comp's Xvnc: it waits its turn in the
// computer's limiter, retries refusals that are not about the password
// with backoff until the viewer's deadline, and returns the connection
// after ServerInit. On failure it has logged why and closed ws with a
// reason (1013 for all but a closing relay).
func (r *Relay) dialComputer(ctx context.Context, ws viewerCloser, comp Computer, log *slog.Logger) (net.Conn, *ServerInit, bool) {
	p := r.cfg.Dial
	l := r.dialers[comp.Name]
	deadline := time.Now().Add(p.Wait)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	backoff := p.Backoff
	var last error
	for attempt := 1; ; attempt++ {
		if r.authHeld(comp.Name, log) {
			ws.Close(websocket.StatusTryAgainLater, reasonAuthHeld)
			return nil, nil, false
		}
		if err := l.acquire(ctx); err != nil {
			r.dialGiveUp(ws, l, comp, log, err, last, attempt)
			return nil, nil, false
		}
		if r.authHeld(comp.Name, log) { // a viewer ahead was refused the password
			l.release(nil)
			ws.Close(websocket.StatusTryAgainLater, reasonAuthHeld)
			return nil, nil, false
		}
		server, init, err := r.dialOnce(ctx, comp, l, deadline)
		if err == nil {
			r.setHealth(comp.Name, nil)
			return server, init, true
		}
		if !retryable(err) {
			r.setHealth(comp.Name, err)
			r.dialFailed(ws, comp, log, err)
			return nil, nil, false
		}
		last = err
		wait := backoff/2 + rand.N(backoff/2+1)
		backoff = min(2*backoff, maxDialBackoff)
		if ctx.Err() != nil || time.Now().Add(wait).After(deadline) {
			r.dialGiveUp(ws, l, comp, log, ErrDialDeadline, last, attempt)
			return nil, nil, false
		}
		log.Info("rfbgate: VNC server turned the relay away before authentication (not a password failure); retrying", "addr", comp.Addr, "attempt", attempt, "in", wait, "err", err)
		l.count(func(s *DialStats) { s.Retries++ })
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			r.dialGiveUp(ws, l, comp, log, ErrDialDeadline, last, attempt)
			return nil, nil, false
		}
	}
}

// viewerCloser closes a viewer whose dial failed: its WebSocket, or a
// hub's record of the close for every viewer waiting on its dial.
type viewerCloser interface {
	Close(code websocket.StatusCode, reason string) error
}

func ptr[T any](v T) *T { return &v }

// authHeld reports (and logs) whether the relay is holding off comp after
// Xvnc refused its password.
func (r *Relay) authHeld(name string, log *slog.Logger) bool {
	r.mu.Lock()
	hold := r.authHold[name]
	r.mu.Unlock()
	if time.Now().Before(hold) {
		log.Warn("rfbgate: not dialling: the VNC server refused the password recently", "until", hold.Format(time.RFC3339))
		return true
	}
	return false
}

// Close reasons of a viewer whose dial failed for good, in words a page
// shows as they are.
const (
	reasonUnreachable = "glass cannot reach the computer's VNC server"
	reasonAuthRefused = "the computer refused the relay: it refused glass's VNC password"
	reasonAuthHeld    = "the computer refused the relay's VNC password; glass waits 30 s before trying again"
	reasonRefused     = "the computer refused the relay"
)

// dialFailed ends a viewer whose handshake failed for good.
func (r *Relay) dialFailed(ws viewerCloser, comp Computer, log *slog.Logger, err error) {
	var ce *connectError
	if errors.As(err, &ce) {
		log.Warn("rfbgate: cannot reach the VNC server", "addr", comp.Addr, "err", ce.err)
		ws.Close(websocket.StatusTryAgainLater, reasonUnreachable)
		return
	}
	log.Warn("rfbgate: VNC handshake failed", "addr", comp.Addr, "err", err)
	if errors.Is(err, ErrAuthFailed) {
		ws.Close(websocket.StatusTryAgainLater, reasonAuthRefused)
		return
	}
	ws.Close(websocket.StatusTryAgainLater, reasonRefused)
}

// dialGiveUp ends a viewer that found the queue full or whose deadline
// passed; last is the attempt's error that was being retried, if any.
func (r *Relay) dialGiveUp(ws viewerCloser, l *dialLimiter, comp Computer, log *slog.Logger, err, last error, attempts int) {
	if r.ctx.Err() != nil {
		ws.Close(websocket.StatusGoingAway, "relay closing")
		return
	}
	if errors.Is(err, ErrDialQueueFull) {
		log.Warn("rfbgate: too many viewers waiting to connect; viewer turned away", "addr", comp.Addr, "queue", r.cfg.Dial.Queue)
		ws.Close(websocket.StatusTryAgainLater, fmt.Sprintf("computer busy: %d viewers already waiting to connect", r.cfg.Dial.Queue))
		return
	}
	l.count(func(s *DialStats) { s.Expired++ })
	if last != nil {
		log.Warn("rfbgate: VNC server kept turning the relay away (not a password failure); viewer not served before its deadline", "addr", comp.Addr, "attempts", attempts, "wait", r.cfg.Dial.Wait, "err", last)
		ws.Close(websocket.StatusTryAgainLater, fmt.Sprintf("computer busy: not connected within %v, try again", r.cfg.Dial.Wait))
		return
	}
	log.Warn("rfbgate: viewer waited its whole deadline for a turn to connect", "addr", comp.Addr, "wait", r.cfg.Dial.Wait)
	ws.Close(websocket.StatusTryAgainLater, fmt.Sprintf("computer busy: no turn to connect within %v, try again", r.cfg.Dial.Wait))
}
