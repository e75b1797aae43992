//go:build !unix

package rfbgate

import "net"

// upstream reads the computer's stream for pumpServer. Without a way to
// read without waiting, every read counts as the last before an idle link:
// each is sent on its own.
type upstream struct{ conn net.Conn }

func newUpstream(c net.Conn) *upstream { return &upstream{conn: c} }

// Read blocks until the computer sends something.
func (u *upstream) Read(p []byte) (int, error) { return u.conn.Read(p) }

// tryRead reports idle: this platform cannot read without waiting.
func (u *upstream) tryRead([]byte) (int, bool, error) { return 0, true, nil }
