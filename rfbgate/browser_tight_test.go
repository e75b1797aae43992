package rfbgate

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wirebench/wirebench/internal/workload"
)

// photoPage serves a still page showing workload.Photo at its top left
// corner on black, and closes ready once the image has loaded.
func photoPage(t *testing.T) (url string, ready <-chan struct{}) {
	t.Helper()
	var pngb bytes.Buffer
	if err := png.Encode(&pngb, workload.Photo()); err != nil {
		t.Fatal(err)
	}
	loaded := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><style>html,body{margin:0;background:#000;overflow:hidden}img{display:block}</style></head>
<body><img id="p" src="/photo.png" width="%d" height="%d"><script>
document.getElementById("p").decode().then(() => requestAnimationFrame(() => setTimeout(() => fetch("/ready", {method: "POST"}), 300)));
</script></body></html>`, workload.PhotoWidth, workload.PhotoHeight)
	})
	mux.HandleFunc("GET /photo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngb.Bytes())
	})
	mux.HandleFunc("POST /ready", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(loaded) })
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux) // loopback
	t.Cleanup(srv.Close)
	return srv.URL + "/", loaded
}

// blockMeans is the mean colour of each 16×16 block of img whose top left
// corner is at (x0+16i, y0+16j), for a photo-sized area; ok is false when
// the area does not fit in img.
func blockMeans(img image.Image, x0, y0 int) (m [][3]float64, ok bool) {
	const bs = 16
	b := img.Bounds()
	if x0 < b.Min.X || y0 < b.Min.Y || x0+workload.PhotoWidth > b.Max.X || y0+workload.PhotoHeight > b.Max.Y {
		return nil, false
	}
	for by := 0; by < workload.PhotoHeight/bs; by++ {
		for bx := 0; bx < workload.PhotoWidth/bs; bx++ {
			var s [3]float64
			for y := y0 + by*bs; y < y0+by*bs+bs; y++ {
				for x := x0 + bx*bs; x < x0+bx*bs+bs; x++ {
					r, g, bl, _ := img.At(x, y).RGBA()
					s[0] += float64(r >> 8)
					s[1] += float64(g >> 8)
					s[2] += float64(bl >> 8)
				}
			}
			for c := range s {
				s[c] /= bs * bs
			}
			m = append(m, s)
		}
	}
	return m, true
}

// photoError is the mean absolute difference, per colour channel, between
// the photo's 16×16 block means and the canvas's with the photo at (x, y).
func photoError(want [][3]float64, canvas image.Image, x, y int) float64 {
	got, ok := blockMeans(canvas, x, y)
	if !ok {
		return 255
	}
	var d float64
	for i := range want {
		for c := 0; c < 3; c++ {
			d += max(want[i][c]-got[i][c], got[i][c]-want[i][c])
		}
	}
	return d / float64(3*len(want))
}

// pixelError is the mean absolute difference, per colour channel, between
// photo's pixels and canvas's with the photo at (x, y): 0 when drawn
// losslessly, JPEG's loss otherwise.
func pixelError(photo, canvas image.Image, x, y int) float64 {
	var d float64
	b := photo.Bounds()
	for py := b.Min.Y; py < b.Max.Y; py++ {
		for px := b.Min.X; px < b.Max.X; px++ {
			r1, g1, b1, _ := photo.At(px, py).RGBA()
			r2, g2, b2, _ := canvas.At(x+px, y+py).RGBA()
			for _, c := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
				d += max(float64(c[0]>>8)-float64(c[1]>>8), float64(c[1]>>8)-float64(c[0]>>8))
			}
		}
	}
	return d / float64(3*b.Dx()*b.Dy())
}

// canvasImage reads noVNC's framebuffer canvas (its own pixels, unscaled).
func canvasImage(t *testing.T, run func(string) (string, error)) image.Image {
	t.Helper()
	url, err := run(`document.querySelector("#screen canvas").toDataURL("image/png")`)
	if err != nil {
		t.Fatalf("reading the canvas: %v", err)
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	if err != nil {
		t.Fatalf("the canvas's data URL: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the canvas's PNG: %v", err)
	}
	return img
}

// TestBrowserTightJPEG: a real Xvnc shows a photo (workload.Photo, in a
// real Chromium window in its display); real noVNC 1.7 in headless
// Chromium views it through glass at JPEG quality levels 2, 6 and 9. Glass
// lets Tight through, so Xvnc sends Tight with JPEG sub-rectangles
// (counted by glass_rects_total, from the outside), noVNC draws them (the
// canvas shows the photo, its 16×16 block means within JPEG's tolerance),
// and nothing falls back to ZRLE or Raw. The gate still holds: a watcher's
// typing does not reach X, and the X clipboard does not reach it.
func TestBrowserTightJPEG(t *testing.T) {
	novnc := noVNCDir(t)
	xv := startXvnc(t, testPassword)
	url, ready := photoPage(t)
	chrome := workload.StartChromium(t, strconv.Itoa(xv.Display), url, 640, 480)
	select {
	case <-ready:
	case <-chrome.Exited():
		t.Fatalf("chromium in the Xvnc display exited:\n%s", chrome.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("the photo page did not load in chromium within 60 s:\n%s", chrome.Log())
	}
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{
		Computers:    []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		PingInterval: 500 * time.Millisecond,
	})
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{NoVNCDir: novnc}))
	t.Cleanup(srv.Close)
	ctx := newBrowser(t)
	eval := func(expr string) (string, error) { return chromedp.Run(ctx, chromedp.Evaluate[string](expr)) }
	want, _ := blockMeans(workload.Photo(), 0, 0)

	kinds := func(m metrics) (n [numRectKinds]float64) {
		for k, l := range rectKindLabels {
			n[k] = m.get("glass_rects_total", "computer", "agent1", "encoding", l[0], "kind", l[1])
		}
		return n
	}
	for _, quality := range []int{2, 6, 9} {
		before := kinds(scrape(t, tr.Relay))
		page := fmt.Sprintf("%s/glass/?agent=agent1&surface=q%d&quality=%d", srv.URL, quality, quality)
		if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
			t.Fatalf("navigate: %v", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("quality %d: noVNC did not connect: %v\nrelay log:\n%s", quality, err, tr.logs.String())
		}
		if q, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.glass.rfb.qualityLevel`)); err != nil || q != quality {
			t.Fatalf("noVNC's quality level is %d (%v), want %d", q, err, quality)
		}
		// The canvas shows the photo: find where the window put it (no
		// window manager: the top left corner, give or take a bar above).
		var best float64
		var bx, by int
		var img image.Image
		deadline := time.Now().Add(60 * time.Second) // the first time, Chromium may still be painting
		for {
			img = canvasImage(t, eval)
			best, bx, by = 255, 0, 0
			for y := 0; y <= 64; y++ {
				for x := 0; x <= 8; x++ {
					if e := photoError(want, img, x, y); e < best {
						best, bx, by = e, x, y
					}
				}
			}
			if best <= 8 || time.Now().After(deadline) {
				break
			}
			time.Sleep(300 * time.Millisecond)
		}
		shot := filepath.Join(os.TempDir(), fmt.Sprintf("rfbgate-tight-q%d.png", quality))
		if f, err := os.Create(shot); err == nil {
			png.Encode(f, img)
			f.Close()
		}
		if best > 8 {
			t.Fatalf("quality %d: the canvas does not show the photo: mean block error %.1f at best (at %d,%d), want at most 8 (canvas in %s)", quality, best, bx, by, shot)
		}
		time.Sleep(time.Second) // Xvnc's lossless refresh of the JPEG areas, if any
		// Navigate away so the viewer closes and its counts are final.
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
		waitViewers(t, tr, "agent1", 0, 10*time.Second)
		after := kinds(scrape(t, tr.Relay))
		var d [numRectKinds]float64
		var line []string
		for k := range d {
			d[k] = after[k] - before[k]
			if d[k] > 0 {
				line = append(line, fmt.Sprintf("%s/%s %v", rectKindLabels[k][0], rectKindLabels[k][1], d[k]))
			}
		}
		t.Logf("quality %d: photo at (%d,%d), mean block error %.2f, mean pixel error %.2f (canvas in %s); rectangles: %s",
			quality, bx, by, best, pixelError(workload.Photo(), img, bx, by), shot, strings.Join(line, ", "))
		if d[kindTightJPEG] == 0 {
			t.Errorf("quality %d: no Tight JPEG rectangle reached the viewer (%s)", quality, strings.Join(line, ", "))
		}
		if d[kindRaw] != 0 || d[kindZRLE] != 0 {
			t.Errorf("quality %d: Xvnc fell back to Raw (%v) or ZRLE (%v)", quality, d[kindRaw], d[kindZRLE])
		}
	}

	// The gate and the clipboard filter still hold with Tight: a watcher's
	// typing is dropped, the X clipboard is withheld from it.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/glass/?agent=agent1&surface=watcher")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("noVNC did not connect: %v", err)
	}
	xe.take()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("abc")); err != nil {
		t.Fatal(err)
	}
	xclipCopy(t, xv.Display, "tight secret")
	m := waitMetric(t, tr.Relay, func(m metrics) bool {
		return m.get("glass_server_messages_withheld_total", "computer", "agent1") >= 1
	})
	if n := m.get("glass_server_messages_withheld_total", "computer", "agent1"); n < 1 {
		t.Fatalf("the X clipboard was not withheld from the watcher (%v withheld)", n)
	}
	time.Sleep(700 * time.Millisecond)
	if ev := xe.take(); count(ev, "KeyPress") != 0 || count(ev, "ButtonPress") != 0 {
		t.Fatalf("typing while watching reached X: %v", ev)
	}
	if gs := tr.GateStats("agent1")["watcher"]; gs.DroppedByType[MsgQEMU] < 6 {
		t.Fatalf("noVNC's typing did not reach the gate: dropped %d QEMU key events", gs.DroppedByType[MsgQEMU])
	}
	if got, _ := eval(`document.getElementById("clipboard").value`); strings.Contains(got, "tight secret") {
		t.Fatal("the watcher's page received the X clipboard")
	}
}
