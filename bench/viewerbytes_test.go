package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wirebench/wirebench/faultproxy"
	"github.com/wirebench/wirebench/internal/workload"
)

// How long the viewers watch before and while the bytes are counted.
const (
	viewerWarmup = 4 * time.Second
	viewerWatch  = 24 * time.Second
)

// BenchmarkViewerBytes: what a viewer costs in bytes, glass against
// websockify, on a real workload. A real Xvnc (1280x720) shows the
// workload page (internal/workload: text, a photo-like image, steady
// scrolling, a spinner) in a real Chromium window; noVNC 1.7 in headless
// Chromium watches it through glass and, at the same time in a second
// browser, through websockify, both asking for noVNC's default encodings
// with the same quality and compression levels. Each viewer connects
// through a faultproxy with no faults, whose count of bytes to the viewer
// is the figure on both paths. One run watches for viewerWatch; reported:
// bytes and FramebufferUpdates per second to each viewer (updates counted
// by noVNC as it completes them) and glass ÷ websockify for both. The
// rectangles each viewer got, by encoding, are logged. Run it once
// (-benchtime 1x): b.N does not scale it.
func BenchmarkViewerBytes(b *testing.B) {
	rig := newViewerRig(b, faultproxy.Config{}, nil)
	time.Sleep(viewerWarmup)
	r := rig.measure(b, viewerWatch)
	b.ReportMetric(0, "ns/op")
	reportViewerRates(b, r)
}

// measure samples every path, waits d, samples again and returns each
// path's rates, logging the rectangles each got.
func (rig *viewerRig) measure(b *testing.B, d time.Duration) map[string]viewerRates {
	a := map[string]viewerSample{}
	for _, p := range rig.paths {
		a[p.name] = p.sample(b)
	}
	time.Sleep(d)
	return rig.ratesSince(b, a)
}

// ratesSince samples every path and returns its rates since a.
func (rig *viewerRig) ratesSince(b *testing.B, a map[string]viewerSample) map[string]viewerRates {
	out := map[string]viewerRates{}
	for _, p := range rig.paths {
		if !p.stats(b).Continuous {
			b.Logf("%s: noVNC is not running continuous updates (it asks for each one)", p.name)
		}
		r := rates(a[p.name], p.sample(b))
		out[p.name] = r
		b.Logf("%s: %.0f B/s, %.2f updates/s; rectangles: %s; WebSocket messages: %d, %.0f bytes on average, the largest %d",
			p.name, r.bytesPerS, r.updatesPerS, rectsString(r.rects), r.messages, r.meanMessage, r.largestMessageSoFar)
	}
	return out
}

// reportViewerRates reports bytes and updates per second for both paths
// and glass ÷ websockify; a path that received nothing fails the run.
func reportViewerRates(b *testing.B, r map[string]viewerRates) {
	g, w := r["glass"], r["websockify"]
	if g.bytesPerS <= 0 || w.bytesPerS <= 0 || g.updatesPerS <= 0 || w.updatesPerS <= 0 {
		b.Fatalf("a viewer received nothing: glass %+v, websockify %+v", g, w)
	}
	b.ReportMetric(g.bytesPerS, "glass-B/s")
	b.ReportMetric(w.bytesPerS, "websockify-B/s")
	b.ReportMetric(g.bytesPerS/w.bytesPerS, "glass/websockify-bytes")
	b.ReportMetric(g.updatesPerS, "glass-updates/s")
	b.ReportMetric(w.updatesPerS, "websockify-updates/s")
	b.ReportMetric(g.updatesPerS/w.updatesPerS, "glass/websockify-updates")
}

// The phone's link: what a phone on a tailnet gets, per viewer.
const (
	phoneDown  = 2_000_000 / 8 // bytes a second to the viewer (2 Mbit/s)
	phoneDelay = 40 * time.Millisecond
	phoneKeys  = 30 // per path
)

// phoneLink shapes a proxy as the phone's link: phoneDown to the viewer,
// phoneDelay each way.
func phoneLink(p *faultproxy.Proxy) {
	p.SetRate(faultproxy.ToClient, phoneDown)
	p.SetDelay(faultproxy.Both, phoneDelay)
}

// BenchmarkViewerPhone: key to pixel on a phone's link, glass against
// websockify. The rig of BenchmarkViewerBytes with each viewer's link
// shaped as a phone over a tailnet (phoneLink: 2 Mbit/s down, 40 ms each
// way; a small receive buffer in the proxy, as on a slow link) while the
// workload keeps scrolling and spinning, so the link is busy. glass's
// viewer takes over the keyboard for its stream (computers.takeover).
// Then, phoneKeys times per path, in turn: the viewer's page sends a key
// (rfb.sendKey), which reaches Xvnc and the workload window, whose key
// square changes colour; Xvnc sends the damage and noVNC draws it. The
// time is from sendKey to the canvas showing the change at the key
// square, both read on the viewer page's clock. Before the next key both
// viewers have drawn the change. Reported: the median and 90th percentile
// per path and glass ÷ websockify for both, and bytes and updates per
// second on the shaped link over the same time. Run it once (-benchtime
// 1x).
func BenchmarkViewerPhone(b *testing.B) {
	rig := newViewerRig(b, faultproxy.Config{ReadBuffer: 16 << 10}, phoneLink)
	glassPath := rig.paths[0]
	var took struct {
		ExpiresAt string `json:"expires_at"`
	}
	glassPost(b, rig.glass, "computers.takeover", fmt.Sprintf(`{"agent":"bench","surface":"viewer","stream":%q}`, glassPath.stream), &took)
	time.Sleep(viewerWarmup)

	a := map[string]viewerSample{}
	for _, p := range rig.paths {
		a[p.name] = p.sample(b)
	}
	keys0 := rig.win.Keys()
	lat := map[string][]float64{}
	for i := range 2 * phoneKeys {
		p, other := rig.paths[i%2], rig.paths[1-i%2]
		before, err := chromedp.Run(other.ctx, chromedp.Evaluate[[]int](`bench.pixel()`))
		if err != nil {
			b.Fatalf("%s: %v", other.name, err)
		}
		ms, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`bench.key()`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatalf("%s: key %d of %d (the page saw %d keys): %v", p.name, i/2+1, phoneKeys, rig.win.Keys()-keys0, err)
		}
		lat[p.name] = append(lat[p.name], ms)
		// The other viewer draws the change too before the next key.
		js := fmt.Sprintf(`(() => { const p = bench.pixel(), b = %v; return Math.abs(p[0]-b[0]) + Math.abs(p[1]-b[1]) + Math.abs(p[2]-b[2]) >= %d; })()`, jsInts(before), workload.ChangedAt)
		if _, err := chromedp.Run(other.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
			b.Fatalf("%s did not draw the key of %s: %v", other.name, p.name, err)
		}
		time.Sleep(150 * time.Millisecond)
	}
	if got := rig.win.Keys() - keys0; got != 2*phoneKeys {
		b.Fatalf("the workload page saw %d keydowns, want %d", got, 2*phoneKeys)
	}
	r := rig.ratesSince(b, a)
	b.ReportMetric(0, "ns/op")
	q := map[string][2]float64{}
	for name, l := range lat {
		slices.Sort(l)
		q[name] = [2]float64{quantile(l, 0.5), quantile(l, 0.9)}
		b.Logf("%s key to pixel (ms, sorted): %.0f", name, l)
	}
	g, w := q["glass"], q["websockify"]
	b.ReportMetric(g[0], "glass-p50-ms")
	b.ReportMetric(g[1], "glass-p90-ms")
	b.ReportMetric(w[0], "websockify-p50-ms")
	b.ReportMetric(w[1], "websockify-p90-ms")
	b.ReportMetric(g[0]/w[0], "glass/websockify-p50")
	b.ReportMetric(g[1]/w[1], "glass/websockify-p90")
	reportViewerRates(b, r)
}

// quantile is the q-quantile of sorted l (the nearest rank below).
func quantile(l []float64, q float64) float64 { return l[int(q*float64(len(l)-1))] }

// jsInts is l as a JavaScript array.
func jsInts(l []int) string {
	s := "["
	for i, v := range l {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(v)
	}
	return s + "]"
}
