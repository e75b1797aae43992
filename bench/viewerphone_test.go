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

// linkSpec is a viewer's link: the rate to the viewer (bytes a second) and
// the delay each way.
type linkSpec struct {
	name  string
	down  int
	delay time.Duration
}

// The links of the phone benchmarks: a phone on a tailnet, and a better
// one.
var (
	phone2Mbit  = linkSpec{"2Mbit-40ms", 2_000_000 / 8, 40 * time.Millisecond}
	phone10Mbit = linkSpec{"10Mbit-20ms", 10_000_000 / 8, 20 * time.Millisecond}
)

// phoneKeys is how many keys each phone benchmark times per path.
const phoneKeys = 30

// phoneProxy is the faultproxy of a shaped link: a small receive buffer,
// as on a slow link.
var phoneProxy = faultproxy.Config{ReadBuffer: 16 << 10}

// shape shapes a proxy as the link.
func (l linkSpec) shape(p *faultproxy.Proxy) {
	p.SetRate(faultproxy.ToClient, l.down)
	p.SetDelay(faultproxy.Both, l.delay)
}

// BenchmarkViewerPhone: key to pixel on a phone's link, glass against
// websockify, on a 2 Mbit/s link with 40 ms each way and on a 10 Mbit/s
// one with 20 ms. The rig of BenchmarkViewerBytes with each viewer's link
// shaped (a small receive buffer in the proxy, as on a slow link) while
// the workload keeps scrolling and spinning, so the link is busy. glass's
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
	for _, l := range []linkSpec{phone2Mbit, phone10Mbit} {
		b.Run("link="+l.name, func(b *testing.B) { viewerPhone(b, l) })
	}
}

func viewerPhone(b *testing.B, l linkSpec) {
	rig := newViewerRig(b, phoneProxy, l.shape)
	glassPath := rig.paths[0]
	glassTakeover(b, rig, glassPath)
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
		lat[p.name] = append(lat[p.name], rig.key(b, p, i/2))
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
		q[name] = quantiles(b, name, l)
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

// glassTakeover gives p, a glass path, the keyboard for its stream.
func glassTakeover(b *testing.B, rig *viewerRig, p *viewerPath) {
	var took struct {
		ExpiresAt string `json:"expires_at"`
	}
	glassPost(b, rig.glass, "computers.takeover", fmt.Sprintf(`{"agent":"bench","surface":%q,"stream":%q}`, p.name, p.stream), &took)
}

// key sends a key from p's page and returns the milliseconds until its
// canvas showed it (the i-th key, for errors).
func (rig *viewerRig) key(b *testing.B, p *viewerPath, i int) float64 {
	ms, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`bench.key()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatalf("%s: key %d: %v", p.name, i+1, err)
	}
	return ms
}

// quantiles logs l (sorted) and returns its median and 90th percentile.
func quantiles(b *testing.B, name string, l []float64) [2]float64 {
	slices.Sort(l)
	b.Logf("%s key to pixel (ms, sorted): %.0f", name, l)
	return [2]float64{quantile(l, 0.5), quantile(l, 0.9)}
}

// BenchmarkViewerWatcher: a watcher on a phone's link (2 Mbit/s, 40 ms
// each way) following what the keyboard holder types on loopback, as a
// person follows a form being filled. The holder is noVNC through glass
// on loopback; two watchers on the phone's link, noVNC through glass and
// through websockify. For each of phoneKeys keys the holder sends, the
// time from its sendKey to each watcher's canvas showing the key square's
// change, read on the pages' clocks (milliseconds since the epoch on one
// host). Reported: each watcher's median and 90th percentile, glass ÷
// websockify, and the holder's own key to pixel. Run it once.
func BenchmarkViewerWatcher(b *testing.B) {
	rig := newRig(b, []pathSpec{
		{name: "holder", relay: "glass"},
		{name: "glass", relay: "glass", cfg: phoneProxy, shape: phone2Mbit.shape},
		{name: "websockify", relay: "websockify", cfg: phoneProxy, shape: phone2Mbit.shape},
	})
	holder := rig.path(b, "holder")
	glassTakeover(b, rig, holder)
	time.Sleep(viewerWarmup)
	watchers := []*viewerPath{rig.path(b, "glass"), rig.path(b, "websockify")}
	lat := map[string][]float64{}
	for i := range phoneKeys {
		for _, w := range watchers {
			if _, err := chromedp.Run(w.ctx, chromedp.Evaluate[any](`bench.watchStart()`)); err != nil {
				b.Fatalf("%s: %v", w.name, err)
			}
		}
		lat["holder"] = append(lat["holder"], rig.key(b, holder, i))
		sent, err := chromedp.Run(holder.ctx, chromedp.Evaluate[float64](`bench.keySentAt`))
		if err != nil {
			b.Fatal(err)
		}
		for _, w := range watchers {
			at, err := chromedp.Run(w.ctx, chromedp.Poll[float64](`bench.watchAt()`, chromedp.WithPollingTimeout(60*time.Second), chromedp.WithPollingInterval(5*time.Millisecond)))
			if err != nil {
				b.Fatalf("%s did not draw key %d: %v", w.name, i+1, err)
			}
			lat[w.name] = append(lat[w.name], at-sent)
		}
		time.Sleep(150 * time.Millisecond)
	}
	b.ReportMetric(0, "ns/op")
	h := quantiles(b, "holder", lat["holder"])
	g := quantiles(b, "glass watcher", lat["glass"])
	w := quantiles(b, "websockify watcher", lat["websockify"])
	b.ReportMetric(h[0], "holder-p50-ms")
	b.ReportMetric(g[0], "glass-p50-ms")
	b.ReportMetric(g[1], "glass-p90-ms")
	b.ReportMetric(w[0], "websockify-p50-ms")
	b.ReportMetric(w[1], "websockify-p90-ms")
	b.ReportMetric(g[0]/w[0], "glass/websockify-p50")
}

// laptopWindow is how long BenchmarkViewerLaptopPhone counts the
// laptop's updates, alone and with the phone.
const laptopWindow = 12 * time.Second

// BenchmarkViewerLaptopPhone: a laptop on loopback, holding the keyboard,
// alone and then with a phone on a 2 Mbit/s link (40 ms each way)
// watching too, both noVNC through glass on the busy workload. For each,
// the laptop's updates per second over laptopWindow and its key to pixel
// over phoneKeys keys. Reported: both, and with ÷ alone (a phone must not
// slow the laptop: updates at least 0.95 of alone). Run it once.
func BenchmarkViewerLaptopPhone(b *testing.B) {
	rig := newRig(b, []pathSpec{
		{name: "laptop", relay: "glass"},
		{name: "phone", relay: "glass", cfg: phoneProxy, shape: phone2Mbit.shape, later: true},
	})
	laptop, phone := rig.path(b, "laptop"), rig.path(b, "phone")
	glassTakeover(b, rig, laptop)
	var phoneUpdates, phoneFrames float64
	measure := func(phase string, withPhone bool) (updates, frames float64, p [2]float64) {
		time.Sleep(viewerWarmup)
		a := laptop.sample(b)
		var pa viewerSample
		if withPhone {
			pa = phone.sample(b)
		}
		time.Sleep(laptopWindow)
		z := laptop.sample(b)
		updates, frames = rates(a, z).updatesPerS, rates(a, z).framesPerS
		if withPhone {
			pr := rates(pa, phone.sample(b))
			phoneUpdates, phoneFrames = pr.updatesPerS, pr.framesPerS
		}
		var l []float64
		for i := range phoneKeys {
			l = append(l, rig.key(b, laptop, i))
			time.Sleep(150 * time.Millisecond)
		}
		p = quantiles(b, "laptop "+phase, l)
		b.Logf("laptop %s: %.2f updates/s, %.2f frames/s, key to pixel p50 %.0f ms, p90 %.0f ms; glass: %s", phase, updates, frames, p[0], p[1], glassStatus(b, rig.glass, "bench"))
		return updates, frames, p
	}
	ua, fa, ka := measure("alone", false)
	rig.connect(b, phone)
	uw, fw, kw := measure("with a phone", true)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(phoneUpdates, "phone-updates/s")
	b.ReportMetric(phoneFrames, "phone-frames/s")
	b.ReportMetric(fa, "alone-frames/s")
	b.ReportMetric(fw, "with-phone-frames/s")
	b.ReportMetric(fw/fa, "with/alone-frames")
	b.ReportMetric(ua, "alone-updates/s")
	b.ReportMetric(uw, "with-phone-updates/s")
	b.ReportMetric(uw/ua, "with/alone-updates")
	b.ReportMetric(ka[0], "alone-p50-ms")
	b.ReportMetric(kw[0], "with-phone-p50-ms")
	b.ReportMetric(kw[0]/ka[0], "with/alone-p50")
	b.ReportMetric(kw[1]/ka[1], "with/alone-p90")
}
