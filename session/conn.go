package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/wirebench/wirebench/codec"
)

// ErrNotConnected is returned by calls that need a completed handshake
// when it is not complete yet.
var ErrNotConnected = errors.New("session: the handshake is not complete")

// ErrNotPending is returned by Agent.Respond and Agent.Fail for a request
// that is not waiting for an answer: already answered, expired (its late
// answer is dropped), or never received.
var ErrNotPending = errors.New("session: request is not pending")

type phase uint8

const (
	phaseHandshake phase = iota
	phaseOpen
	phaseClosed
)

// conn is what both ends share: the frame splitter, the outgoing bytes,
// liveness and the clock's high-water mark.
type conn struct {
	split  *codec.Splitter
	limit  uint32 // the sending limit
	out    []byte // bytes waiting for PollTransmit
	spare  []byte // the buffer PollTransmit returned last
	live   liveness
	now    time.Time // the latest time passed in
	phase  phase
	closed *codec.Error // why the session closed, once it has
}

func (c *conn) init(limit uint32, now time.Time) {
	c.split = codec.NewSplitter(limit)
	c.limit = limit
	c.now = now
	c.live.hear(now)
}

// clock returns now, or the latest time already seen if now is earlier.
func (c *conn) clock(now time.Time) time.Time {
	if now.Before(c.now) {
		return c.now
	}
	c.now = now
	return now
}

// open reports whether the session is still open and, if it is, moves the
// clock to now (see clock) and returns the time to use: every call from
// the application starts with it.
func (c *conn) open(now time.Time) (time.Time, bool) {
	if c.phase == phaseClosed {
		return now, false
	}
	return c.clock(now), true
}

// peerClosed says what the peer's end of stream did: "the agent closed
// the connection", and where a frame was cut short, that it was.
func (c *conn) peerClosed(peer string) string {
	what := "the " + peer + " closed the connection"
	if c.split.Mid() {
		what += " in the middle of a frame"
	}
	return what
}

// setLimit applies a negotiated frame limit both ways.
func (c *conn) setLimit(limit uint32) {
	c.limit = limit
	c.split.SetLimit(limit)
}

// send queues m as one frame, refusing it (and queueing nothing) when it
// exceeds the sending limit.
func (c *conn) send(m codec.Message) error {
	out, err := codec.AppendFrame(c.out, m, c.limit)
	c.out = out
	return err
}

// pollTransmit hands out the queued bytes; they stay valid until the next
// call into the session.
func (c *conn) pollTransmit() []byte {
	if len(c.out) == 0 {
		return nil
	}
	b := c.out
	c.out, c.spare = c.spare[:0], b
	return b
}

// frameSink receives what the splitter cuts from the stream.
type frameSink interface {
	// frame handles a decoded message.
	frame(now time.Time, m codec.Message)
	// bad handles a frame that cannot be read: err is the
	// *codec.FrameTooLargeError of a frame over the limit, whose payload
	// was discarded, or the decoding error of one that does not decode;
	// env is what its first bytes tell and size its payload length.
	bad(now time.Time, env codec.Envelope, size uint64, err error)
}

// feed cuts b into frames and hands them to sink until b is used up or
// the session closes.
func (c *conn) feed(now time.Time, b []byte, sink frameSink) {
	for len(b) > 0 && c.phase != phaseClosed {
		st := c.split.Feed(b)
		b = b[st.N:]
		if st.N > st.Discarded {
			c.live.hear(now)
		}
		switch st.Kind {
		case codec.GotFrame:
			// Decode copies the payload into memory the message owns, and
			// the pooled buffer goes back for the next frame.
			if m, err := codec.Decode(st.Frame.Payload); err != nil {
				sink.bad(now, codec.PeekEnvelope(st.Frame.Payload), uint64(len(st.Frame.Payload)), err)
			} else {
				sink.frame(now, m)
			}
			st.Frame.Release()
		case codec.GotOversized:
			o := *st.Oversized
			sink.bad(now, o.Envelope, o.Size, &o)
		}
	}
}

// close moves the session to its closed phase with err as the reason.
func (c *conn) close(err *codec.Error) {
	c.phase = phaseClosed
	c.closed = err
	c.split.Reset()
}

// timeout is the earliest of the liveness timers.
func (c *conn) timeout() (time.Time, bool) {
	if c.phase == phaseClosed {
		return time.Time{}, false
	}
	at := c.live.silentAt()
	if c.phase == phaseOpen {
		if p, ok := c.live.pingAt(); ok && p.Before(at) {
			at = p
		}
	}
	return at, true
}

// liveness fires the liveness timers due at now: it reports true when the
// session has been silent too long, and queues a ping when one is due.
func (c *conn) checkLiveness(now time.Time) (silent bool) {
	if !now.Before(c.live.silentAt()) {
		return true
	}
	if c.phase == phaseOpen {
		if p, ok := c.live.pingAt(); ok && !now.Before(p) {
			_ = c.send(&codec.Ping{Nonce: c.live.ping()})
		}
	}
	return false
}

// ping answers handles the liveness messages both sides treat alike; it
// reports whether m was one.
func (c *conn) pingPong(m codec.Message) bool {
	switch m := m.(type) {
	case *codec.Ping:
		_ = c.send(&codec.Pong{Nonce: m.Nonce})
		return true
	case *codec.Pong:
		return true
	}
	return false
}

// skipped is the error of a frame a side skips: side is "host" or
// "agent", the rest as for frameSink.bad.
func skipped(side string, env codec.Envelope, size uint64, err error) error {
	if big, ok := err.(*codec.FrameTooLargeError); ok {
		what := "a frame"
		if env.Kind.Ok {
			what = "a " + env.Kind.Val.String() + " frame"
		}
		return fmt.Errorf("session: %s skipped %s of %d bytes over the frame limit of %d", side, what, size, big.Limit)
	}
	return fmt.Errorf("session: %s skipped a frame of %d bytes that does not decode: %w", side, size, err)
}
