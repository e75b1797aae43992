package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wirebench/wirebench/faultproxy"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/testio"
	"github.com/wirebench/wirebench/internal/workload"
)

// The viewer benchmarks' screen: a real Xvnc this size showing the
// workload page (internal/workload) in a real Chromium window.
const (
	viewerWidth  = 1280
	viewerHeight = 720
)

// The noVNC settings both paths ask for: noVNC 1.7's defaults, set
// explicitly so that the two viewers cannot differ.
const (
	viewerQuality     = 6
	viewerCompression = 2
)

// viewerPath is one way from the screen to a viewer: a relay (glass or
// websockify), a faultproxy in front of it through which the viewer
// connects (its ToClient count is the bytes to the viewer, counted the
// same way on both paths, and its faults shape the link), and noVNC in
// its own headless Chromium.
type viewerPath struct {
	name   string
	relay  string // "glass" or "websockify"
	proxy  *faultproxy.Proxy
	ctx    context.Context // the viewer's page
	stream string          // glass's stream id for the viewer; "" for websockify
}

// viewerRig is the screen and both paths, all started for one benchmark.
type viewerRig struct {
	xvnc    *peertest.XvncServer
	win     *workload.Window
	glass   string // glass's address (its own process)
	paths   []*viewerPath
	harness string // the harness server's URL
}

// viewerPassword is the VNC password of the rig's Xvnc.
const viewerPassword = "viewer-pw"

// newViewerRig starts the rig: Xvnc with the workload window, glass (its
// own process, bin from ./cmd/glass or GLASS_BIN) and websockify in front
// of it, one faultproxy in front of each (cfg, then shape applied to both),
// and noVNC in headless Chromium connected through each; it returns once
// both viewers are connected. Every part ends with the benchmark. A
// missing peer fails the benchmark (PEERS=off skips it).
func newViewerRig(b *testing.B, cfg faultproxy.Config, shape func(*faultproxy.Proxy)) *viewerRig {
	return newRig(b, []pathSpec{{name: "glass", relay: "glass", cfg: cfg, shape: shape}, {name: "websockify", relay: "websockify", cfg: cfg, shape: shape}})
}

// pathSpec is one viewer of a rig: its name, the relay it goes through
// ("glass" or "websockify"), its link (a faultproxy with cfg, shaped by
// shape: nil for none), and whether it connects only when the benchmark
// says (rig.connect).
type pathSpec struct {
	name, relay string
	cfg         faultproxy.Config
	shape       func(*faultproxy.Proxy)
	later       bool
}

// newRig starts Xvnc with the workload window, glass and websockify in
// front of it, and one viewer (noVNC in a headless Chromium of its own,
// through a faultproxy) for each spec; it returns once those not
// connecting later are connected and have drawn.
func newRig(b *testing.B, specs []pathSpec) *viewerRig {
	b.Helper()
	novnc := peertest.NoVNC(b)
	wsBin := peertest.Websockify(b)
	chromium := peertest.Program(b, "chromium")
	rig := &viewerRig{}
	rig.xvnc = peertest.StartXvnc(b, viewerPassword, "-geometry", fmt.Sprintf("%dx%d", viewerWidth, viewerHeight), "-depth", "24")
	rig.win = workload.Open(b, rig.xvnc.Display, viewerWidth, viewerHeight)
	rig.glass = startViewerGlass(b, rig.xvnc.Addr)
	ws := rfbStartWebsockify(b, wsBin, rig.xvnc.Addr)

	mux := http.NewServeMux()
	mux.Handle("/novnc/", http.StripPrefix("/novnc/", http.FileServer(http.Dir(novnc))))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, viewerHarness)
	})
	hs := httptest.NewServer(mux) // 127.0.0.1
	b.Cleanup(hs.Close)
	rig.harness = hs.URL

	var now []*viewerPath
	for _, sp := range specs {
		target := rig.glass
		if sp.relay == "websockify" {
			target = ws
		}
		p, err := faultproxy.New(target, sp.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		if sp.shape != nil {
			sp.shape(p)
		}
		vp := &viewerPath{name: sp.name, relay: sp.relay, proxy: p, ctx: viewerBrowser(b, chromium)}
		rig.paths = append(rig.paths, vp)
		if !sp.later {
			now = append(now, vp)
		}
	}
	// Connect them, then wait for them: the pages open at once.
	for _, p := range now {
		rig.navigate(b, p)
	}
	for _, p := range now {
		rig.waitDrawn(b, p)
	}
	return rig
}

// connect connects a path made with later set, and waits until it has
// drawn.
func (rig *viewerRig) connect(b *testing.B, p *viewerPath) {
	rig.navigate(b, p)
	rig.waitDrawn(b, p)
}

// path is the rig's path named name.
func (rig *viewerRig) path(b *testing.B, name string) *viewerPath {
	for _, p := range rig.paths {
		if p.name == name {
			return p
		}
	}
	b.Fatalf("the rig has no path %q", name)
	return nil
}

// navigate opens p's harness page, connecting it through its relay.
func (rig *viewerRig) navigate(b *testing.B, p *viewerPath) {
	q := url.Values{"quality": {strconv.Itoa(viewerQuality)}, "compression": {strconv.Itoa(viewerCompression)}}
	kx, ky := workload.KeySpot()
	q.Set("kx", strconv.Itoa(kx))
	q.Set("ky", strconv.Itoa(ky))
	q.Set("changed", strconv.Itoa(workload.ChangedAt))
	sx, sy := workload.SpinSpot(viewerWidth, viewerHeight)
	q.Set("sx", strconv.Itoa(sx))
	q.Set("sy", strconv.Itoa(sy))
	if p.relay == "glass" {
		ticket, stream := glassWatch(b, rig.glass, "bench", p.name)
		p.stream = stream
		q.Set("url", "ws://"+p.proxy.Addr()+"/v1/streams/computers/glass?ticket="+url.QueryEscape(ticket))
	} else {
		q.Set("url", "ws://"+p.proxy.Addr()+"/")
		q.Set("password", viewerPassword)
	}
	if err := chromedp.Do(p.ctx, chromedp.Navigate(rig.harness+"/?"+q.Encode())); err != nil {
		b.Fatalf("%s: navigate: %v", p.name, err)
	}
}

// waitDrawn waits until p's noVNC is connected and has drawn.
func (rig *viewerRig) waitDrawn(b *testing.B, p *viewerPath) {
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`window.bench && bench.state === "connected" && bench.updates > 0`, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		st := p.stats(b)
		b.Fatalf("%s: noVNC did not connect and draw: state %q, error %q: %v", p.name, st.State, st.Error, err)
	}
}

// viewerBrowser starts a headless Chromium for one viewer, with the
// flags this machine needs, timers that do not slow down in the
// background, and a window the screen fits in; it ends with the benchmark.
func viewerBrowser(b *testing.B, bin string) context.Context {
	opts := peertest.HeadlessChromium(bin, b.TempDir(),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.WindowSize(viewerWidth+40, viewerHeight+60),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 15*time.Minute)
	b.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}

// startViewerGlass runs the glass binary (buildGlass) for the computer
// "bench" at xaddr, allowing the harness's loopback origin, with a
// take-over that outlasts the benchmark; it ends with the benchmark.
// BENCH_GLASS_LOG=file keeps glass's log there; GLASS_CPUPROFILE=prefix
// profiles it, as startGlass does.
func startViewerGlass(b *testing.B, xaddr string) string {
	bin := buildGlass(b)
	dir := b.TempDir()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(viewerPassword+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(scaleFreePort(b))
	cmd := exec.Command(bin, "-listen", addr, "-computer", "bench="+xaddr, "-password-file", "bench="+pwFile,
		"-origins", "127.0.0.1:*", "-lease-ttl", "30m")
	if prefix := os.Getenv("GLASS_CPUPROFILE"); prefix != "" { // a profile of each glass started
		glassProfiles++
		cmd.Args = append(cmd.Args, "-cpuprofile", fmt.Sprintf("%s-%d.pprof", prefix, glassProfiles))
	}
	var logb testio.SyncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &logb
	if f := os.Getenv("BENCH_GLASS_LOG"); f != "" {
		lf, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = lf
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop := stopper(cmd, 10*time.Second)
	b.Cleanup(stop)
	if !scaleWaitListen(addr) {
		b.Fatalf("glass did not listen on %s: %s", addr, logb.String())
	}
	return addr
}

// glassPost posts body to glass's control API and decodes the answer
// into out; a status other than 200 fails the benchmark.
func glassPost(b *testing.B, addr, tool, body string, out any) {
	resp, err := http.Post("http://"+addr+"/v1/tools/"+tool, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatalf("%s: %v", tool, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: status %d: %s", tool, body, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		b.Fatalf("%s: %v: %s", tool, err, raw)
	}
}

// glassWatch asks glass for a viewer ticket (computers.watch) and returns
// it with the stream id it names.
func glassWatch(b *testing.B, addr, agent, surface string) (ticket, stream string) {
	var w struct{ Ticket, Stream string }
	glassPost(b, addr, "computers.watch", fmt.Sprintf(`{"agent":%q,"surface":%q}`, agent, surface), &w)
	if w.Ticket == "" || w.Stream == "" {
		b.Fatalf("computers.watch gave ticket %q stream %q", w.Ticket, w.Stream)
	}
	return w.Ticket, w.Stream
}

// viewerStats is what the harness page has counted so far.
type viewerStats struct {
	State   string         `json:"state"`
	Error   string         `json:"error"`
	Updates int64          `json:"updates"`
	Frames  int64          `json:"frames"` // the spinner's steps the canvas showed
	Rects   map[string]int `json:"rects"`  // by encoding number ("7/kind" for Tight's kinds)
	// The WebSocket messages received, their payload bytes and the
	// largest one's.
	Messages       int64 `json:"messages"`
	MessageBytes   int64 `json:"messageBytes"`
	LargestMessage int64 `json:"largestMessage"`
	// Continuous is whether noVNC runs continuous updates.
	Continuous bool `json:"continuous"`
}

// stats reads the page's counts.
func (p *viewerPath) stats(b *testing.B) viewerStats {
	var st viewerStats
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`JSON.stringify(window.bench || {state: "no harness"})`))
	if err != nil {
		b.Fatalf("%s: reading the page's counts: %v", p.name, err)
	}
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		b.Fatalf("%s: the page's counts %q: %v", p.name, s, err)
	}
	return st
}

// viewerSample is a path's counts at one moment.
type viewerSample struct {
	at      time.Time
	toView  int64 // bytes the proxy moved to the viewer
	updates int64
	frames  int64
	rects   map[string]int
	// WebSocket messages and their payload bytes, and the largest so far.
	messages, messageBytes, largest int64
}

func (p *viewerPath) sample(b *testing.B) viewerSample {
	st := p.stats(b)
	if st.State != "connected" {
		b.Fatalf("%s: the viewer is %s (%s)", p.name, st.State, st.Error)
	}
	return viewerSample{at: time.Now(), toView: p.proxy.Moved(faultproxy.ToClient), updates: st.Updates, frames: st.Frames, rects: st.Rects,
		messages: st.Messages, messageBytes: st.MessageBytes, largest: st.LargestMessage}
}

// viewerRates is what a path carried between two samples.
type viewerRates struct {
	bytesPerS, updatesPerS float64
	// framesPerS is the page's animation steps the viewer showed a second
	// (at most 20: the spinner's rate), where updatesPerS counts
	// FramebufferUpdates, which a server asked quickly sends in pieces.
	framesPerS float64
	rects      map[string]int // rectangles by encoding name
	// WebSocket messages received, their mean payload, and the largest
	// since the viewer connected.
	messages            int64
	meanMessage         float64
	largestMessageSoFar int64
}

func rates(a, z viewerSample) viewerRates {
	s := z.at.Sub(a.at).Seconds()
	r := viewerRates{bytesPerS: float64(z.toView-a.toView) / s, updatesPerS: float64(z.updates-a.updates) / s,
		framesPerS: float64(z.frames-a.frames) / s, rects: map[string]int{},
		messages: z.messages - a.messages, largestMessageSoFar: z.largest}
	if r.messages > 0 {
		r.meanMessage = float64(z.messageBytes-a.messageBytes) / float64(r.messages)
	}
	for enc, n := range z.rects {
		if d := n - a.rects[enc]; d > 0 {
			r.rects[encodingName(enc)] += d
		}
	}
	return r
}

// rectsString lists rectangle counts by encoding, most first.
func rectsString(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range m {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || l[i].v == l[j].v && l[i].k < l[j].k })
	var s []string
	for _, e := range l {
		s = append(s, fmt.Sprintf("%s %d", e.k, e.v))
	}
	return strings.Join(s, ", ")
}

// encodingName names an RFB encoding number (as the page reports it).
func encodingName(s string) string {
	switch s {
	case "7/basic":
		return "Tight/basic"
	case "7/8":
		return "Tight/fill"
	case "7/9":
		return "Tight/JPEG"
	case "7/10":
		return "Tight/PNG"
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return s
	}
	switch n {
	case 0:
		return "Raw"
	case 1:
		return "CopyRect"
	case 2:
		return "RRE"
	case 5:
		return "Hextile"
	case 6:
		return "Zlib"
	case 7:
		return "Tight"
	case 16:
		return "ZRLE"
	case 21:
		return "JPEG"
	case 50:
		return "H.264"
	case -260:
		return "TightPNG"
	case -223:
		return "DesktopSize"
	case -224:
		return "LastRect"
	case -239:
		return "Cursor"
	case -258:
		return "QEMUExtendedKey"
	case -261:
		return "QEMULed"
	case -307:
		return "DesktopName"
	case -308:
		return "ExtendedDesktopSize"
	case 0x574d5664:
		return "VMwareCursor"
	}
	return "encoding " + s
}

// viewerHarness is the viewer page: noVNC 1.7's RFB on the whole screen
// with the settings in its query (url, password for VNC authentication,
// quality, compression), counting in window.bench what it receives:
// FramebufferUpdates completed (updates) and rectangles by encoding
// (rects), and timing keys: bench.key() sends a key (a down and up) and
// resolves to the milliseconds until the canvas at the key spot (kx, ky)
// has changed by at least "changed" over the three channels, looked at
// after each of noVNC's display flips and on each animation frame, both
// clocks the page's own.
const viewerHarness = `<!doctype html>
<html><head><meta charset="utf-8"><title>wirebench viewer</title>
<style>body { margin: 0; } #screen { width: 1280px; height: 720px; }</style></head>
<body><div id="screen"></div>
<script type="module">
import RFB from "/novnc/core/rfb.js";
const q = new URLSearchParams(location.search);
const bench = window.bench = {state: "connecting", error: "", updates: 0, rects: {}, messages: 0, messageBytes: 0, largestMessage: 0};
const opts = {};
if (q.get("password")) opts.credentials = {password: q.get("password")};
let rfb;
try {
	rfb = new RFB(document.getElementById("screen"), q.get("url"), opts);
} catch (e) {
	bench.state = "failed"; bench.error = String(e);
	throw e;
}
// The WebSocket messages the viewer receives: how the relay cut the stream.
const ws = rfb._sock._websocket, onmessage = ws.onmessage;
ws.onmessage = e => {
	bench.messages++;
	bench.messageBytes += e.data.byteLength;
	bench.largestMessage = Math.max(bench.largestMessage, e.data.byteLength);
	onmessage(e);
};
rfb.qualityLevel = +q.get("quality");
rfb.compressionLevel = +q.get("compression");
rfb.addEventListener("connect", () => { bench.state = "connected"; });
// Whether noVNC runs continuous updates (Xvnc pushes, with fences for its
// congestion control) or asks for each update.
Object.defineProperty(bench, "continuous", {enumerable: true, get: () => rfb._enabledContinuousUpdates});
rfb.addEventListener("disconnect", e => { bench.state = "disconnected"; bench.error += " clean=" + e.detail.clean; });
rfb.addEventListener("securityfailure", e => { bench.error += " security: " + e.detail.reason; });

// Count what noVNC completes: its own methods, wrapped on this instance.
const fbu = rfb._framebufferUpdate;
rfb._framebufferUpdate = function () {
	const done = fbu.call(this);
	if (done) bench.updates++;
	return done;
};
// A Tight rectangle is counted by its kind too (its compression control's
// high nibble: 8 fill, 9 JPEG, 10 PNG, below 8 basic), peeked at in the
// call in which noVNC's Tight decoder will read it.
const rect = rfb._handleRect;
let tightKind = null;
rfb._handleRect = function () {
	const enc = this._FBU.encoding, dec = this._decoders[enc];
	if (enc === 7 && dec && dec._ctl === null && this._sock.rQlen() >= 1) tightKind = this._sock.rQpeek8() >> 4;
	const done = rect.call(this);
	if (done) {
		const k = enc === 7 && tightKind !== null ? "7/" + (tightKind < 8 ? "basic" : tightKind) : String(enc);
		bench.rects[k] = (bench.rects[k] || 0) + 1;
		tightKind = null;
	}
	return done;
};

// Key to pixel.
const kx = +q.get("kx"), ky = +q.get("ky"), changed = +q.get("changed");
let ctx2d = null;
bench.pixel = () => {
	if (!ctx2d) ctx2d = rfb._canvas.getContext("2d");
	const d = ctx2d.getImageData(kx, ky, 1, 1).data;
	return [d[0], d[1], d[2]];
};
let pending = null;
// A watcher's side of a key another viewer sends: watchStart notes the
// pixel, and watchAt is when (the page's clock, milliseconds since the
// epoch, comparable across the pages of one host) it changed, or null.
let watch = null;
bench.watchStart = () => { watch = {before: bench.pixel(), at: null}; };
bench.watchAt = () => watch && watch.at;
const epoch = () => performance.timeOrigin + performance.now();
// Frames: the page's spinner turns a step 20 times a second; each time the
// canvas shows a new colour at a pixel of it (sx, sy) is a frame the
// viewer saw, whatever number of FramebufferUpdates brought it.
const sx = +q.get("sx"), sy = +q.get("sy");
let spinLast = null;
bench.frames = 0;
const countFrame = () => {
	if (!ctx2d) ctx2d = rfb._canvas.getContext("2d");
	const d = ctx2d.getImageData(sx, sy, 1, 1).data;
	const c = d[0] << 16 | d[1] << 8 | d[2];
	if (spinLast !== null && c !== spinLast) bench.frames++;
	spinLast = c;
};
const check = () => {
	countFrame();
	if (watch && watch.at === null) {
		const p = bench.pixel(), b = watch.before;
		if (Math.abs(p[0] - b[0]) + Math.abs(p[1] - b[1]) + Math.abs(p[2] - b[2]) >= changed) watch.at = epoch();
	}
	if (!pending) return;
	const p = bench.pixel(), b = pending.before;
	if (Math.abs(p[0] - b[0]) + Math.abs(p[1] - b[1]) + Math.abs(p[2] - b[2]) >= changed) {
		const ms = performance.now() - pending.t0;
		const resolve = pending.resolve;
		pending = null;
		resolve(ms);
	}
};
const disp = rfb._display, flip = disp.flip;
disp.flip = function (fromQueue) {
	flip.call(this, fromQueue);
	check();
};
const frame = () => { check(); requestAnimationFrame(frame); };
requestAnimationFrame(frame);
bench.key = () => new Promise((resolve, reject) => {
	if (pending) { reject(new Error("a key is still pending")); return; }
	const before = bench.pixel(), t0 = performance.now();
	bench.keySentAt = performance.timeOrigin + t0;
	pending = {before, t0, resolve};
	rfb.sendKey(0x61, "KeyA", true);
	rfb.sendKey(0x61, "KeyA", false);
	setTimeout(() => {
		if (pending && pending.t0 === t0) {
			pending = null;
			reject(new Error("the key spot did not change within 60 s (it shows " + bench.pixel() + ")"));
		}
	}, 60000);
});
</script>
</body></html>
`
