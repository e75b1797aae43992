package netconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/session"
)

// RedialConfig configures a Redialer.
type RedialConfig struct {
	// Dial opens a connection to the agent (required). It should give up
	// on its own after a while (net.Dialer.Timeout), and when ctx ends.
	Dial func(ctx context.Context) (net.Conn, error)
	// Host configures each connection's session; the n-th connection's
	// session id is Host.Session + n - 1.
	Host session.HostConfig
	// Once turns redialing off: Run returns once the first dial fails
	// or the first session closes.
	Once bool
}

// Attempt reports one dial to the agent. N counts the dials since the
// last successful handshake, from 1. Err is why it failed: the dial's
// error, or for a connection that closed before its handshake completed,
// the session's (nil when the dial worked; a *session.Connected follows
// once the handshake completes). Retry is the wait before the next
// dial after a failure (0 when there is none: redialing is off).
type Attempt struct {
	N     int
	Err   error
	Retry time.Duration
}

// Redialing reports that a session which completed its handshake has
// closed (its *session.Closed came just before) and that the Redialer
// dials again after Retry.
type Redialing struct {
	Retry time.Duration
}

// Restored reports the outcome of a request a Redialer sent itself after
// a reconnection to restore what the host had subscribed: frames_start
// with the parameters of the last one that succeeded (Err nil when it
// succeeded again), or a resync of a lossless stream, whose success is
// also the session's *session.InSync.
type Restored struct {
	Method codec.Method
	Stream codec.Stream
	Err    *codec.Error
}

// Redialer keeps a session.Host connected to an agent: it dials, runs the
// session over the connection with a Conn, and when the session closes
// (Silent, the end of the stream, a failed write) or a dial fails, it
// dials again after session.Backoff(n) for the n-th failure in a row:
// 100 ms doubling to 5 s, reset by a completed handshake. A session whose
// handshake was refused (bad token, no common version) or that the host
// closed itself ends Run instead.
//
// Every new session starts with a fresh hello and welcome. Requests in
// flight when a session closes fail with disconnected; requests made
// while there is no connected session fail at once with disconnected
// (retryable) and a message saying when the next dial is. Once
// reconnected, the Redialer restores what the host had subscribed, as
// docs/protocol.md section 10.5 says: it sends frames_start again with
// the parameters of the last one that succeeded (unless frames_stop
// followed), and resyncs each lossless stream the host had received
// events on, so the caller re-reads what it derived from them (InSync).
//
// A Redialer, like the session it drives, belongs to the goroutine that
// calls Run: Request, PollEvent and Host are for that goroutine (from
// step, or between two Runs).
type Redialer struct {
	cfg     RedialConfig
	h       *session.Host
	d       *Conn
	events  []any
	fails   int             // failures in a row since the last handshake
	dials   int             // dials since the last handshake
	next    time.Time       // when the next dial is due
	conns   uint64          // connections made
	welcome bool            // the current session completed its handshake
	closed  *session.Closed // the current session's close, until hangUp
	last    error           // why the last session closed or dial failed

	frames   *codec.FramesStartParams // the frames subscription to restore
	lossless []codec.Stream           // lossless streams seen
	starts   map[uint64]*codec.FramesStartParams
	stops    map[uint64]bool
	own      map[uint64]codec.Stream // requests the Redialer sent itself, by id
	stopped  error                   // why Run must not dial again
}

// NewRedialer returns a Redialer; Run dials.
func NewRedialer(cfg RedialConfig) *Redialer {
	return &Redialer{cfg: cfg}
}

// ErrRedialStopped is matched by the error Run returns when a session
// closed in a way no redial fixes (a refused handshake, a local close) or
// redialing is off.
var ErrRedialStopped = errors.New("netconn: not redialing")

// Connected reports whether a session is connected (past its handshake).
func (r *Redialer) Connected() bool { return r.h != nil && r.h.Connected() }

// PollEvent returns the next event: a session.HostEvent of the current
// session, an *Attempt, a *Redialing or a *Restored.
func (r *Redialer) PollEvent() (any, bool) {
	if len(r.events) == 0 {
		return nil, false
	}
	e := r.events[0]
	r.events[0] = nil
	r.events = r.events[1:]
	return e, true
}

// Request sends a request on the current session, as session.Host.Request
// does. While no session is connected it fails at once with a
// disconnected error (retryable) whose message says why and when the next
// dial is; nothing is sent.
func (r *Redialer) Request(now time.Time, m codec.Method, p codec.Params, deadline time.Duration) (uint64, error) {
	if !r.Connected() {
		return 0, r.disconnected(now, m)
	}
	if p == nil {
		p = codec.ParamsFor(m) // what the session sends for nil, and what a restore sends again
	}
	id, err := r.h.Request(now, m, p, deadline)
	if err != nil {
		return id, err
	}
	switch p := p.(type) {
	case *codec.FramesStartParams:
		r.starts[id] = p
	case *codec.FramesStopParams:
		r.stops[id] = true
	}
	return id, nil
}

func (r *Redialer) disconnected(now time.Time, m codec.Method) *codec.Error {
	why := "not connected to the agent yet"
	closing := r.closed != nil // closed, not hung up yet
	switch {
	case closing:
		why = "not connected to the agent (" + r.closed.Err.Error() + ")"
	case r.last != nil:
		why = "not connected to the agent (" + r.last.Error() + ")"
	}
	switch {
	case r.stopped != nil:
		why += "; not redialing"
	case closing:
		why += "; redialing after a backoff"
	case r.h != nil:
		why += "; the handshake is under way"
	case r.next.After(now):
		why += fmt.Sprintf("; redialing in %v", r.next.Sub(now).Round(time.Millisecond))
	default:
		why += "; redialing now"
	}
	return codec.NewError(codec.CodeDisconnected, fmt.Sprintf("%s not sent: %s; send it again once reconnected", m, why))
}

// Run keeps the host connected until step reports true (nil), ctx ends
// (ctx.Err()) or redialing stops (an error matched by ErrRedialStopped,
// wrapping the last failure). step runs as it does for Conn.Run, and
// also between dials; a nil step never reports true.
func (r *Redialer) Run(ctx context.Context, step func() bool) error {
	userDone := false
	inner := func() bool {
		r.drain(time.Now())
		if step != nil && step() {
			userDone = true
			return true
		}
		return r.closed != nil
	}
	for {
		if r.stopped != nil {
			// step sees the events that led here before Run returns.
			if inner() && userDone {
				return nil
			}
			return r.stopped
		}
		if r.d == nil {
			if inner() {
				if userDone {
					return nil
				}
			}
			if err := r.waitDial(ctx, inner); err != nil || userDone {
				return err
			}
			if r.d == nil {
				continue
			}
		}
		err := r.d.Run(ctx, inner)
		if userDone {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.closed == nil && err != nil {
			// The stream ended before step saw the session close.
			r.drain(time.Now())
		}
		r.hangUp(time.Now())
	}
}

// waitDial waits until the next dial is due (running step while it
// waits), then dials once.
func (r *Redialer) waitDial(ctx context.Context, step func() bool) error {
	if wait := time.Until(r.next); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if step() {
			return nil
		}
	}
	r.dials++
	c, err := r.cfg.Dial(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.fail(time.Now(), err)
		return nil
	}
	r.conns++
	cfg := r.cfg.Host
	cfg.Session += r.conns - 1
	r.h = session.NewHost(cfg, time.Now())
	r.d = New(c, r.h)
	r.welcome, r.closed = false, nil
	r.starts, r.stops, r.own = map[uint64]*codec.FramesStartParams{}, map[uint64]bool{}, map[uint64]codec.Stream{}
	r.events = append(r.events, &Attempt{N: r.dials})
	return nil
}

// fail counts a failed dial, or a connection that closed before its
// handshake completed, and sets the next dial.
func (r *Redialer) fail(now time.Time, err error) {
	r.fails++
	r.last = err
	a := &Attempt{N: r.dials, Err: err}
	if r.cfg.Once {
		r.stopped = fmt.Errorf("%w: %w", ErrRedialStopped, err)
	} else {
		a.Retry = session.Backoff(r.fails)
		r.next = now.Add(a.Retry)
	}
	r.events = append(r.events, a)
}

// hangUp closes the current connection after its session closed (or its
// stream ended) and decides whether, and when, to dial again.
func (r *Redialer) hangUp(now time.Time) {
	r.d.Close()
	// The closed session goes with its connection: Run's step reads a
	// close as the current session's, and there is none until the next
	// dial.
	cl := r.closed
	r.d, r.h, r.closed = nil, nil, nil
	var err error = errors.New("the connection ended")
	if cl != nil {
		err = cl.Err
	}
	switch {
	case cl != nil && (cl.Reason == session.CloseRejected || cl.Reason == session.CloseLocal):
		r.last = err
		r.stopped = fmt.Errorf("%w: %w", ErrRedialStopped, err)
	case !r.welcome:
		r.fail(now, err)
	case r.cfg.Once:
		r.last = err
		r.stopped = fmt.Errorf("%w: %w", ErrRedialStopped, err)
	default:
		r.last = err
		r.fails, r.dials = 1, 0
		wait := session.Backoff(r.fails)
		r.next = now.Add(wait)
		r.events = append(r.events, &Redialing{Retry: wait})
	}
}

// drain moves the session's events to the Redialer's queue, noting what
// it restores after a reconnection.
func (r *Redialer) drain(now time.Time) {
	if r.h == nil {
		return
	}
	for e, ok := r.h.PollEvent(); ok; e, ok = r.h.PollEvent() {
		switch e := e.(type) {
		case *session.Connected:
			r.welcome, r.fails, r.dials = true, 0, 0
			r.events = append(r.events, e)
			r.restore(now)
			continue
		case *session.Completed:
			if s, ok := r.own[e.ID]; ok {
				delete(r.own, e.ID)
				if e.Method == codec.MethodFramesStart && e.Err != nil {
					r.frames = nil
				}
				r.events = append(r.events, &Restored{Method: e.Method, Stream: s, Err: e.Err})
				continue
			}
			if p, ok := r.starts[e.ID]; ok {
				delete(r.starts, e.ID)
				if e.Err == nil {
					r.frames = p
				}
			}
			if r.stops[e.ID] {
				delete(r.stops, e.ID)
				if e.Err == nil {
					r.frames = nil
				}
			}
		case *session.StreamEvent:
			r.seen(e.Event.Stream)
		case *session.OutOfSync:
			r.seen(e.Stream)
		case *session.Closed:
			r.closed = e
		}
		r.events = append(r.events, e)
	}
}

// seen notes a lossless stream the host received events on.
func (r *Redialer) seen(s codec.Stream) {
	if s.Lossy() {
		return
	}
	for _, x := range r.lossless {
		if x == s {
			return
		}
	}
	r.lossless = append(r.lossless, s)
}

// restore sends what a new session needs to carry on the old one's
// subscriptions.
func (r *Redialer) restore(now time.Time) {
	if r.frames != nil {
		if id, err := r.h.Request(now, codec.MethodFramesStart, r.frames, 0); err == nil {
			r.own[id] = codec.StreamFrames
		} else {
			r.events = append(r.events, &Restored{Method: codec.MethodFramesStart, Stream: codec.StreamFrames, Err: session.AsProtoError(err)})
		}
	}
	for _, s := range r.lossless {
		if id, err := r.h.Resync(now, s, 0); err == nil {
			r.own[id] = s
		} else {
			r.events = append(r.events, &Restored{Method: codec.MethodResync, Stream: s, Err: session.AsProtoError(err)})
		}
	}
}

// Close closes the current session and its connection, if there is one,
// as Conn.Close does, and ends redialing: a later Run returns an error
// matched by ErrRedialStopped. Call it from the goroutine that calls Run,
// once Run has returned.
func (r *Redialer) Close() error {
	if r.stopped == nil {
		r.stopped = fmt.Errorf("%w: the Redialer is closed", ErrRedialStopped)
	}
	if r.d == nil {
		return nil
	}
	err := r.d.Close()
	r.d, r.h, r.closed = nil, nil, nil
	return err
}
