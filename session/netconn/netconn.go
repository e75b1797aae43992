// Package netconn runs a session.Host or a session.Agent over a net.Conn:
// the I/O and the clock that package session leaves to its caller.
//
// A Conn reads the connection in a goroutine of its own and hands what it
// reads to the session, writes whatever the session has to send from
// another, and fires the session's timers when PollTimeout says. All of
// that is steered by Run, on the caller's goroutine, which is the only one
// that touches the session: between two waits Run calls the caller's
// step function, which reads the session's events, makes requests or
// answers them, and says when it is done. Other goroutines reach the
// session through Post.
//
// Writes never hold up the session: Run hands the writer one take of at
// most WriteChunk bytes (PollTransmitAt) at a time, and keeps reading and
// firing timers while a slow link takes it. What the session queues in
// the meantime waits in the session, where a ping or a pong goes ahead
// of the bulk, and where an agent's backlog limit pushes back on its
// producer (session.Agent.Writable). When the session's timer and bytes
// from the peer are both waiting, the bytes go first: a loop held up on a
// busy machine does not close a session as Silent whose peer did talk.
//
// Redialer keeps a host connected: it dials again after the session
// closes or a dial fails, with session.ResyncBackoff doubling to
// session.ResyncBackoffMax.
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
	"math"
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
	PollTransmitAt(now time.Time, max int) []byte
	PollTimeout() (time.Time, bool)
	Close(now time.Time)
}

// readSize is the size of each read from the connection.
const readSize = 64 << 10

// WriteChunk is the most a Conn asks the session for at a time
// (PollTransmitAt's max): whole frames up to 16 KiB, or one longer frame.
// A ping queued meanwhile waits for that write alone.
const WriteChunk = 16 << 10

// postQueue is how many posted functions wait for Run before Post blocks.
const postQueue = 64

// Conn drives one session over one connection.
type Conn struct {
	c      net.Conn
	s      Session
	now    func() time.Time
	reads  chan read
	posts  chan func()
	quit   chan struct{}
	stop   sync.Once
	timer  *time.Timer
	ended  bool  // the end of the stream (or a read or write error) was handed to the session
	endErr error // the read's or write's error that ended it; nil for io.EOF

	writes  chan []byte // one take for the writer
	wrote   chan error  // the writer's outcome of each take
	writing bool        // the writer has a take
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
	d := &Conn{c: c, s: s, now: time.Now, reads: make(chan read), posts: make(chan func(), postQueue), quit: make(chan struct{}),
		writes: make(chan []byte, 1), wrote: make(chan error, 1)}
	go d.readLoop()
	go d.writeLoop()
	return d
}

// writeLoop writes each take handed to it, reporting how it went.
func (d *Conn) writeLoop() {
	for {
		select {
		case b := <-d.writes:
			_, err := d.c.Write(b)
			d.wrote <- err // buffered: the one take's outcome
		case <-d.quit:
			return
		}
	}
}

// kick hands the writer the session's next take, when it has none.
func (d *Conn) kick() {
	if d.writing || d.ended {
		return
	}
	if b := d.s.PollTransmitAt(d.now(), WriteChunk); len(b) > 0 {
		d.writing = true
		d.writes <- b
	}
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
// Each round it hands the writer what the session has to send (when the
// writer is free), calls step, and waits for bytes from the connection,
// the end of a write, the session's timer, a posted function or the end
// of ctx. It returns ctx.Err() when ctx ends, and io.EOF (or the read's
// or the write's error) once the stream has ended and step still does
// not report true. The end of the stream, or a failed write, is handed to
// the session (EndOfStream) first, so step sees the session close. A nil
// step never reports true. What the session queued and the writer has
// not taken yet stays queued for the next Run or for Close.
func (d *Conn) Run(ctx context.Context, step func() bool) error {
	for {
		d.kick()
		if step != nil && step() {
			d.kick()
			return nil
		}
		d.kick()
		if d.ended {
			if d.endErr == nil {
				return io.EOF
			}
			return d.endErr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case rd := <-d.reads:
			d.receive(rd)
		case err := <-d.wrote:
			d.writing = false
			if err != nil {
				d.end(err)
			}
		case <-d.timerC():
			// Bytes already read are heard before the timers fire: a
			// loop that was held up (a busy machine) must not close the
			// session as Silent with the peer's bytes waiting for it.
			for waiting := true; waiting && !d.ended; {
				select {
				case rd := <-d.reads:
					d.receive(rd)
				default:
					waiting = false
				}
			}
			d.s.HandleTimeout(d.now())
		case fn := <-d.posts:
			fn()
		}
	}
}

// receive hands one read to the session: its bytes, or the end of the
// stream.
func (d *Conn) receive(rd read) {
	if rd.err != nil {
		d.end(rd.err)
		return
	}
	d.s.Receive(d.now(), rd.b)
}

// end hands the end of the stream to the session: err is the read's or
// the write's error that ended it (io.EOF for a plain end).
func (d *Conn) end(err error) {
	if d.ended {
		return
	}
	d.ended = true
	if !errors.Is(err, io.EOF) {
		d.endErr = err
	}
	d.s.EndOfStream(d.now())
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

// Flush writes everything the session has to send and returns once it is
// written (or a write failed, with its error): it first waits for the
// take the writer has. Call it from the goroutine that calls Run, between
// two Runs.
func (d *Conn) Flush() error {
	if d.writing {
		d.writing = false
		if err := <-d.wrote; err != nil {
			return err
		}
	}
	// math.MaxInt, not 0 (everything in one slice): the control frames
	// and the bulk come as two takes, so the session does not copy them
	// into one buffer first.
	for b := d.s.PollTransmitAt(d.now(), math.MaxInt); len(b) > 0; b = d.s.PollTransmitAt(d.now(), math.MaxInt) {
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
		// A take the writer still has is cut short by closing c.
		close(d.quit)
		err = d.c.Close()
		if d.timer != nil {
			d.timer.Stop()
		}
	})
	return err
}
