package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/wirebench/wirebench/faultproxy"
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
		b.Logf("%s: %.0f B/s, %.2f updates/s, %.2f frames/s; rectangles: %s; WebSocket messages: %d, %.0f bytes on average, the largest %d",
			p.name, r.bytesPerS, r.updatesPerS, r.framesPerS, rectsString(r.rects), r.messages, r.meanMessage, r.largestMessageSoFar)
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
	b.ReportMetric(g.framesPerS, "glass-frames/s")
	b.ReportMetric(w.framesPerS, "websockify-frames/s")
	if w.framesPerS > 0 {
		b.ReportMetric(g.framesPerS/w.framesPerS, "glass/websockify-frames")
	}
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
