package rfbgate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// TestSlowViewerGetsCloseFrame: a viewer that stops reading is ended after
// WriteTimeout; one that reads again within closeGrace gets the rest of
// the message being written and then the close frame (1008, "viewer
// stopped reading"), and the log says the frame went out.
func TestSlowViewerGetsCloseFrame(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 64<<10, 2*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:    []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		WriteTimeout: time.Second,
	})
	c := watchClose(t, tr, "a", "slow", false)
	waitFor(t, func() bool { return strings.Contains(tr.logs.String(), "dropping a viewer that stopped reading") })
	buf := make([]byte, 256<<10)
	var err error
	for err == nil {
		_, err = c.Read(buf)
	}
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != reasonStalled {
		t.Fatalf("a viewer reading again within the grace: stream ended with %v, want close 1008 %q", err, reasonStalled)
	}
	waitViewers(t, tr, "a", 0, 5*time.Second)
	if l := tr.logs.String(); !strings.Contains(l, `code=1008 reason="viewer stopped reading" close_sent=true`) {
		t.Fatalf("the log does not say the close frame went out:\n%s", l)
	}
}

// TestIdleLinkNotHeldBack: bytes the computer sends before going quiet
// reach the viewer while the link stays idle (the batch is sent when a read
// would wait, not when it is full): one byte alone, and a burst larger
// than the batch buffer followed by one byte.
func TestIdleLinkNotHeldBack(t *testing.T) {
	burst := make([]byte, 100*seededMsg) // 400 KiB: more than one batch
	newSeededStream(7).fill(burst)
	for _, c := range []struct {
		name   string
		script []byte
	}{
		{"one byte", []byte{rfb.MsgBell}},
		{"burst then one byte", append(burst, rfb.MsgBell)},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := scriptedVNC(t, testPassword, c.script) // then quiet, connection open
			tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
			v := watchClose(t, tr, "a", "s", true)
			waitFor(t, func() bool { return v.received() == int64(len(c.script)) })
			if n := v.received(); n != int64(len(c.script)) {
				t.Fatalf("received %d of the %d bytes the computer sent before going quiet", n, len(c.script))
			}
		})
	}
}

// TestViewersOwnCloseWhileStreaming: a viewer that closes with its own
// code while the screen streams to it is logged with that code, every
// time. coder/websocket answers a close frame and closes the connection,
// so a write in flight fails at the same moment; the read side, which saw
// the frame, gives the verdict, not the write that found the socket gone.
func TestViewersOwnCloseWhileStreaming(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 64<<10, time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
	})
	const viewers = 30
	for i := range viewers {
		c := tr.open(t, "a", fmt.Sprintf("s%d", i), false)
		waitFor(t, func() bool { return c.Received() > 256<<10 })
		c.ws.Close(websocket.StatusCode(4000+i), "bye")
		waitViewers(t, tr, "a", 0, 5*time.Second)
	}
	l := tr.logs.String()
	for i := range viewers {
		want := fmt.Sprintf(`surface=s%d `, i)
		code := fmt.Sprintf(`by=viewer code=%d reason=bye`, 4000+i)
		found := false
		for _, line := range strings.Split(l, "\n") {
			if strings.Contains(line, "rfbgate: viewer closed") && strings.Contains(line, want) {
				found = true
				if !strings.Contains(line, code) {
					t.Errorf("viewer s%d closed with %d \"bye\" while the screen streamed; logged as\n%s", i, 4000+i, line)
				}
			}
		}
		if !found {
			t.Errorf("no close record for s%d in\n%s", i, l)
		}
	}
}
