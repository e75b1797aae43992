package session

import (
	"encoding/binary"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// DefaultMaxBacklog is the agent's backlog limit when its config leaves
// it at 0: 64 KiB of frames queued and not yet handed to the transport.
const DefaultMaxBacklog = 64 << 10

// compactAt is how far the bulk queue's head moves before the bytes
// after it are copied back to the front.
const compactAt = 64 << 10

// txQueue holds the frames a session has queued for PollTransmit, in two
// queues: control frames (ping and pong), which go out first, at the next
// frame boundary, and the rest (bulk) in the order they were queued.
// Both hold whole frames only. A slice PollTransmit returned stays valid
// until the next PollTransmit, whatever else is queued meanwhile: the
// bytes handed out are never written over before then.
type txQueue struct {
	ctl, ctlSpare   []byte
	bulk, bulkSpare []byte
	head            int    // bulk[head:] is not handed out yet
	joined          []byte // control and bulk frames handed out together
}

// queue appends one encoded frame to its queue.
func (q *txQueue) queue(m codec.Message, limit uint32) error {
	switch m.(type) {
	case *codec.Ping, *codec.Pong:
		out, err := codec.AppendFrame(q.ctl, m, limit)
		q.ctl = out
		return err
	}
	out, err := codec.AppendFrame(q.bulk, m, limit)
	q.bulk = out
	return err
}

// backlog is the number of queued bytes not handed out yet.
func (q *txQueue) backlog() int { return len(q.ctl) + len(q.bulk) - q.head }

// reclaim releases the bytes handed out by the previous take.
func (q *txQueue) reclaim() {
	switch {
	case q.head == len(q.bulk):
		q.bulk, q.head = q.bulk[:0], 0
	case q.head >= compactAt || q.head > len(q.bulk)/2:
		n := copy(q.bulk, q.bulk[q.head:])
		q.bulk, q.head = q.bulk[:n], 0
	}
}

// take hands out the next bytes to write: the control frames if any are
// queued, then bulk frames. max > 0 bounds a take of bulk frames to whole
// frames of at most max bytes in all (at least one frame, however long);
// max <= 0 hands out everything queued, control frames first. ctl reports
// whether the control frames went out.
func (q *txQueue) take(max int) (b []byte, ctl bool) {
	q.reclaim()
	rest := len(q.bulk) - q.head
	switch {
	case len(q.ctl) > 0 && max <= 0 && rest > 0:
		b = append(append(q.joined[:0], q.ctl...), q.bulk[q.head:]...)
		q.joined = b
		q.ctl, q.head = q.ctl[:0], len(q.bulk)
		return b, true
	case len(q.ctl) > 0:
		b = q.ctl
		q.ctl, q.ctlSpare = q.ctlSpare[:0], b
		return b, true
	case rest == 0:
		return nil, false
	case max <= 0 || rest <= max:
		if q.head == 0 {
			// All of it: swap buffers, so what is queued next goes to
			// the other one and the bytes handed out stay as they are.
			b = q.bulk
			q.bulk, q.bulkSpare = q.bulkSpare[:0], b
			return b, false
		}
		b = q.bulk[q.head:]
		q.head = len(q.bulk)
		return b, false
	}
	n := 0
	for q.head+n < len(q.bulk) {
		size := schema.HeaderLen + int(binary.BigEndian.Uint32(q.bulk[q.head+n:]))
		if n > 0 && n+size > max {
			break
		}
		n += size
	}
	b = q.bulk[q.head : q.head+n]
	q.head += n
	return b, false
}

// pollTransmit hands out the next bytes to write at now (see take), and
// notes when they left the session for the liveness timers.
func (c *conn) pollTransmit(now time.Time, max int) []byte {
	now = c.clock(now)
	b, ctl := c.tx.take(max)
	if len(b) == 0 {
		return nil
	}
	c.live.sent(now, ctl)
	return b
}
