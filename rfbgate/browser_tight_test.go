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
	"github.com/wirebench/wirebench/internal/rfb"
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

// sums is img's summed-area table: the colour sums of any rectangle in
// constant time, so the photo can be looked for at many offsets.
type sums struct {
	w, h int
	s    [][3]int64 // (w+1)×(h+1): s[y*(w+1)+x] sums the pixels above and left of (x, y)
}

func newSums(img image.Image) *sums {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	t := &sums{w: w, h: h, s: make([][3]int64, (w+1)*(h+1))}
	for y := 0; y < h; y++ {
		var row [3]int64
		for x := 0; x < w; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			row[0] += int64(r >> 8)
			row[1] += int64(g >> 8)
			row[2] += int64(bl >> 8)
			above := t.s[y*(w+1)+x+1]
			t.s[(y+1)*(w+1)+x+1] = [3]int64{above[0] + row[0], above[1] + row[1], above[2] + row[2]}
		}
	}
	return t
}

// blockSize is the side of the blocks whose mean colours are compared:
// JPEG's loss averages out over them, a wrong picture does not.
const blockSize = 16

// blockMeans is the mean colour of each blockSize square of a photo-sized
// area whose top left corner is at (x0, y0); ok is false when the area
// does not fit.
func (t *sums) blockMeans(x0, y0 int) (m [][3]float64, ok bool) {
	if x0 < 0 || y0 < 0 || x0+workload.PhotoWidth > t.w || y0+workload.PhotoHeight > t.h {
		return nil, false
	}
	at := func(x, y int) [3]int64 { return t.s[y*(t.w+1)+x] }
	for y := y0; y+blockSize <= y0+workload.PhotoHeight; y += blockSize {
		for x := x0; x+blockSize <= x0+workload.PhotoWidth; x += blockSize {
			a, b, c, d := at(x, y), at(x+blockSize, y), at(x, y+blockSize), at(x+blockSize, y+blockSize)
			var mean [3]float64
			for i := range mean {
				mean[i] = float64(d[i]-b[i]-c[i]+a[i]) / (blockSize * blockSize)
			}
			m = append(m, mean)
		}
	}
	return m, true
}

// photoError is the mean absolute difference, per colour channel, between
// the photo's block means and the canvas's with the photo at (x, y).
func photoError(want [][3]float64, canvas *sums, x, y int) float64 {
	got, ok := canvas.blockMeans(x, y)
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
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{}))
	t.Cleanup(srv.Close)
	want, _ := newSums(workload.Photo()).blockMeans(0, 0)

	kinds := func(m metrics) (n [rfb.NumKinds]float64) {
		for k, l := range rectKindLabels {
			n[k] = m.get("glass_rects_total", "computer", "agent1", "encoding", l[0], "kind", l[1])
		}
		return n
	}
	for _, quality := range []int{2, 6, 9} {
		t.Run(fmt.Sprintf("quality_%d", quality), func(t *testing.T) {
			ctx := newBrowser(t) // a browser of its own: each has 90 s
			eval := func(expr string) (string, error) { return chromedp.Run(ctx, chromedp.Evaluate[string](expr)) }
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
			deadline := time.Now().Add(45 * time.Second) // the first time, Chromium may still be painting
			for {
				img = canvasImage(t, eval)
				canvas := newSums(img)
				best, bx, by = 255, 0, 0
				for y := 0; y <= 64; y++ {
					for x := 0; x <= 8; x++ {
						if e := photoError(want, canvas, x, y); e < best {
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
				now := kinds(scrape(t, tr.Relay))
				var line []string
				for k := range now {
					if d := now[k] - before[k]; d > 0 {
						line = append(line, fmt.Sprintf("%s/%s %v", rectKindLabels[k][0], rectKindLabels[k][1], d))
					}
				}
				l := chrome.Log()
				t.Fatalf("quality %d: the canvas does not show the photo: mean block error %.1f at best (at %d,%d), want at most 8 (canvas in %s); rectangles so far: %s; the end of chromium's log:\n%s",
					quality, best, bx, by, shot, strings.Join(line, ", "), l[max(0, len(l)-3000):])
			}
			time.Sleep(time.Second) // Xvnc's lossless refresh of the JPEG areas, if any
			// Navigate away so the viewer closes and its counts are final.
			if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
				t.Fatal(err)
			}
			waitViewers(t, tr, "agent1", 0, 10*time.Second)
			after := kinds(scrape(t, tr.Relay))
			var d [rfb.NumKinds]float64
			var line []string
			for k := range d {
				d[k] = after[k] - before[k]
				if d[k] > 0 {
					line = append(line, fmt.Sprintf("%s/%s %v", rectKindLabels[k][0], rectKindLabels[k][1], d[k]))
				}
			}
			t.Logf("quality %d: photo at (%d,%d), mean block error %.2f, mean pixel error %.2f (canvas in %s); rectangles: %s",
				quality, bx, by, best, pixelError(workload.Photo(), img, bx, by), shot, strings.Join(line, ", "))
			if d[rfb.KindTightJPEG] == 0 {
				t.Errorf("quality %d: no Tight JPEG rectangle reached the viewer (%s)", quality, strings.Join(line, ", "))
			}
			if d[rfb.KindRaw] != 0 || d[rfb.KindZRLE] != 0 {
				t.Errorf("quality %d: Xvnc fell back to Raw (%v) or ZRLE (%v)", quality, d[rfb.KindRaw], d[rfb.KindZRLE])
			}
		})
	}

	// The gate and the clipboard filter still hold with Tight: a watcher's
	// typing is dropped, the X clipboard is withheld from it.
	ctx := newBrowser(t)
	eval := func(expr string) (string, error) { return chromedp.Run(ctx, chromedp.Evaluate[string](expr)) }
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/glass/?agent=agent1&surface=watcher")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.state === "watching"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("noVNC did not connect: %v", err)
	}
	xe.take()
	// The page puts a watcher's noVNC in view-only mode; a page that does
	// not (as a hostile one would not) still types into the gate only.
	if _, err := eval(`(() => { window.glass.rfb.viewOnly = false; return "ok"; })()`); err != nil {
		t.Fatal(err)
	}
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
	if gs := tr.GateStats("agent1")["watcher"]; gs.DroppedByType[rfb.MsgQEMU] < 6 {
		t.Fatalf("noVNC's typing did not reach the gate: dropped %d QEMU key events", gs.DroppedByType[rfb.MsgQEMU])
	}
	if got, _ := eval(`document.getElementById("clipboard").value`); strings.Contains(got, "tight secret") {
		t.Fatal("the watcher's page received the X clipboard")
	}
}
