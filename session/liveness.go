package session

import "time"

// liveness times pings and silence. It knows when the peer was last
// heard from: the bytes of a frame the splitter delivers (or is
// delivering) count, bytes that only feed an oversized frame's discard do
// not.
type liveness struct {
	heard  time.Time // when the peer was last heard from
	pinged bool      // a ping went out since then
	nonce  uint64    // the last ping's nonce
}

// hear records a sign of life at now.
func (l *liveness) hear(now time.Time) {
	l.heard = now
	l.pinged = false
}

// pingAt is when a ping is due, if one is: PingAfter after the peer was
// last heard from, once per silence.
func (l *liveness) pingAt() (time.Time, bool) {
	if l.pinged {
		return time.Time{}, false
	}
	return l.heard.Add(PingAfter), true
}

// silentAt is when the session closes as Silent.
func (l *liveness) silentAt() time.Time { return l.heard.Add(SilentAfter) }

// ping marks a ping sent and returns its nonce.
func (l *liveness) ping() uint64 {
	l.pinged = true
	l.nonce++
	return l.nonce
}
