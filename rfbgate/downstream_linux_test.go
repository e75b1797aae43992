//go:build linux

package rfbgate

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// lowatOvershootMax bounds what a write queues past the mark: measured
// 16-32 KiB on Linux 6.18 (one buffer of the socket's).
const lowatOvershootMax = 64 << 10

// TestLowatBound measures how far past TCP_NOTSENT_LOWAT a write goes,
// which is what a viewer's socket may hold unsent at most: on a loopback
// pair whose reader reads nothing (its receive buffer small, so the sender
// soon has bytes it cannot send), the sender writes without waiting until
// the kernel refuses (EAGAIN), at each mark downstream uses, and the bytes
// left unsent (SIOCOUTQNSD) must be the mark and at most a socket
// buffer's worth (the kernel checks the mark before it queues each buffer
// of a write, so one may pass it). And the socket counts as writable again
// (POLLOUT, the poller's wake-up) only once the reader has made the unsent
// bytes fall under the mark.
func TestLowatBound(t *testing.T) {
	for _, mark := range []int{downstreamLowatMin, 64 << 10, downstreamLowatMax} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		accepted := make(chan net.Conn, 1)
		go func() {
			c, _ := ln.Accept()
			accepted <- c
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		r := <-accepted
		ln.Close()
		r.(*net.TCPConn).SetReadBuffer(16 << 10)
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var unsent, overshoot int
		buf := make([]byte, 256<<10)
		rc.Control(func(fd uintptr) {
			if err := unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, mark); err != nil {
				t.Fatal(err)
			}
			// Fill the reader's buffer and the sender's until the kernel
			// refuses: the write past the mark is the last it takes.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				n, err := unix.Write(int(fd), buf)
				if err == unix.EAGAIN || n == 0 {
					break
				}
				if err != nil && err != unix.EINTR {
					t.Fatal(err)
				}
			}
			unsent, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQNSD)
		})
		overshoot = unsent - mark
		t.Logf("mark %d KiB: %d bytes unsent when the kernel refused more (%+d past the mark)", mark>>10, unsent, overshoot)
		if unsent < mark/2 || overshoot > lowatOvershootMax {
			t.Errorf("mark %d: %d bytes unsent, want about the mark and at most %d past it", mark, unsent, lowatOvershootMax)
		}
		writable := func() bool {
			var ok bool
			rc.Control(func(fd uintptr) {
				p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
				n, _ := unix.Poll(p, 0)
				ok = n > 0 && p[0].Revents&unix.POLLOUT != 0
			})
			return ok
		}
		if writable() {
			t.Errorf("mark %d: writable with %d bytes unsent", mark, unsent)
		}
		// The reader drains: the socket is writable again once the unsent
		// bytes have fallen under the mark.
		drained := make(chan struct{})
		go func() {
			rb := make([]byte, 64<<10)
			r.SetReadDeadline(time.Now().Add(10 * time.Second))
			for {
				if _, err := r.Read(rb); err != nil {
					break
				}
			}
			close(drained)
		}()
		deadline := time.Now().Add(5 * time.Second)
		for !writable() {
			if time.Now().After(deadline) {
				t.Fatalf("mark %d: not writable again 5 s after the reader began to read", mark)
			}
			time.Sleep(time.Millisecond)
		}
		var left int
		rc.Control(func(fd uintptr) { left, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQNSD) })
		if left >= mark {
			t.Errorf("mark %d: writable again with %d bytes unsent", mark, left)
		}
		c.Close()
		<-drained
		r.Close()
	}
}
