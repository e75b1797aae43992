package session

import "time"

// KeepaliveAfter is how long a session that has heard from its peer since
// it last sent anything waits before it sends a ping all the same:
// SilentAfter - PingAfter. A peer busy sending never lacks news of its
// own, so it never pings; this ping is what keeps its peer hearing from
// it when that peer's own ping waits on a slow link behind the bulk.
const KeepaliveAfter = SilentAfter - PingAfter

// liveness times pings and silence. It knows when the peer was last
// heard from (the bytes of a frame the splitter delivers, or is
// delivering, count; bytes that only feed an oversized frame's discard do
// not) and when the session last handed bytes to the transport.
type liveness struct {
	heard  time.Time // when the peer was last heard from
	sentAt time.Time // when bytes were last handed to the transport
	probed bool      // a ping was queued since the peer was last heard from
	left   bool      // that ping has been handed to the transport,
	leftAt time.Time // at leftAt
	nonce  uint64    // the last ping's nonce
	queued bool      // that ping waits in the transmit queue, not handed out yet
}

// hear records a sign of life at now.
func (l *liveness) hear(now time.Time) {
	l.heard = now
	l.probed, l.left = false, false
}

// sent records bytes handed to the transport at now; ctl says they
// carried the control frames, and with them the ping queued last if it
// was waiting.
func (l *liveness) sent(now time.Time, ctl bool) {
	l.sentAt = now
	if !ctl || !l.queued {
		return
	}
	l.queued = false
	if l.probed && !l.left {
		l.left, l.leftAt = true, now
	}
}

// pingAt is when a ping is due, if one is: PingAfter after the peer was
// last heard from (once per silence), or KeepaliveAfter after the session
// last sent anything when the peer has been heard from since (at once if
// that time has passed when it is heard from). None is due while a ping
// of ours waits to be handed out.
func (l *liveness) pingAt() (time.Time, bool) {
	var at time.Time
	ok := false
	if l.queued {
		return at, false
	}
	if !l.probed {
		at, ok = l.heard.Add(PingAfter), true
	}
	if l.heard.After(l.sentAt) {
		// Never earlier than the hearing that made it due.
		keep := l.sentAt.Add(KeepaliveAfter)
		if keep.Before(l.heard) {
			keep = l.heard
		}
		at, ok = earliest(at, ok, keep, true)
	}
	return at, ok
}

// silentAt is when the session closes as Silent: SilentAfter after the
// peer was last heard from, or, once the ping of this silence has left,
// SilentAfter - PingAfter after it left, whichever is later. A ping held
// up behind a frame being written thus still has its full time for an
// answer, and one that never leaves (a transport that takes nothing)
// does not put the close off.
func (l *liveness) silentAt() time.Time {
	at := l.heard.Add(SilentAfter)
	if l.left {
		if a := l.leftAt.Add(SilentAfter - PingAfter); a.After(at) {
			at = a
		}
	}
	return at
}

// ping queues a ping at now with queue, which is handed its nonce and
// reports whether the ping was queued; it waits then until sent hands it
// out.
func (l *liveness) ping(now time.Time, queue func(nonce uint64) error) {
	if !now.Before(l.heard.Add(PingAfter)) {
		l.probed = true
	}
	l.nonce++
	l.queued = queue(l.nonce) == nil
}
