package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// ErrNotConnected is returned by calls that need a completed handshake
// when it is not complete yet.
var ErrNotConnected = errors.New("session: the handshake is not complete")

// ErrNotPending is returned by Agent.Respond and Agent.Fail for a request
// that is not waiting for an answer: already answered, expired (its late
// answer is dropped), or never received.
var ErrNotPending = errors.New("session: request is not pending")

// ErrBackpressure is matched by the error of Agent.SendEvent for an event
// refused because the transmit backlog is at its limit.
var ErrBackpressure = errors.New("session: the transmit backlog is full")

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
	limit  uint32  // the sending limit
	tx     txQueue // frames waiting for PollTransmit
	live   liveness
	now    time.Time // the latest time passed in
	phase  phase
	closed *codec.Error // why the session closed, once it has
	end    end          // the host's or the agent's own handling
	trees  bool         // snapshot responses are read as codec.Trees (HostConfig.Trees)

	unknownKinds uint64 // messages of a kind this version does not know, skipped
}

// end is what differs between the two ends: what a frame does, and how
// the session closes.
type end interface {
	frameSink
	// shut closes the session for reason; what says why, for the
	// errors the closing gives.
	shut(reason CloseReason, what string)
}

func (c *conn) init(limit uint32, now time.Time, e end) {
	c.end = e
	c.split = codec.NewSplitter(limit)
	c.limit = limit
	c.now = now
	c.live.hear(now)
	c.live.sentAt = now
}

// withDefaults fills in what both configs leave to the package when unset:
// every version it speaks, and schema.DefaultMaxFrame.
func withDefaults(versions []uint32, maxFrame uint32) ([]uint32, uint32) {
	if versions == nil {
		versions = Versions()
	}
	if maxFrame == 0 {
		maxFrame = schema.DefaultMaxFrame
	}
	return versions, maxFrame
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
// exceeds the sending limit. Pings and pongs go ahead of everything else
// not handed out yet.
func (c *conn) send(m codec.Message) error {
	return c.tx.queue(m, c.limit)
}

// sendPing queues a ping with nonce.
func (c *conn) sendPing(nonce uint64) error { return c.send(&codec.Ping{Nonce: nonce}) }

// frameSink receives what the splitter cuts from the stream.
type frameSink interface {
	// frame handles a decoded message that common did not take.
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
			if m, err := c.decode(st.Frame.Payload); err != nil {
				sink.bad(now, codec.PeekEnvelope(st.Frame.Payload), uint64(len(st.Frame.Payload)), err)
			} else if !c.common(m) {
				sink.frame(now, m)
			}
			st.Frame.Release()
		case codec.GotOversized:
			o := *st.Oversized
			sink.bad(now, o.Envelope, o.Size, &o)
		}
	}
}

// decode decodes a frame's payload into a message that owns its
// memory: with c.trees set, a snapshot response as the response of a
// codec.Tree (an error response to snapshot, and a snapshot DecodeTree
// refuses, go to Decode, which says what it is or what is wrong).
func (c *conn) decode(p []byte) (codec.Message, error) {
	if c.trees {
		if e := codec.PeekEnvelope(p); e.Kind == codec.Some(codec.KindResponse) && e.Method == codec.Some(codec.MethodSnapshot) {
			if t, err := codec.DecodeTree(p); err == nil {
				return t.Response(), nil
			}
		}
	}
	return codec.Decode(p)
}

// receive feeds b, read from the peer, to the open session.
func (c *conn) receive(now time.Time, b []byte) {
	if now, ok := c.open(now); ok {
		c.feed(now, b, c.end)
	}
}

// endOfStream closes the open session when the peer (named so in the
// reason) closed its end.
func (c *conn) endOfStream(now time.Time, peer string) {
	if _, ok := c.open(now); ok {
		c.end.shut(CloseEndOfStream, c.peerClosed(peer))
	}
}

// closeLocal closes the open session from this side.
func (c *conn) closeLocal(now time.Time, what string) {
	if _, ok := c.open(now); ok {
		c.end.shut(CloseLocal, what)
	}
}

// nextTimeout is the earliest of the liveness timers and the live timers
// of ts; there is none once the session is closed.
func (c *conn) nextTimeout(ts *timers, live func(timer) bool) (time.Time, bool) {
	at, ok := c.timeout()
	if !ok {
		return at, false
	}
	d, dok := ts.next(live)
	return earliest(at, ok, d, dok)
}

// fireTimers is the start of HandleTimeout on either side: on an open
// session it moves the clock to now, closes the session when the peer
// (named so in the reason) has been silent too long, and otherwise pops
// every timer of ts due at now, handing those live reports current to
// fire. It returns the time to use and whether the session is still open.
func (c *conn) fireTimers(now time.Time, peer string, ts *timers, live func(timer) bool, fire func(now time.Time, t timer)) (time.Time, bool) {
	if c.phase == phaseClosed {
		return now, false
	}
	now = c.clock(now)
	if c.checkLiveness(now) {
		c.end.shut(CloseSilent, fmt.Sprintf("nothing heard from the %s for %v", peer, SilentAfter))
		return now, false
	}
	for ts.len() > 0 {
		t, _ := ts.peek()
		if t.at.After(now) {
			break
		}
		ts.pop()
		if live(t) {
			fire(now, t)
		}
	}
	return now, c.phase != phaseClosed
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
			c.live.ping(now, c.sendPing)
		}
	}
	return false
}

// common handles the messages both sides treat alike (it answers a ping,
// takes a pong as the sign of life feed already noted, counts and skips a
// kind this version does not know) and reports whether m was one.
func (c *conn) common(m codec.Message) bool {
	switch m := m.(type) {
	case *codec.Ping:
		_ = c.send(&codec.Pong{Nonce: m.Nonce})
		return true
	case *codec.Pong:
		return true
	case *codec.UnknownKind:
		c.unknownKinds++
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
