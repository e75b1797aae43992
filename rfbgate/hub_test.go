package rfbgate

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
	"github.com/wirebench/wirebench/internal/rfbviewer"
)

// sharedViewerConn opens a viewer of computer "a" through tr and runs the
// None handshake; it returns the stream and the ServerInit glass sent.
func sharedViewerConn(t *testing.T, tr *testRelay, surface string) (*websocket.Conn, rfbviewer.ServerInit) {
	t.Helper()
	tk, err := tr.Watch("a", surface)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, tr.wsURL(tk.Token, ""), &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { ws.CloseNow() })
	si, err := rfbviewer.Handshake(ByteStream(ws))
	if err != nil {
		t.Fatal(err)
	}
	return ws, si
}

// TestShareOtherPixelFormatClosed: a shared viewer is told noVNC's pixel
// format in ServerInit, and one that asks for another (Xvnc's own, blue
// first) is closed with 1003 and a reason naming the field that differs,
// not served wrong pixels.
func TestShareOtherPixelFormatClosed(t *testing.T) {
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	ws, si := sharedViewerConn(t, tr, "s")
	if si.Format != framebuffer.NoVNCFormat {
		t.Fatalf("ServerInit's pixel format %+v, want noVNC's %+v", si.Format, framebuffer.NoVNCFormat)
	}
	bgrx := []byte{rfb.MsgSetPixelFormat, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
	if _, err := ByteStream(ws).Write(bgrx); err != nil {
		t.Fatal(err)
	}
	var buf [64]byte
	_, err := ByteStream(ws).Read(buf[:])
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusUnsupportedData || !strings.Contains(ce.Reason, "pixel format") || !strings.Contains(ce.Reason, "shift") {
		t.Fatalf("after another pixel format: %v, want a 1003 close naming the pixel format's field", err)
	}
}

// TestSharePrivateRawViewer: a shared viewer whose SetEncodings lists Raw
// alone gets Raw updates of what changed, from glass's framebuffer, one
// per request, and ends with the X server's pixels.
func TestSharePrivateRawViewer(t *testing.T) {
	xv, xp, dmg := damagedXvnc(t, 7)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	ws, si := sharedViewerConn(t, tr, "raw")
	rw := ByteStream(ws)
	enc := binary.BigEndian.AppendUint32([]byte{rfb.MsgSetEncodings, 0, 0, 1}, uint32(rfb.EncodingRaw))
	req := func(incremental byte) []byte {
		return []byte{rfb.MsgFramebufferUpdateRequest, incremental, 0, 0, 0, 0, byte(si.Width >> 8), byte(si.Width), byte(si.Height >> 8), byte(si.Height)}
	}
	if _, err := rw.Write(append(enc, req(0)...)); err != nil {
		t.Fatal(err)
	}
	fb, err := framebuffer.New(int(si.Width), int(si.Height), framebuffer.NoVNCFormat)
	if err != nil {
		t.Fatal(err)
	}
	d := framebuffer.NewDecoder(rw, fb, framebuffer.Limits{})
	next := func() {
		t.Helper()
		if _, err := d.NextUpdate(); err != nil {
			t.Fatal(err)
		}
	}
	next() // the whole screen
	dmg.Start(0)
	waitFrames(t, dmg, 20)
	if err := dmg.Stop(); err != nil {
		t.Fatal(err)
	}
	want := xScreen(t, xp)
	updates := 1
	for deadline := time.Now().Add(30 * time.Second); ; updates++ {
		if p := fb.Pix(); string(p[:len(want)]) == string(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d updates the Raw viewer's pixels still differ from the X server's", updates)
		}
		if _, err := rw.Write(req(1)); err != nil {
			t.Fatal(err)
		}
		next()
	}
	st := d.Stats()
	if st.Raw == 0 || st.Tight != 0 || st.CopyRect != 0 || st.ZRLE != 0 {
		t.Fatalf("the Raw-only viewer got %+v, want Raw rectangles only", st)
	}
	t.Logf("%d updates, %d Raw rectangles", updates, st.Raw)
}
