package rfbgate

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirebench/wirebench/internal/rfbviewer"
	"github.com/wirebench/wirebench/internal/xpaint"
)

// crowdMode is one way glass can serve a crowd: configure sets it in a
// Config, shared says whether every viewer is to share one Xvnc
// connection.
type crowdMode struct {
	name      string
	configure func(*Config)
	shared    bool
}

// crowdModes are the modes TestShareCrowd runs in.
var crowdModes = []crowdMode{
	{name: "hub", configure: func(c *Config) { c.PerViewerUpstream = false }, shared: true},
	{name: "per-viewer", configure: func(c *Config) { c.PerViewerUpstream = true }, shared: false},
}

// crowdQueueMax bounds a paused viewer's queue in shared mode.
const crowdQueueMax = 1 << 20

// TestShareCrowd, from the outside: a real Xvnc with the xpaint damage
// generator painting in it, and a crowd of rfbviewer viewers through the
// relay (noVNC's pixel format and encodings, no JPEG quality level, so
// lossless): three from the start, one of them paused for a while in the
// middle of the damage, and one joining late. After the damage stops,
// every viewer's framebuffer equals that of a viewer connected straight to
// Xvnc, and the X server's own screen, pixel for pixel. In shared mode
// Xvnc saw two handshakes from glass for all of them (the first viewer's
// solo connection, then the shared one), and the
// paused viewer's queued_bytes (status API) stayed within 1 MiB; in
// per-viewer mode it saw one a viewer.
func TestShareCrowd(t *testing.T) {
	for _, m := range crowdModes {
		t.Run(m.name, func(t *testing.T) { runCrowd(t, m) })
	}
}

// damagedXvnc starts a real Xvnc and the xpaint damage generator in it
// (its cursor hidden: Xvnc would draw it into the pixels, not into
// GetImage's), with the damage's first frame painted: the desktop.
func damagedXvnc(t *testing.T, seed uint64) (*xvnc, *xpaint.Conn, *xpaint.Damage) {
	t.Helper()
	xv := startXvnc(t, testPassword)
	xp, err := xpaint.Dial(strconv.Itoa(xv.Display))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xp.Close() })
	xp.HideCursor()
	dmg, err := xpaint.NewDamage(xp, xpaint.DamageConfig{Seed: seed, FPS: 25})
	if err != nil {
		t.Fatal(err)
	}
	if err := dmg.Frame(); err != nil {
		t.Fatal(err)
	}
	return xv, xp, dmg
}

// startDamage starts dmg painting until the returned stop, which fails
// the test if the damage ended in an error; a test that ends first stops
// it in its cleanup.
func startDamage(t *testing.T, dmg *xpaint.Damage) (stop func()) {
	t.Helper()
	dmg.Start(0)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			dmg.Stop()
		}
	})
	return func() {
		t.Helper()
		stopped = true
		if err := dmg.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

func runCrowd(t *testing.T, mode crowdMode) {
	xv, xp, dmg := damagedXvnc(t, 34)
	cfg := Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}}
	mode.configure(&cfg)
	tr := newTestRelay(t, cfg)

	ref := directViewer(t, xv.Addr)
	crowd := []*crowdViewer{openViewerVia(t, tr, "s0", "", 0), openViewerVia(t, tr, "s1", "", 0), openViewerVia(t, tr, "s2", "", 0)}
	for _, v := range crowd {
		waitFull(t, v.v, v.name)
	}
	paused := crowd[1]

	stopDamage := startDamage(t, dmg)
	waitFrames(t, dmg, 10)
	paused.v.Pause()
	// its queue, read from the status API until it resumes
	var qmu sync.Mutex
	var queued []crowdQueueStatus
	pollDone := make(chan struct{})
	pollStop := make(chan struct{})
	go func() {
		defer close(pollDone)
		for {
			select {
			case <-pollStop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			q, err := crowdStatus(tr, paused.stream)
			qmu.Lock()
			if err != nil {
				q.err = err
			}
			queued = append(queued, q)
			qmu.Unlock()
		}
	}()
	waitFrames(t, dmg, 30)
	late := openViewerVia(t, tr, "late", "", 0)
	waitFull(t, late.v, late.name)
	crowd = append(crowd, late)
	waitFrames(t, dmg, 60)
	stopDamage()
	close(pollStop)
	<-pollDone
	pst := paused.v.Stats()
	paused.v.Resume()

	want := xScreen(t, xp)
	waitPixels(t, ref, want, "the viewer straight to Xvnc")
	for _, v := range crowd {
		waitPixels(t, v.v, want, v.name)
		st := v.v.Stats()
		t.Logf("%s: %d updates, %d rectangles, %d bytes, %d full; decoder: CopyRect %d, Tight %d (fill %d, JPEG %d, copy %d, palette %d), ZRLE %d, Raw %d",
			v.name, st.Updates, st.Rects, st.Bytes, st.FullUpdates, st.Decoder.CopyRect, st.Decoder.Tight, st.Decoder.TightFill,
			st.Decoder.TightJPEG, st.Decoder.TightCopy, st.Decoder.TightPalette, st.Decoder.ZRLE, st.Decoder.Raw)
	}
	t.Logf("the paused viewer: %d updates before Resume, %d after", pst.Updates, paused.v.Stats().Updates-pst.Updates)

	ds := tr.DialStats("a")
	want1 := int64(len(crowd))
	if mode.shared {
		want1 = 2 // the first viewer's solo connection, then the shared one
	}
	if ds.Handshakes != want1 {
		t.Errorf("%s: glass made %d handshakes with Xvnc for %d viewers, want %d (dial stats %+v)", mode.name, ds.Handshakes, len(crowd), want1, ds)
	}
	var most, skipped int64
	known := 0
	for _, q := range queued {
		if q.err != nil {
			t.Fatalf("status API: %v", q.err)
		}
		if q.ok {
			known++
			most, skipped = max(most, q.queued), q.skipped
		}
	}
	t.Logf("%s: the paused viewer's queued_bytes read %d times (%d with the field), at most %d; it skipped %d updates", mode.name, len(queued), known, most, skipped)
	if mode.shared {
		if known == 0 {
			t.Fatalf("hub mode: the status API never reported the paused viewer's queued_bytes (%d reads)", len(queued))
		}
		if most > crowdQueueMax {
			t.Errorf("hub mode: the paused viewer's queued_bytes reached %d, more than %d", most, crowdQueueMax)
		}
	}
}

// crowdViewer is an rfbviewer viewer through the relay.
type crowdViewer struct {
	name   string
	v      *rfbviewer.Viewer
	stream string
}

// openViewerVia opens an rfbviewer viewer of computer "a" on surface
// name, through the proxy at via ("": straight), asking for JPEG quality
// level quality-1 (0: none). It is closed when the test ends.
func openViewerVia(t *testing.T, tr *testRelay, name, via string, quality int) *crowdViewer {
	t.Helper()
	tk, err := tr.Watch("a", name)
	if err != nil {
		t.Fatal(err)
	}
	url := tr.wsURL(tk.Token, "")
	if via != "" {
		url = "ws://" + via + url[strings.Index(url, "/v1/"):]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"binary"}, HTTPHeader: http.Header{}})
	if err != nil {
		t.Fatalf("viewer %s: %v", name, err)
	}
	ws.SetReadLimit(-1)
	v, err := rfbviewer.Dial(ByteStream(ws), rfbviewer.Options{Quality: quality})
	if err != nil {
		ws.CloseNow()
		t.Fatalf("viewer %s: %v", name, err)
	}
	t.Cleanup(func() {
		v.Stop()
		ws.CloseNow()
		<-v.Done()
	})
	return &crowdViewer{name: name, v: v, stream: streamID(tk.Token)}
}

// directViewer is an rfbviewer viewer straight to Xvnc at addr (VNC
// authentication by ClientHandshake), the reference.
func directViewer(t *testing.T, addr string) *rfbviewer.Viewer {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(60 * time.Second))
	si, err := ClientHandshake(c, NewSecret(testPassword))
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	c.SetDeadline(time.Time{})
	v, err := rfbviewer.Start(c, rfbviewer.ServerInit{Width: int(si.Width), Height: int(si.Height), Name: si.Name}, rfbviewer.Options{})
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		v.Stop()
		c.Close()
		<-v.Done()
	})
	return v
}

// waitFull waits for v's first update covering the whole screen.
func waitFull(t *testing.T, v *rfbviewer.Viewer, name string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); v.Stats().FirstFull == 0; time.Sleep(5 * time.Millisecond) {
		if err := v.Err(); err != nil || time.Now().After(deadline) {
			t.Fatalf("%s: no full update within 60 s: %v", name, err)
		}
	}
}

// waitFrames waits until d has painted n frames.
func waitFrames(t *testing.T, d *xpaint.Damage, n int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); d.Frames() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the damage painted %d frames in 60 s, want %d", d.Frames(), n)
		}
	}
}

// xScreen is the X server's own picture of its root window, in the
// viewers' pixel layout (R, G, B, 0).
func xScreen(t *testing.T, x *xpaint.Conn) []byte {
	t.Helper()
	pix, err := x.Screen()
	if err != nil {
		t.Fatal(err)
	}
	return pix
}

// waitPixels waits until v's pixels are want, or fails after a generous
// deadline saying how many differ.
func waitPixels(t *testing.T, v *rfbviewer.Viewer, want []byte, name string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !v.Equal(want); time.Sleep(10 * time.Millisecond) {
		if err := v.Err(); err != nil || time.Now().After(deadline) {
			p := v.Snapshot()
			diff, first := 0, -1
			for i := 0; i+4 <= len(want) && i+4 <= len(p.Pix); i += 4 {
				if string(p.Pix[i:i+4]) != string(want[i:i+4]) {
					if first < 0 {
						first = i / 4
					}
					diff++
				}
			}
			t.Fatalf("%s: %d pixels differ from the X server's screen (the first at %d,%d), %dx%d, 60 s after the damage stopped: %v",
				name, diff, first%max(p.W, 1), first/max(p.W, 1), p.W, p.H, err)
		}
	}
}

// crowdQueueStatus is one read of a viewer's queue from the status API.
type crowdQueueStatus struct {
	queued, skipped int64
	ok              bool // the fields were there
	err             error
}

// crowdStatus reads GET /v1/computers/a and returns the queue of the
// viewer on stream.
func crowdStatus(tr *testRelay, stream string) (crowdQueueStatus, error) {
	resp, err := http.Get(tr.srv.URL + "/v1/computers/a")
	if err != nil {
		return crowdQueueStatus{}, err
	}
	defer resp.Body.Close()
	var st struct {
		Viewers []struct {
			Stream  string `json:"stream"`
			Queued  *int64 `json:"queued_bytes"`
			Skipped *int64 `json:"skipped_updates"`
		} `json:"viewers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return crowdQueueStatus{}, fmt.Errorf("GET /v1/computers/a: status %d: %v", resp.StatusCode, err)
	}
	for _, v := range st.Viewers {
		if v.Stream == stream {
			if v.Queued == nil || v.Skipped == nil {
				return crowdQueueStatus{}, nil
			}
			return crowdQueueStatus{queued: *v.Queued, skipped: *v.Skipped, ok: true}, nil
		}
	}
	return crowdQueueStatus{}, fmt.Errorf("GET /v1/computers/a: no viewer on stream %s among %d", stream, len(st.Viewers))
}
