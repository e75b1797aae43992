package rfbgate

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// seededStream is the byte stream a synthetic server sends on connection n:
// a valid RFB stream (so the relay's server-side framer passes it whole) of
// seededMsg-byte FramebufferUpdates, one ZRLE rectangle each, whose payloads
// are PCG output, so a client can check every byte and its order.
type seededStream struct {
	r   *rand.Rand
	buf [8]byte
	pos int
	at  int // position in the current message
}

// seededMsg is the length of one message of a seededStream; seededHead is
// its header: FramebufferUpdate of one 64x64 ZRLE rectangle and its length.
const seededMsg = 4096

var seededHead = []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 64, 0, 64, 0, 0, 0, 16, 0, 0, (seededMsg - 20) >> 8, (seededMsg - 20) & 0xff}

func newSeededStream(n uint64) *seededStream {
	return &seededStream{r: rand.New(rand.NewPCG(n, 0x5eed)), pos: 8}
}

func (s *seededStream) fill(p []byte) {
	for i := range p {
		if s.at < len(seededHead) {
			p[i] = seededHead[s.at]
		} else {
			if s.pos == 8 {
				binary.LittleEndian.PutUint64(s.buf[:], s.r.Uint64())
				s.pos = 0
			}
			p[i] = s.buf[s.pos]
			s.pos++
		}
		if s.at++; s.at == seededMsg {
			s.at = 0
		}
	}
}

// syntheticVNC is an RFB 3.8 server with VNC authentication; after
// ServerInit (desktop name "seed-N") it sends seededStream(N) in chunk-byte
// writes every tick, and reads and discards what the client sends.
func syntheticVNC(t testing.TB, password string, chunk int, tick time.Duration) (addr string, conns *atomic.Int64) {
	conns = &atomic.Int64{}
	pw := NewSecret(password)
	addr = fakeVNCServer(t, func(c net.Conn, seed uint64, stop <-chan struct{}) {
		conns.Add(1)
		defer conns.Add(-1)
		if !serveVNCHandshake(c, pw, seed) {
			return
		}
		go io.Copy(io.Discard, c) // ends when c is closed
		s := newSeededStream(seed)
		buf := make([]byte, chunk)
		var tk *time.Ticker
		if tick > 0 {
			tk = time.NewTicker(tick)
			defer tk.Stop()
		}
		for {
			s.fill(buf)
			c.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(buf); err != nil {
				return
			}
			if tk != nil {
				select {
				case <-tk.C:
				case <-stop:
					return
				}
			}
		}
	})
	return addr, conns
}

// fakeVNCServer listens on loopback and runs serve for each connection (the
// nth gets seed n; stop closes when the test ends, and the connection after
// serve returns). The test waits for every connection to end.
func fakeVNCServer(t testing.TB, serve func(c net.Conn, seed uint64, stop <-chan struct{})) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	t.Cleanup(func() { ln.Close(); close(stop); wg.Wait() })
	var next atomic.Uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func(c net.Conn, seed uint64) {
				defer wg.Done()
				defer c.Close()
				serve(c, seed, stop)
			}(c, next.Add(1))
		}
	}()
	return ln.Addr().String()
}

// serveVNCHandshake is a VNC server's side of the RFB 3.8 handshake on c:
// security types [19, 2], VNC authentication with pw, and a 640x480 32-bit
// ServerInit named "seed-N". It reports whether the client authenticated.
func serveVNCHandshake(c net.Conn, pw Secret, seed uint64) bool {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	c.Write([]byte("RFB 003.008\n"))
	io.ReadFull(c, make([]byte, 12))
	c.Write([]byte{2, 19, rfb.SecurityVNCAuth})
	io.ReadFull(c, make([]byte, 1))
	var ch [16]byte
	binary.BigEndian.PutUint64(ch[:], seed*7919)
	c.Write(ch[:])
	var resp [16]byte
	io.ReadFull(c, resp[:])
	if resp != VNCAuthResponse(pw, ch) {
		c.Write([]byte{0, 0, 0, 1, 0, 0, 0, 0})
		return false
	}
	c.Write([]byte{0, 0, 0, 0})
	io.ReadFull(c, make([]byte, 1))
	_, err := c.Write(serverInit(fmt.Sprintf("seed-%d", seed)))
	return err == nil
}

// TestLoad64Viewers: 64 viewers on one computer for 30 s (3 s with -short):
// each receives its server's stream complete and in order, and after they
// close no goroutine is left behind.
func TestLoad64Viewers(t *testing.T) {
	dur := 30 * time.Second
	if testing.Short() {
		dur = 3 * time.Second
	}
	const viewers = 64
	chunk := 16 << 10
	if raceEnabled {
		chunk = 2 << 10
	}
	addr, conns := syntheticVNC(t, testPassword, chunk, 20*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:    []Computer{{Name: "busy", Addr: addr, Password: NewSecret(testPassword)}},
		PingInterval: time.Second,
	})
	time.Sleep(100 * time.Millisecond)
	base := runtime.NumGoroutine()

	type result struct {
		bytes int64
		err   error
	}
	results := make([]result, viewers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < viewers; i++ {
		tk, err := tr.Watch("busy", fmt.Sprintf("s%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		c, err := dialRFBRaw(tr.wsURL(tk.Token, "busy"))
		if err != nil {
			t.Fatalf("viewer %d: %v", i, err)
		}
		wg.Add(1)
		go func(i int, c *rawViewer) {
			defer wg.Done()
			defer c.close()
			seed, err := strconv.ParseUint(strings.TrimPrefix(c.name, "seed-"), 10, 64)
			if err != nil {
				results[i].err = fmt.Errorf("desktop name %q", c.name)
				return
			}
			want := newSeededStream(seed)
			got := make([]byte, 64<<10)
			exp := make([]byte, 64<<10)
			go func() { // the client side sends too: requests and (dropped) keys
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					if _, err := c.conn.Write(append(append([]byte{}, fbur...), keyEvent(true, 'q')...)); err != nil {
						return
					}
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.conn.SetReadDeadline(time.Now().Add(15 * time.Second))
				n, err := c.conn.Read(got)
				want.fill(exp[:n])
				for j := 0; j < n; j++ {
					if got[j] != exp[j] {
						results[i].err = fmt.Errorf("byte %d differs: got %#x want %#x", results[i].bytes+int64(j), got[j], exp[j])
						return
					}
				}
				results[i].bytes += int64(n)
				if err != nil {
					results[i].err = fmt.Errorf("after %d bytes: %v", results[i].bytes, err)
					return
				}
			}
		}(i, c)
	}
	// A viewer's handshake can finish on its side a moment before the
	// relay counts it: wait for the count, a bounded while.
	for deadline := time.Now().Add(5 * time.Second); tr.Viewers("busy") != viewers && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := tr.Viewers("busy"); n != viewers {
		t.Fatalf("%d viewers open, want %d", n, viewers)
	}
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	// Every viewer must have got a real share (the offered rate is 0.8 MB/s
	// each; a host busy with other tests gives less, never nothing).
	const floor = 256 << 10
	var total int64
	lo, hi := int64(-1), int64(0)
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("viewer %d: %v\nrelay log:\n%s", i, r.err, tr.logs.String())
		}
		if r.bytes < floor {
			t.Fatalf("viewer %d got %d bytes in %v, want at least %d", i, r.bytes, dur, floor)
		}
		total += r.bytes
		if lo < 0 || r.bytes < lo {
			lo = r.bytes
		}
		hi = max(hi, r.bytes)
	}
	t.Logf("per viewer: %.1f to %.1f MB", float64(lo)/1e6, float64(hi)/1e6)
	t.Logf("%d viewers, %v: %.1f MB checked in order, %.1f MB/s in all", viewers, dur, float64(total)/1e6, float64(total)/1e6/dur.Seconds())
	deadline := time.Now().Add(10 * time.Second)
	for {
		g := runtime.NumGoroutine()
		if tr.Viewers("busy") == 0 && conns.Load() == 0 && g <= base {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("after close: %d viewers, %d server connections, %d goroutines (before: %d)\n%s", tr.Viewers("busy"), conns.Load(), g, base, buf[:n])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rawViewer is a browser-like client whose reads the test does itself.
type rawViewer struct {
	ws     *websocket.Conn
	conn   net.Conn
	name   string
	cancel context.CancelFunc
}

func dialRFBRaw(url string) (*rawViewer, error) {
	c, err := dialViewer(url, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawViewer{ws: c.ws, conn: c.conn, name: string(c.Init[24:]), cancel: c.cancel}, nil
}

func (v *rawViewer) close() {
	v.ws.Close(websocket.StatusNormalClosure, "")
	v.conn.Close()
	v.cancel()
}
