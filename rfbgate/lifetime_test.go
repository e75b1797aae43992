package rfbgate

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// closeWatcher is a viewer that reads the relay's stream through
// coder/websocket's own reader, so that how the stream ends is seen: a
// *websocket.CloseError with status and reason, or an abrupt end.
type closeWatcher struct {
	ws   *websocket.Conn
	rw   io.ReadWriter // ByteStream(ws)
	mu   sync.Mutex
	n    int64
	err  error
	done chan struct{}
}

// Read reads message after message as one stream (ByteStream).
func (c *closeWatcher) Read(p []byte) (int, error) { return c.rw.Read(p) }

func (c *closeWatcher) Write(p []byte) (int, error) { return c.rw.Write(p) }

// watchClose opens a viewer; when read is set it reads everything in the
// background and records how the stream ended.
func watchClose(t *testing.T, tr *testRelay, agent, surface string, read bool) *closeWatcher {
	t.Helper()
	tk, err := tr.Watch(agent, surface)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, tr.wsURL(tk.Token, agent), &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		t.Fatalf("%s: %v", surface, err)
	}
	ws.SetReadLimit(-1)
	c := &closeWatcher{ws: ws, rw: ByteStream(ws), done: make(chan struct{})}
	if _, err := rfbHandshake(c); err != nil {
		t.Fatalf("%s: handshake: %v", surface, err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	if !read {
		return c
	}
	go func() {
		defer close(c.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			c.mu.Lock()
			c.n += int64(n)
			c.err = err
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *closeWatcher) received() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// closedWith waits for the stream's end and checks it was a close frame
// with status code and a reason containing reason.
func (c *closeWatcher) closedWith(t *testing.T, what string, code websocket.StatusCode, reason string) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: the viewer's stream did not end", what)
	}
	var ce websocket.CloseError
	if !errors.As(c.err, &ce) {
		t.Fatalf("%s: the stream ended without a close frame: %v", what, c.err)
	}
	if ce.Code != code || !strings.Contains(ce.Reason, reason) {
		t.Fatalf("%s: close frame %d %q, want %d %q", what, ce.Code, ce.Reason, code, reason)
	}
}

func waitViewers(t *testing.T, tr *testRelay, agent string, want int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for tr.Viewers(agent) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d viewers of %s counted after %v, want %d\n%s", tr.Viewers(agent), agent, d, want, tr.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStalledViewerDropped: a viewer that completed the handshake and then
// reads nothing is dropped after WriteTimeout and uncounted, while another
// viewer of the same computer keeps getting updates.
func TestStalledViewerDropped(t *testing.T) {
	addr, conns := syntheticVNC(t, testPassword, 64<<10, 2*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:    []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		WriteTimeout: time.Second,
		PingInterval: 200 * time.Millisecond,
	})
	good := watchClose(t, tr, "a", "reader", true)
	watchClose(t, tr, "a", "stalled", false) // never reads again
	waitViewers(t, tr, "a", 2, 5*time.Second)
	waitViewers(t, tr, "a", 1, 20*time.Second)
	st, _ := tr.Status("a")
	if len(st.Viewers) != 1 || st.Viewers[0].Surface != "reader" {
		t.Fatalf("status after the drop: %+v", st)
	}
	// The close frame may reach the stalled viewer's socket (glass keeps
	// few bytes unsent in it) or not; either way it goes within closeGrace.
	if l := tr.logs.String(); !strings.Contains(l, `surface=stalled access=control role=watcher`) || !strings.Contains(l, `by=relay code=1008 reason="viewer stopped reading" close_sent=`) {
		t.Fatalf("the log does not say why the viewer went:\n%s", tr.logs.String())
	}
	before := good.received()
	time.Sleep(500 * time.Millisecond)
	if after := good.received(); after <= before {
		t.Fatalf("the reading viewer stopped getting updates: %d then %d bytes", before, after)
	}
	for deadline := time.Now().Add(5 * time.Second); conns.Load() != 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d server connections open, want 1 (the stalled viewer's must be closed)", conns.Load())
		}
	}
}

// TestPingTimeout: a viewer that answers no ping (it never reads, and the
// server sends nothing to block on) is closed after PingTimeout.
func TestPingTimeout(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 16, time.Hour) // one small update, then quiet
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:    []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		PingInterval: 100 * time.Millisecond,
		PingTimeout:  time.Second,
	})
	watchClose(t, tr, "a", "silent", false)
	waitViewers(t, tr, "a", 1, 5*time.Second)
	waitViewers(t, tr, "a", 0, 10*time.Second)
	if !strings.Contains(tr.logs.String(), "no pong") {
		t.Fatalf("the log does not say why the viewer went:\n%s", tr.logs.String())
	}
}

// TestXvncKilledCloseFrames: when Xvnc dies, every viewer gets a close frame
// (1001 and a reason), and none stays counted.
func TestXvncKilledCloseFrames(t *testing.T) {
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	var vs []*closeWatcher
	for _, s := range []string{"laptop", "phone", "tablet"} {
		c := watchClose(t, tr, "agent1", s, true)
		c.Write(setEncodings(rfb.EncodingZRLE, rfb.EncodingRaw))
		c.Write(fbur)
		vs = append(vs, c)
	}
	waitViewers(t, tr, "agent1", 3, 5*time.Second)
	for deadline := time.Now().Add(5 * time.Second); vs[0].received() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no update from Xvnc")
		}
	}
	xv.Kill()
	for i, c := range vs {
		c.closedWith(t, []string{"laptop", "phone", "tablet"}[i], websocket.StatusGoingAway, reasonServerEnded)
	}
	waitViewers(t, tr, "agent1", 0, 5*time.Second)
}

// TestShutdownCloseFrames: Relay.Close (glass's SIGTERM) sends every viewer
// a close frame, 1001 "relay shutting down", and counts none.
func TestShutdownCloseFrames(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 20*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	a := watchClose(t, tr, "a", "s1", true)
	b := watchClose(t, tr, "a", "s2", true)
	waitViewers(t, tr, "a", 2, 5*time.Second)
	done := make(chan struct{})
	go func() { tr.Close(); close(done) }()
	a.closedWith(t, "s1", websocket.StatusGoingAway, reasonShutdown)
	b.closedWith(t, "s2", websocket.StatusGoingAway, reasonShutdown)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Relay.Close did not return")
	}
	if n := tr.Viewers("a"); n != 0 {
		t.Fatalf("%d viewers counted after Close", n)
	}
}

// scriptedVNC is a VNC server that, after the handshake, sends script and
// then holds the connection until the client goes.
func scriptedVNC(t *testing.T, password string, script []byte) string {
	return fakeVNCServer(t, func(c net.Conn, seed uint64, _ <-chan struct{}) {
		if serveVNCHandshake(c, NewSecret(password), seed) {
			c.Write(script)
			io.Copy(io.Discard, c)
		}
	})
}

// TestUnframableServerMessageClosesViewer: a server message the relay
// cannot frame (here a Hextile rectangle, which it never asks for) closes
// that viewer with 1011 and a reason, after what came before it.
func TestUnframableServerMessageClosesViewer(t *testing.T) {
	bell := []byte{rfb.MsgBell}
	addr := scriptedVNC(t, testPassword, append(append([]byte{}, bell...), srvUpdate(srvRect(0, 0, 8, 8, 5))...))
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	c := watchClose(t, tr, "a", "s", true)
	c.closedWith(t, "viewer", websocket.StatusInternalError, reasonServerUnframe)
	if n := c.received(); n != 1+4 {
		t.Fatalf("received %d bytes before the close, want the bell and the update's header (5)", n)
	}
	if l := tr.logs.String(); !strings.Contains(l, "encoding 5 is not one that is framed") {
		t.Fatalf("the log does not say what could not be framed:\n%s", l)
	}
	waitViewers(t, tr, "a", 0, 5*time.Second)
}
