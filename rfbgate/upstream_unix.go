//go:build unix

package rfbgate

import (
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// upstream reads the computer's stream for pumpServer: it waits for bytes
// without a buffer (wait), and while a batch is being gathered it reads
// without waiting, so the batch goes out the moment Xvnc has nothing more
// to give (an idle link never holds bytes back).
type upstream struct {
	conn  net.Conn
	rc    syscall.RawConn // nil: the connection has no descriptor; every read is "idle after"
	p     []byte          // tryRead's buffer, for try
	n     int
	err   error
	try   func(fd uintptr) bool // u.read, bound once so tryRead does not allocate
	ready func(fd uintptr) bool // u.peek, bound once so wait does not allocate
	one   [1]byte               // peek's buffer
	avail int                   // bytes ready to read, as wait last found them (0: unknown)
}

func newUpstream(c net.Conn) *upstream {
	u := &upstream{conn: c}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			u.rc = rc
			u.try = u.read
			u.ready = u.peek
		}
	}
	return u
}

// wait blocks until the computer has sent something (or closed, or the
// connection failed: the next read says which) without reading it, so a
// viewer waiting on an idle computer holds no buffer. It fails only when
// the connection is closed under it. Without a descriptor it returns at
// once and the next Read waits.
func (u *upstream) wait() error {
	if u.rc == nil {
		return nil
	}
	return u.rc.Read(u.ready)
}

// peek reports whether a read would not wait: a byte to read, the end of
// the stream or an error. MSG_PEEK leaves the byte in the socket.
func (u *upstream) peek(fd uintptr) bool {
	for {
		n, _, err := syscall.Recvfrom(int(fd), u.one[:], syscall.MSG_PEEK)
		if err == syscall.EINTR {
			continue
		}
		u.avail = 0
		if n > 0 { // how much is there: the batch's buffer is sized to it
			if a, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil {
				u.avail = a
			}
		}
		return err != syscall.EAGAIN
	}
}

// readyBytes is how many bytes wait to be read, as the last wait found them (0
// when it could not tell).
func (u *upstream) readyBytes() int { return u.avail }

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
