package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/faultproxy"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfbviewer"
	"github.com/wirebench/wirebench/internal/workload"
)

// The crowd of BenchmarkPhoneCrowd and how long it is measured.
const (
	phoneCrowd       = 10
	phoneCrowdWarm   = 12 * time.Second
	phoneCrowdWindow = 20 * time.Second
)

// BenchmarkPhoneCrowd: what a crowd of phones costs glass. A real Xvnc
// (1280x720) shows the busy workload page in a real Chromium; glass runs
// as its own process; each phone is an rfbviewer viewer (noVNC's
// requests, JPEG quality level 6, decoding everything) through a
// faultproxy link of its own (2 Mbit/s to it, 40 ms each way). First one
// phone watches, then phoneCrowd, then one again: glass's CPU over
// phoneCrowdWindow each time, after phoneCrowdWarm (its classes settle);
// one phone's figure is the mean of its two windows, so that a drift of
// the host's load over the run weighs on both sides. Glass encodes each
// tile once per class for every phone that pulls it, so ten phones should
// cost about what one costs: reported, glass's CPU-s a second with one
// and with ten, ten ÷ one (target at most 1.5), and the fewest updates a
// second a phone got with ten (target at least 5). Run it once.
func BenchmarkPhoneCrowd(b *testing.B) {
	xv := peertest.StartXvnc(b, viewerPassword, "-geometry", fmt.Sprintf("%dx%d", viewerWidth, viewerHeight), "-depth", "24")
	workload.Open(b, xv.Display, viewerWidth, viewerHeight)
	addr, pid, stop := startGlass(b, buildGlass(b), b.TempDir(), xv.Addr, viewerPassword)
	b.Cleanup(stop)
	link, err := faultproxy.New(addr, phoneProxy)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { link.Close() })
	phone2Mbit.shape(link)

	var phones []*crowdMember
	b.Cleanup(func() {
		for _, m := range phones {
			m.close()
		}
	})
	add := func(n int) {
		for len(phones) < n {
			m, err := openMemberVia(context.Background(), addr, link.Addr(), fmt.Sprintf("phone%02d", len(phones)), rfbviewer.Options{Quality: viewerQuality + 1})
			if err != nil {
				b.Fatalf("phone %d: %v", len(phones), err)
			}
			phones = append(phones, m)
		}
	}
	measure := func(n int) (cpu, fewest float64) {
		add(n)
		for len(phones) > n {
			phones[len(phones)-1].close()
			phones = phones[:len(phones)-1]
		}
		time.Sleep(phoneCrowdWarm)
		c0 := procCPUns(b, pid)
		u0 := make([]int64, n)
		for i, m := range phones {
			u0[i] = m.v.Stats().Updates
		}
		start := time.Now()
		time.Sleep(phoneCrowdWindow)
		secs := time.Since(start).Seconds()
		cpu = (procCPUns(b, pid) - c0) / secs
		fewest = -1
		for i, m := range phones {
			if err := m.v.Err(); err != nil {
				b.Fatalf("phone %d: %v", i, err)
			}
			u := float64(m.v.Stats().Updates-u0[i]) / secs
			if fewest < 0 || u < fewest {
				fewest = u
			}
		}
		st := glassStatus(b, addr, "scale")
		b.Logf("%d phones: glass %.3f CPU-s a second; the fewest updates a phone got %.1f a second; status: %s", n, cpu, fewest, st)
		return cpu, fewest
	}
	first, _ := measure(1)
	ten, fewest := measure(phoneCrowd)
	again, _ := measure(1)
	one := (first + again) / 2
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(one, "one-cpu-s/s")
	b.ReportMetric(ten, "ten-cpu-s/s")
	b.ReportMetric(ten/one, "ten/one-cpu")
	b.ReportMetric(fewest, "fewest-updates/s")
}

// glassStatus is a summary of GET /v1/computers/AGENT's viewers: each
// one's mode, class and link.
func glassStatus(b *testing.B, addr, agent string) string {
	resp, err := http.Get("http://" + addr + "/v1/computers/" + agent)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Viewers []struct {
			Surface, Mode, Class string
			RateBps              float64 `json:"rate_bps"`
			LinkRTTms            float64 `json:"link_rtt_ms"`
			Skipped              uint64  `json:"skipped_updates"`
		} `json:"viewers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		b.Fatalf("GET /v1/computers/%s: %v", agent, err)
	}
	var out []string
	for _, v := range st.Viewers {
		out = append(out, fmt.Sprintf("%s %s %s %.2f Mbit/s %.0f ms, %d times out of step", v.Surface, v.Mode, v.Class, v.RateBps/1e6, v.LinkRTTms, v.Skipped))
	}
	return strings.Join(out, "; ")
}
