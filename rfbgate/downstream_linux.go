//go:build linux

package rfbgate

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// downstream is the browser's side of pumpServer: before a batch is read
// from the computer it waits, holding no buffer, until the browser's socket
// can take more, and says how many bytes it can take without a write
// waiting. So the relay reads from Xvnc only what the viewer's socket can
// take: a viewer that stops reading holds no batch while it waits, and the
// bytes it has not taken stay in Xvnc and the sockets (TCP's own back
// pressure), as they would straight to Xvnc.
//
// It also keeps few bytes waiting unsent in the socket, so that a slow
// link (a phone) does not hold seconds of screen in glass's socket: while
// more than downstreamUnsent/2 wait unsent (SIOCOUTQNSD) it waits for them
// to leave (rechecking every downstreamRecheck: the kernel has no wake-up
// for that without TCP_NOTSENT_LOWAT, which would make a write wait
// holding its batch), and on a link that lags (bytes waited unsent within
// downstreamLagMemory) a batch is at most what brings them to
// downstreamUnsent, which noVNC can draw only once all of it has come (a
// 256 KiB message takes a second on a 2 Mbit/s link, and so does the
// fence in it that Xvnc times the link with). On a link that keeps up
// none wait, and a batch may be as large as Xvnc has ready
// (serverBatchMax). Xvnc, whose congestion control watches
// its own socket, then sees the link's pace.
//
// The room is the socket's send buffer (SO_SNDBUF, which counts the
// kernel's overhead too) less the bytes still queued in it (SIOCOUTQ),
// halved for that overhead; writable is the kernel's own test (POLLOUT),
// which also arms its wake-up.
type downstream struct {
	rc   syscall.RawConn // nil: no descriptor; wait says serverBatchMax at once
	room int             // measured by check
	busy bool            // measured by check: too many bytes wait unsent
	// lagged is when bytes last waited unsent: for downstreamLagMemory
	// after it the link counts as slow, and batches stay small even when
	// it has just drained (after Xvnc paused, say).
	lagged time.Time
	check  func(fd uintptr) bool
	pfd    [1]unix.PollFd
	// credit is room measured and not yet spent, for a writer that says
	// what it wrote (spend; the shared path): wait gives it without
	// measuring again while the link keeps up, so a viewer that keeps up
	// costs no system call before each write. -1: not tracked.
	credit int
}

// slow reports whether the link lagged within downstreamLagMemory.
func (d *downstream) slow() bool {
	return d.rc != nil && time.Since(d.lagged) < downstreamLagMemory
}

// spend records n bytes written since wait; from then on wait measures
// only once the credit is spent or the link lagged.
func (d *downstream) spend(n int) {
	if d.credit < 0 {
		d.credit = 0
	}
	d.credit = max(d.credit-n, 0)
}

// newDownstream returns the downstream of the browser connection c (the
// hijacked connection, or the TCP connection under a TLS one); nil c or
// one with no descriptor waits for nothing.
func newDownstream(c net.Conn) *downstream {
	d := &downstream{credit: -1}
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		c = tc.NetConn()
	}
	if sc, ok := c.(syscall.Conn); ok && c != nil {
		if rc, err := sc.SyscallConn(); err == nil {
			d.rc = rc
			d.check = d.writable
		}
	}
	return d
}

// wait blocks until the socket can take more and returns how many bytes
// it can take now (at least downstreamMin, at most serverBatchMax); an
// error when the connection was closed or its write deadline passed while
// waiting.
func (d *downstream) wait() (int, error) {
	if d.rc == nil {
		return serverBatchMax, nil
	}
	if d.credit >= downstreamMin && time.Since(d.lagged) >= downstreamLagMemory {
		return min(d.credit, serverBatchMax), nil
	}
	for {
		if err := d.rc.Write(d.check); err != nil {
			return 0, err
		}
		if !d.busy {
			if d.credit >= 0 {
				d.credit = d.room
			}
			return min(max(d.room, downstreamMin), serverBatchMax), nil
		}
		time.Sleep(downstreamRecheck)
	}
}

// writable reports whether the socket is writable (poll(2) with no wait:
// when it is not, the kernel notes that a writer waits and wakes the
// poller when room frees) and measures its room.
func (d *downstream) writable(fd uintptr) bool {
	d.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	for {
		n, err := unix.Poll(d.pfd[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			d.room = serverBatchMax // cannot tell: the write will say
			return true
		}
		if n == 0 || d.pfd[0].Revents&(unix.POLLOUT|unix.POLLERR|unix.POLLHUP) == 0 {
			return false
		}
		break
	}
	sndbuf, err1 := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
	queued, err2 := unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
	if err1 != nil || err2 != nil {
		d.room = serverBatchMax
		return true
	}
	d.room, d.busy = (sndbuf-queued)/2, false
	unsent, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQNSD)
	if err != nil {
		return true
	}
	now := time.Now()
	if unsent > 0 {
		d.lagged = now
		d.busy = unsent > downstreamUnsent/2
	}
	if now.Sub(d.lagged) < downstreamLagMemory {
		d.room = min(d.room, downstreamUnsent-unsent)
	}
	return true
}
