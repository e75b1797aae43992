//go:build linux

package rfbgate

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// downstream is the browser's socket as a viewer's writer sees it: before
// a batch is read or built, wait blocks, holding no buffer, until the
// socket can take more, and says how many bytes it can take without a
// write waiting. So a viewer that stops reading holds no batch while it
// waits, and what it has not taken waits in Xvnc or in glass, where it can
// be replaced by something fresher, not in the kernel.
//
// The kernel keeps the queue short itself: the socket's TCP_NOTSENT_LOWAT
// is set to downstreamLowat, so it reports the socket writable (POLLOUT,
// and the poller's wake-up) only while fewer bytes than that wait unsent,
// and a write stops there, give or take one buffer's worth (16-32 KiB
// past the mark, measured by TestLowatBound). No check runs per write and
// nothing sleeps: a link that keeps up takes each batch whole, a slow one
// makes the writer wait in the poller.
//
// The room it reports is serverBatchMax while the link keeps up (no byte
// was left unsent at the last measure: the batch goes whole), and what
// brings the unsent bytes to the mark while it lags, so that the writer
// reads from Xvnc, or encodes, no more than the link can take now. It
// measures (a poll and an ioctl) only once the room measured last is
// spent: two system calls a batch on a fast link.
type downstream struct {
	rc    syscall.RawConn // nil: no descriptor; wait says serverBatchMax at once
	lowat int             // the socket's TCP_NOTSENT_LOWAT; 0 when it could not be set
	// credit is the room measured and not yet spent (spend).
	credit int
	room   int // check's measure
	check  func(fd uintptr) bool
	pfd    [1]unix.PollFd
}

// newDownstream returns the downstream of the browser connection c (the
// hijacked connection, or the TCP connection under a TLS one), with
// TCP_NOTSENT_LOWAT set on its socket; nil c or one with no descriptor
// waits for nothing.
func newDownstream(c net.Conn) *downstream {
	d := &downstream{}
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		c = tc.NetConn()
	}
	if sc, ok := c.(syscall.Conn); ok && c != nil {
		if rc, err := sc.SyscallConn(); err == nil {
			d.rc = rc
			d.check = d.writable
			d.setLowat(downstreamLowatMin)
		}
	}
	return d
}

// setLowat sets the socket's TCP_NOTSENT_LOWAT to n bytes (a socket that
// is not TCP keeps none, and the room is then what its buffer has). It
// runs in the poller's callback (writable) or before the first wait.
func (d *downstream) setLowat(n int) {
	if d.rc.Control(func(fd uintptr) { d.setLowatFD(fd, n) }) != nil {
		d.lowat = 0
	}
}

func (d *downstream) setLowatFD(fd uintptr, n int) {
	if unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, n) == nil {
		d.lowat = n
	} else {
		d.lowat = 0
	}
}

// spend records n bytes written since wait.
func (d *downstream) spend(n int) { d.credit = max(d.credit-n, 0) }

// wait blocks until the socket can take more and returns how many bytes
// it can take now (at least downstreamMin, at most serverBatchMax); an
// error when the connection was closed or its write deadline passed while
// waiting.
func (d *downstream) wait() (int, error) {
	if d.rc == nil {
		return serverBatchMax, nil
	}
	if d.credit >= downstreamMin {
		return min(d.credit, serverBatchMax), nil
	}
	if err := d.rc.Write(d.check); err != nil {
		return 0, err
	}
	d.credit = d.room
	return d.room, nil
}

// writable reports whether the socket is writable (poll(2) with no wait:
// when it is not, the poller waits for the kernel's wake-up, which with
// TCP_NOTSENT_LOWAT comes once the unsent bytes have fallen under the
// mark) and measures its room.
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
	var mi [unix.SK_MEMINFO_VARS]uint32
	n := uint32(unsafe.Sizeof(mi))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_MEMINFO, uintptr(unsafe.Pointer(&mi)), uintptr(unsafe.Pointer(&n)), 0)
	unsent, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQNSD)
	if e != 0 || err != nil {
		d.room = serverBatchMax // cannot tell: the write will say
		return true
	}
	// What the socket takes before a write waits for memory (the kernel
	// counts its overhead in the buffer too: about half is payload).
	space := int(mi[unix.SK_MEMINFO_SNDBUF]) - int(mi[unix.SK_MEMINFO_WMEM_QUEUED])
	room := space / 2
	if d.lowat > 0 {
		// The mark follows the link: a link that took every byte since
		// the last measure keeps up, and may have a longer queue (so a
		// batch may be larger); one that left many unsent gets a
		// shorter one.
		switch {
		case unsent == 0 && d.lowat < downstreamLowatMax:
			d.setLowatFD(fd, min(2*d.lowat, downstreamLowatMax))
		case unsent > d.lowat/2 && d.lowat > downstreamLowatMin:
			d.setLowatFD(fd, max(d.lowat/2, downstreamLowatMin))
		}
		room = min(room, d.lowat-unsent)
	}
	d.room = min(max(room, downstreamMin), serverBatchMax)
	return true
}

// kernelLink reads TCP_INFO of the browser connection c (the hijacked
// connection, or the TCP connection under a TLS one); false where it
// cannot.
func kernelLink(c net.Conn) (tcpLink, bool) {
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok || c == nil {
		return tcpLink{}, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return tcpLink{}, false
	}
	var info *unix.TCPInfo
	if err := rc.Control(func(fd uintptr) { info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil || info == nil {
		return tcpLink{}, false
	}
	return tcpLink{rttUS: info.Rtt, rateBps: info.Delivery_rate, notsent: info.Notsent_bytes}, true
}
