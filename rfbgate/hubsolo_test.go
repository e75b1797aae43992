package rfbgate

import (
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/faultproxy"
)

// TestShareSolo, from the outside: a hub's only viewer is solo (glass's
// log says so) and gets Xvnc's own bytes at its own pace: paused while the
// damage goes on, its queue holds at most one update, and it skips none.
// A second viewer ends solo (the log says why): glass opens the shared
// connection (a second handshake) and closes the solo one; from then on
// both get the shared log, and after the damage stops both equal the X
// server's screen, pixel for pixel.
func TestShareSolo(t *testing.T) {
	xv, xp, dmg := damagedXvnc(t, 35)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})

	a := openViewerVia(t, tr, "a", "", 0)
	waitFull(t, a.v, a.name)
	if logs := tr.logs.String(); !strings.Contains(logs, "solo viewer") {
		t.Fatalf("the hub's first viewer is not solo; glass logged:\n%s", logs)
	}
	stopDamage := startDamage(t, dmg)
	waitFrames(t, dmg, 10)
	a.v.Pause()
	var most int64
	for f := dmg.Frames(); dmg.Frames() < f+15; time.Sleep(20 * time.Millisecond) {
		q, err := crowdStatus(tr, a.stream)
		if err != nil {
			t.Fatal(err)
		}
		if !q.ok {
			t.Fatal("the status API has no queued_bytes for the solo viewer")
		}
		most = max(most, q.queued)
		if q.skipped != 0 {
			t.Fatalf("the paused solo viewer skipped %d updates: its pace should have held Xvnc back", q.skipped)
		}
	}
	a.v.Resume()
	if strings.Contains(tr.logs.String(), "solo ended") {
		t.Fatalf("solo ended while its viewer paused; glass logged:\n%s", tr.logs.String())
	}
	t.Logf("paused solo viewer: queued_bytes at most %d", most)

	b := openViewerVia(t, tr, "b", "", 0)
	waitFull(t, b.v, b.name)
	waitFrames(t, dmg, dmg.Frames()+20)
	stopDamage()
	logs := tr.logs.String()
	if !strings.Contains(logs, "solo ended") || !strings.Contains(logs, `why="a second viewer"`) {
		t.Fatalf("a second viewer did not end solo; glass logged:\n%s", logs)
	}
	want := xScreen(t, xp)
	for _, v := range []*crowdViewer{a, b} {
		waitPixels(t, v.v, want, v.name)
		st := v.v.Stats()
		t.Logf("%s: %d updates, %d bytes; Tight copy %d, palette %d, fill %d, CopyRect %d", v.name, st.Updates, st.Bytes,
			st.Decoder.TightCopy, st.Decoder.TightPalette, st.Decoder.TightFill, st.Decoder.CopyRect)
	}
	if ds := tr.DialStats("a"); ds.Handshakes != 2 {
		t.Errorf("glass made %d handshakes with Xvnc for 2 viewers, want 2 (the solo connection, then the shared one)", ds.Handshakes)
	}
}

// TestSoloEndsOnSlowLink, from the outside: a hub's only viewer on a
// phone's link (40 ms each way, faultproxy) stays solo while its link
// carries each of Xvnc's updates within about a round trip (2 Mbit/s
// carries this damage so), and once its link falls to 200 kbit/s it
// cannot keep up: solo ends (the log says why), the viewer is served from
// the hub's framebuffer (the status says "pulling" or "in-step"), and
// once the damage stops its screen equals the X server's.
func TestSoloEndsOnSlowLink(t *testing.T) {
	xv, xp, dmg := damagedXvnc(t, 41)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	link, err := faultproxy.New(strings.TrimPrefix(tr.srv.URL, "http://"), faultproxy.Config{ReadBuffer: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	link.SetRate(faultproxy.ToClient, testPhoneDown)
	link.SetDelay(faultproxy.Both, testPhoneDelay)

	p := openViewerVia(t, tr, "phone", link.Addr(), 7)
	waitFull(t, p.v, p.name)
	if logs := tr.logs.String(); !strings.Contains(logs, "solo viewer") {
		t.Fatalf("the hub's only viewer is not solo; glass logged:\n%s", logs)
	}
	stopDamage := startDamage(t, dmg)
	waitFrames(t, dmg, 40)
	const why = `why="the solo viewer's link does not keep up with the computer"`
	if strings.Contains(tr.logs.String(), why) {
		t.Fatalf("solo ended on a link that carries every update in about a round trip; glass logged:\n%s", tr.logs.String())
	}
	link.SetRate(faultproxy.ToClient, testPhoneDown/10)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(tr.logs.String(), why) {
		if time.Now().After(deadline) {
			t.Fatalf("solo did not end for a viewer on a 200 kbit/s link; glass logged:\n%s", tr.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitFrames(t, dmg, dmg.Frames()+20)
	link.SetRate(faultproxy.ToClient, testPhoneDown)
	st, err := tr.Status("a")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Viewers) != 1 || st.Viewers[0].Mode == "solo" || st.Viewers[0].Mode == "" {
		t.Fatalf("after solo ended the viewer's status is %+v, want one viewer pulling or in step", st.Viewers)
	}
	t.Logf("after solo ended: %s in class %s, link %.2f Mbit/s", st.Viewers[0].Mode, st.Viewers[0].Class, st.Viewers[0].RateBps/1e6)
	stopDamage()
	waitPixels(t, p.v, xScreen(t, xp), p.name)
}
