//go:build !unix

package rfbgate

import "net"

// upstream reads the computer's stream for pumpServer. Without a way to
// read without waiting, every read counts as the last before an idle link:
// each is sent on its own, and a viewer waiting for its computer holds a
// batch buffer while it waits.
type upstream struct{ conn net.Conn }

func newUpstream(c net.Conn) *upstream { return &upstream{conn: c} }

// wait returns at once: the next Read waits (holding its buffer).
func (u *upstream) wait() error { return nil }

// Read blocks until the computer sends something.
func (u *upstream) Read(p []byte) (int, error) { return u.conn.Read(p) }

// readyBytes is 0: this platform cannot tell how many bytes wait.
func (u *upstream) readyBytes() int { return 0 }

// tryRead reports idle: this platform cannot read without waiting.
func (u *upstream) tryRead([]byte) (int, bool, error) { return 0, true, nil }
