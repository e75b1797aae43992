//go:build unix

package rfbgate

import (
	"io"
	"net"
	"os"
	"syscall"
)

// upstream reads the computer's stream for pumpServer: blocking reads when
// nothing waits to be sent, and reads that do not wait while a batch is
// being gathered, so the batch goes out the moment Xvnc has nothing more
// to give (an idle link never holds bytes back).
type upstream struct {
	conn net.Conn
	rc   syscall.RawConn // nil: the connection has no descriptor; every read is "idle after"
	p    []byte          // tryRead's buffer, for try
	n    int
	err  error
	try  func(fd uintptr) bool // u.read, bound once so tryRead does not allocate
}

func newUpstream(c net.Conn) *upstream {
	u := &upstream{conn: c}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			u.rc = rc
			u.try = u.read
		}
	}
	return u
}

// Read blocks until the computer sends something.
func (u *upstream) Read(p []byte) (int, error) { return u.conn.Read(p) }

// read is one non-blocking read(2) on the connection's descriptor (Go's
// sockets are non-blocking); it reports done so the poller never waits.
func (u *upstream) read(fd uintptr) bool {
	for {
		n, err := syscall.Read(int(fd), u.p)
		if err == syscall.EINTR {
			continue
		}
		u.n, u.err = n, err
		return true
	}
}

// tryRead reads what the socket holds without waiting: n > 0 bytes, or
// idle when a read would block (or the connection cannot tell), or an
// error (io.EOF when the computer closed).
func (u *upstream) tryRead(p []byte) (n int, idle bool, err error) {
	if u.rc == nil || len(p) == 0 {
		return 0, true, nil
	}
	u.p = p
	rerr := u.rc.Read(u.try)
	u.p = nil
	switch {
	case rerr != nil: // closed under us
		return 0, false, rerr
	case u.err == syscall.EAGAIN:
		return 0, true, nil
	case u.err != nil:
		return 0, false, os.NewSyscallError("read", u.err)
	case u.n == 0:
		return 0, false, io.EOF
	}
	return u.n, false, nil
}
