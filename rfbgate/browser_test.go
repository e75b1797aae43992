package rfbgate

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfb"
)

// noVNCDir finds noVNC 1.7 as the Makefile installs it (node_modules at the
// repository top); missing, it fails the test unless PEERS=off.
func noVNCDir(t testing.TB) string {
	t.Helper()
	return peertest.NoVNC(t)
}

// newBrowser starts headless Chromium with the flags this machine needs.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	bin := needPeer(t, "chromium")
	opts := peertest.HeadlessChromium(bin, t.TempDir(), chromedp.WindowSize(900, 640))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}

// TestBrowserNoVNC: real noVNC 1.7 in headless Chromium (the npm package
// given as HandlerOptions.NoVNCDir, in place of glass's own copy) opens /glass/,
// renders the real Xvnc screen, and its typing reaches X only after
// take-over: while it watches the page keeps noVNC view-only and says its
// input is not sent, and a page that sends anyway is stopped by the gate.
func TestBrowserNoVNC(t *testing.T) {
	novnc := noVNCDir(t)
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{
		Computers:    []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		PingInterval: 500 * time.Millisecond,
	})
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{NoVNCDir: novnc}))
	t.Cleanup(srv.Close)
	ctx := newBrowser(t)

	page := srv.URL + "/glass/?agent=agent1&surface=browser1"
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		st, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
		t.Fatalf("noVNC did not connect (status %q): %v\nrelay log:\n%s", st, err, tr.logs.String())
	}
	// Give noVNC a moment to draw the first framebuffer update.
	time.Sleep(1500 * time.Millisecond)
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#screen canvas")))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	os.WriteFile(filepath.Join(os.TempDir(), "rfbgate-browser.png"), shot, 0o644)
	if n := distinctColours(t, shot); n < 2 {
		t.Fatalf("the screen is blank: %d colour(s) in the canvas", n)
	}

	// Typing while watching: the page keeps noVNC in view-only mode, so
	// nothing is sent, and says so when the screen is clicked.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("abc")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.glass.rfb.viewOnly && !document.getElementById("hint").hidden && document.getElementById("hint-text").textContent.includes("not sent")`, chromedp.WithPollingTimeout(2*time.Second))); err != nil {
		t.Fatalf("the watching page did not say its input is not sent: %v", err)
	}
	time.Sleep(700 * time.Millisecond)
	if ev := xe.take(); len(ev) != 0 {
		t.Fatalf("typing while watching reached X: %v", ev)
	}
	if gs := tr.GateStats("agent1")["browser1"]; gs.DroppedByType[rfb.MsgQEMU]+gs.DroppedByType[rfb.MsgKeyEvent] != 0 {
		t.Fatalf("a view-only page sent keys: %+v", gs)
	}
	// A page that is not view-only (as a hostile one would not be) sends
	// its typing (QEMU extended key events, since Xvnc advertised −258);
	// the gate drops it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.glass.rfb.viewOnly = false`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("abc")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if ev := xe.take(); len(ev) != 0 {
		t.Fatalf("typing while watching reached X: %v", ev)
	}
	gs := tr.GateStats("agent1")["browser1"]
	if gs.DroppedByType[rfb.MsgQEMU] < 6 || gs.DroppedByType[rfb.MsgPointerEvent] == 0 {
		t.Fatalf("noVNC's typing did not reach the gate as QEMU extended key events: dropped %d QEMU, %d pointer, %d key",
			gs.DroppedByType[rfb.MsgQEMU], gs.DroppedByType[rfb.MsgPointerEvent], gs.DroppedByType[rfb.MsgKeyEvent])
	}
	t.Logf("while watching the gate dropped %d QEMU key events, %d KeyEvents, %d PointerEvents, %d ClientCutText; removed %d SetEncodings entries (−316 and encodings the relay does not frame)",
		gs.DroppedByType[rfb.MsgQEMU], gs.DroppedByType[rfb.MsgKeyEvent], gs.DroppedByType[rfb.MsgPointerEvent], gs.DroppedByType[rfb.MsgClientCutText], gs.EncodingsDrop)
	// Take over with the page's button, then type.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "typing"`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("take-over did not happen: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("abc")); err != nil {
		t.Fatal(err)
	}
	ev := xe.waitFor(5*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 3 })
	if count(ev, "KeyPress") != 3 || count(ev, "KeyRelease") != 3 {
		t.Fatalf("typing after take-over: X saw %v, want 3 key presses and releases", ev)
	}
	if h, ok := tr.leases.Holder("agent1"); !ok || h != "browser1" {
		t.Fatalf("holder %q %v", h, ok)
	}
	// Give back with the button: typing stops arriving.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#give"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("give-back did not happen: %v", err)
	}
	xe.take()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("xyz")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if ev := xe.take(); count(ev, "KeyPress") != 0 || count(ev, "ButtonPress") != 0 {
		t.Fatalf("typing after give-back reached X: %v", ev)
	}
	st, _ := tr.Status("agent1")
	if len(st.Viewers) != 1 || st.Viewers[0].Surface != "browser1" || st.Viewers[0].RTTms < 0 {
		t.Fatalf("status %+v", st)
	}
	if strings.Contains(tr.logs.String(), testPassword) {
		t.Fatal("the password is in the log")
	}
}

// distinctColours counts colours in a PNG (up to 16).
func distinctColours(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y && len(seen) < 16; y += 3 {
		for x := r.Min.X; x < r.Max.X && len(seen) < 16; x += 3 {
			c := img.At(x, y)
			r, g, b, a := c.RGBA()
			seen[[4]uint32{r, g, b, a}] = true
		}
	}
	return len(seen)
}

// TestBrowserBatchedMessages: noVNC draws a screen that glass sent in
// batches whose boundaries fall anywhere in the RFB stream. The computer
// sends one 1.2 MB Raw update (the top half white, the bottom half grey,
// alike in any channel order) at once; glass relays it in several
// messages, each cut wherever the batch ended (up to 256 KiB while the
// browser keeps up, smaller while it lags: see downstream), and the
// canvas shows both halves.
func TestBrowserBatchedMessages(t *testing.T) {
	const w, h = 640, 480
	half := func(v byte) []byte { return bytes.Repeat([]byte{v}, w*h/2*4) }
	script := append(append(append(srvUpdate(srvRect(0, 0, w, h/2, rfb.EncodingRaw)), half(0xff)...), srvRect(0, h/2, w, h/2, rfb.EncodingRaw)...), half(0x80)...)
	script[3] = 2 // two rectangles
	addr := scriptedVNC(t, testPassword, script)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{}))
	t.Cleanup(srv.Close)
	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/glass/?agent=a&surface=s")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("noVNC did not connect: %v\nrelay log:\n%s", err, tr.logs.String())
	}
	m := waitMetric(t, tr.Relay, func(m metrics) bool {
		return m.get("glass_bytes_total", "direction", "to_viewer") >= float64(len(script))
	})
	bytesOut, msgs := m.get("glass_bytes_total", "direction", "to_viewer"), m.get("glass_viewer_messages_total")
	if bytesOut != float64(len(script)) || msgs < float64(len(script)/serverBatchMax) {
		t.Fatalf("glass sent %v bytes in %v messages; want all %d bytes in at least %d messages of at most %d", bytesOut, msgs, len(script), len(script)/serverBatchMax, serverBatchMax)
	}
	t.Logf("%d bytes in %v messages", len(script), msgs)
	// The canvas, sampled in the middle of each half.
	var top, bottom string
	px := `(y) => { const c = document.querySelector("#screen canvas"); const d = c.getContext("2d").getImageData(c.width/2, Math.floor(c.height*y), 1, 1).data; return d[0]+","+d[1]+","+d[2]; }`
	deadline := time.Now().Add(10 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if top, err = chromedp.Run(ctx, chromedp.Evaluate[string]("("+px+")(0.25)")); err != nil {
			t.Fatal(err)
		}
		if bottom, err = chromedp.Run(ctx, chromedp.Evaluate[string]("("+px+")(0.75)")); err != nil {
			t.Fatal(err)
		}
		if top == "255,255,255" && bottom == "128,128,128" {
			return
		}
	}
	t.Fatalf("the canvas shows %s at the top and %s at the bottom, want 255,255,255 and 128,128,128", top, bottom)
}
