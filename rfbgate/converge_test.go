package rfbgate

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/faultproxy"
)

// convergeMax is how soon after the damage stops every viewer's screen
// must equal the X server's (issue 39): the tiles it owes, then those it
// holds from JPEG, sent again losslessly.
const convergeMax = 2 * time.Second

// The phone's link in the relay's tests: 2 Mbit/s to the viewer, 40 ms
// each way.
const (
	testPhoneDown  = 2_000_000 / 8
	testPhoneDelay = 40 * time.Millisecond
)

// TestShareConverges, from the outside: a real Xvnc painted by the xpaint
// damage generator (scrolling text, a moving block, a photo-like patch),
// and through glass's hub a laptop asking for JPEG quality 6, a viewer
// asking for no JPEG, and two phones asking for quality 6 on a 2 Mbit/s
// link with 40 ms each way (faultproxy), which pull what they owe while
// the damage runs. When the damage stops, every viewer's screen equals
// the X server's, pixel for pixel, within convergeMax: what was sent
// lossy (JPEG) is sent again losslessly. The status and /metrics agree on
// each viewer's class and mode.
func TestShareConverges(t *testing.T) {
	xv, xp, dmg := damagedXvnc(t, 39)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	phoneLink, err := faultproxy.New(strings.TrimPrefix(tr.srv.URL, "http://"), faultproxy.Config{ReadBuffer: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { phoneLink.Close() })
	phoneLink.SetRate(faultproxy.ToClient, testPhoneDown)
	phoneLink.SetDelay(faultproxy.Both, testPhoneDelay)

	viewers := []*crowdViewer{
		openViewerVia(t, tr, "laptop", "", 7),
		openViewerVia(t, tr, "exact", "", 0),
		openViewerVia(t, tr, "phone1", phoneLink.Addr(), 7),
		openViewerVia(t, tr, "phone2", phoneLink.Addr(), 7),
	}
	for _, v := range viewers {
		waitFull(t, v.v, v.name)
	}
	stopDamage := startDamage(t, dmg)
	waitFrames(t, dmg, 100) // 4 s: the phones' links are measured, their class lowered
	st, m := statusAndScrape(t, tr)
	stopDamage()
	stop := time.Now()
	want := xScreen(t, xp)
	for _, vs := range st.Viewers {
		t.Logf("while the damage ran: %s %s in class %s, link %.2f Mbit/s, round trip %.0f ms; the kernel's: %.2f Mbit/s, %.1f ms", vs.Surface, vs.Mode, vs.Class, vs.RateBps/1e6, vs.LinkRTTms, vs.KernelRateBps/1e6, vs.KernelRTTms)
		// Each viewer is a TCP connection to glass: on Linux its status
		// carries the kernel's figures (TCP_INFO) beside glass's own.
		if runtime.GOOS == "linux" && (vs.UnsentBytes == nil || vs.KernelRTTms <= 0) {
			t.Errorf("%s: status has no kernel figures for its TCP link: unsent %v, rtt %v ms", vs.Surface, vs.UnsentBytes, vs.KernelRTTms)
		}
	}
	for _, v := range viewers {
		deadline := stop.Add(convergeMax)
		for !v.v.Equal(want) {
			if err := v.v.Err(); err != nil || time.Now().After(deadline) {
				waitPixels(t, v.v, want, v.name) // says how many differ (and gives it the generous deadline)
				t.Fatalf("%s: its screen equalled the X server's only %v after the damage stopped, over %v", v.name, time.Since(stop).Round(time.Millisecond), convergeMax)
			}
			time.Sleep(5 * time.Millisecond)
		}
		s := v.v.Stats()
		t.Logf("%s: equal to the X server's %v after the damage stopped; %d updates, %d bytes, Tight JPEG %d", v.name,
			time.Since(stop).Round(time.Millisecond), s.Updates, s.Bytes, s.Decoder.TightJPEG)
		if v.name != "exact" && s.Decoder.TightJPEG == 0 {
			t.Errorf("%s got no JPEG: nothing was sent lossy, so nothing was sent again losslessly", v.name)
		}
	}
	byClass := map[[2]string]float64{}
	for _, vs := range st.Viewers {
		byClass[[2]string{vs.Class, vs.Mode}]++
	}
	for k, n := range byClass {
		m.want(t, n, "glass_viewers_by_class", "computer", "a", "class", k[0], "mode", k[1])
	}
	if got := m.get("glass_viewers_by_class", "computer", "a"); got != 4 {
		t.Errorf("glass_viewers_by_class counts %v viewers, want 4", got)
	}
	if got := m.get("glass_viewer_link_rate_bits", "computer", "a"); got != 4 {
		t.Errorf("glass_viewer_link_rate_bits has %v viewers' rates, want 4", got)
	}
}

// statusAndScrape reads computer a's status and a scrape of /metrics that
// saw the same classes and modes: a viewer may change class or mode
// between the two (under load, a link's measure moves), so it takes the
// status again after the scrape and tries again until both statuses
// agree.
func statusAndScrape(t *testing.T, tr *testRelay) (ComputerStatus, metrics) {
	t.Helper()
	classes := func(st ComputerStatus) string {
		var b strings.Builder
		for _, vs := range st.Viewers {
			b.WriteString(vs.Stream + " " + vs.Class + " " + vs.Mode + "\n")
		}
		return b.String()
	}
	for try := 0; ; try++ {
		before, err := tr.Status("a")
		if err != nil {
			t.Fatal(err)
		}
		m := scrape(t, tr.Relay)
		after, err := tr.Status("a")
		if err != nil {
			t.Fatal(err)
		}
		if classes(before) == classes(after) {
			return after, m
		}
		if try == 50 {
			t.Fatalf("the viewers' classes and modes kept changing between two reads of the status:\n%s", classes(after))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
