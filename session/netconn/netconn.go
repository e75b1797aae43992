// Package netconn runs a session.Host or a session.Agent over a net.Conn:
// the I/O and the clock that package session leaves to its caller.
//
// A Conn reads the connection in a goroutine of its own and hands what it
// reads to the session, writes whatever the session has to send, and
// fires the session's timers when PollTimeout says. All of that happens
// in Run, on the caller's goroutine, which is the only one that touches
// the session: between two waits Run calls the caller's step function,
// which reads the session's events, makes requests or answers them, and
// says when it is done. Other goroutines reach the session through Post.
//
//	d := netconn.New(c, host)
//	defer d.Close()
//	err := d.Run(ctx, func() bool {
//		for ev, ok := host.PollEvent(); ok; ev, ok = host.PollEvent() {
//			// ... handle ev ...
//		}
//		return finished
//	})
package netconn

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Session is what a *session.Host and a *session.Agent have in common
// for a driver.
type Session interface {
	Receive(now time.Time, b []byte)
	EndOfStream(now time.Time)
	HandleTimeout(now time.Time)
	PollTransmit() []byte
	PollTimeout() (time.Time, bool)
	Close(now time.Time)
}

// readSize is the size of each read from the connection.
const readSize = 64 << 10

// postQueue is how many posted functions wait for Run before Post blocks.
const postQueue = 64

// Conn drives one session over one connection.
type Conn struct {
	c     net.Conn
	s     Session
	now   func() time.Time
	reads chan read
	posts chan func()
	quit  chan struct{}
	stop  sync.Once
	timer *time.Timer
	ended bool // the end of the stream (or a read error) was handed to the session
}

// read is one read from the connection: bytes, or the error that ended
// the stream.
type read struct {
	b   []byte
	err error
}

// New returns a Conn that drives s over c, and starts reading c. The
// caller then calls Run, and Close when done.
func New(c net.Conn, s Session) *Conn {
	d := &Conn{c: c, s: s, now: time.Now, reads: make(chan read), posts: make(chan func(), postQueue), quit: make(chan struct{})}
	go d.readLoop()
	return d
}

// readLoop reads c until it fails, handing each read to Run.
func (d *Conn) readLoop() {
	buf := make([]byte, readSize)
	for {
		n, err := d.c.Read(buf)
		var rd read
		if n > 0 {
			rd.b = append([]byte(nil), buf[:n]...)
		} else if err != nil {
			rd.err = err
		} else {
			continue
		}
		select {
		case d.reads <- rd:
		case <-d.quit:
			return
		}
		if rd.err != nil {
			return
		}
	}
}

// Run drives the session until step reports true, and returns nil then.
// Each round it writes what the session has to send, calls step, writes
// again, and waits for bytes from the connection, the session's timer, a
// posted function or the end of ctx. It returns ctx.Err() when ctx ends,
// the write's error when a write fails, and io.EOF (or the read's error)
// once the stream has ended and step still does not report true. The
// end of the stream is handed to the session (EndOfStream) first, so
// step sees the session close. A nil step never reports true.
func (d *Conn) Run(ctx context.Context, step func() bool) error {
	var endErr error
	for {
		if err := d.Flush(); err != nil {
			return err
		}
		if step != nil && step() {
			return d.Flush()
		}
		if err := d.Flush(); err != nil {
			return err
		}
		if d.ended {
			if endErr == nil {
				endErr = io.EOF
			}
			return endErr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case rd := <-d.reads:
			if rd.err != nil {
				d.ended = true
				if !errors.Is(rd.err, io.EOF) {
					endErr = rd.err
				}
				d.s.EndOfStream(d.now())
				continue
			}
			d.s.Receive(d.now(), rd.b)
		case <-d.timerC():
			d.s.HandleTimeout(d.now())
		case fn := <-d.posts:
			fn()
		}
	}
}

// Post has fn run by Run, on its goroutine, between two waits: the way
// for other goroutines to reach the session (send an event, answer a
// request). It blocks while postQueue functions wait already, and drops
// fn once the Conn is closed.
func (d *Conn) Post(fn func()) {
	select {
	case d.posts <- fn:
	case <-d.quit:
	}
}

// Flush writes what the session has to send, in one Write.
func (d *Conn) Flush() error {
	if b := d.s.PollTransmit(); len(b) > 0 {
		if _, err := d.c.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// timerC returns a channel that fires at the session's timeout, or nil
// when it has none.
func (d *Conn) timerC() <-chan time.Time {
	at, ok := d.s.PollTimeout()
	if !ok {
		return nil
	}
	wait := max(at.Sub(d.now()), 0)
	if d.timer == nil {
		d.timer = time.NewTimer(wait)
	} else {
		d.timer.Reset(wait)
	}
	return d.timer.C
}

// Close closes the session (unless the stream ended already), writes
// what it queued on closing as far as the connection takes it, and
// closes the connection, which ends the read goroutine. Call it from the
// goroutine that calls Run, once Run has returned.
func (d *Conn) Close() error {
	var err error
	d.stop.Do(func() {
		if !d.ended {
			d.s.Close(d.now())
			_ = d.c.SetWriteDeadline(d.now().Add(time.Second))
			_ = d.Flush()
		}
		close(d.quit)
		err = d.c.Close()
		if d.timer != nil {
			d.timer.Stop()
		}
	})
	return err
}
