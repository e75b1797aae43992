package rfbgate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pageRig is what a /glass/ page test runs on: a real Xvnc (computer
// "agent1"), a relay with the default lease and a 1 s ping serving the page
// with noVNC, a started headless Chromium and a console log for its tabs.
type pageRig struct {
	xv      *xvnc
	tr      *testRelay
	srv     *httptest.Server
	browser context.Context
	con     *consoleLog
}

func newPageRig(t *testing.T) *pageRig {
	t.Helper()
	rig := &pageRig{xv: startXvnc(t, testPassword), con: &consoleLog{}}
	rig.tr = newTestRelay(t, Config{
		Computers:    []Computer{{Name: "agent1", Addr: rig.xv.Addr, Password: NewSecret(testPassword)}},
		PingInterval: time.Second,
	})
	rig.srv = httptest.NewServer(NewHandler(rig.tr.Relay, HandlerOptions{}))
	t.Cleanup(rig.srv.Close)
	rig.browser = newBrowser(t)
	if err := chromedp.Do(rig.browser); err != nil { // start the browser
		t.Fatal(err)
	}
	return rig
}

// TestBrowserPageComesBack: a /glass/ page holding the keyboard on a real
// Xvnc; Xvnc is killed and started again on its port. The page shows the
// reason glass sent and counts down; it is back on its own (no reload)
// within 5 s of the new Xvnc listening, within glass's grace period, and
// holds the keyboard still. Killed again and away for longer than the
// grace period, the keyboard is handed back and the page's banner says
// the computer's screen stopped. "Retry now" reconnects at once. Nothing
// lands in the console.
func TestBrowserPageComesBack(t *testing.T) {
	rig := newPageRig(t)
	tr, srv, con := rig.tr, rig.srv, rig.con
	_, portStr, _ := strings.Cut(rig.xv.Addr, ":")
	port, _ := strconv.Atoi(portStr)
	a := openPage(t, rig.browser, con, srv.URL, "pageA")
	if err := chromedp.Do(a, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, a, "pageA", `document.body.dataset.state === "typing"`, 5*time.Second)

	rig.xv.Kill()
	waitPage(t, a, "pageA", `document.body.dataset.state === "closed" && !document.getElementById("reconnect").hidden && /Reconnecting in \d+ s\.$/.test(document.getElementById("why").textContent)`, 5*time.Second)
	why := pageEval[string](t, a, `document.getElementById("why").textContent`)
	if !strings.Contains(why, reasonServerEnded) && !strings.Contains(why, reasonUnreachable) {
		t.Fatalf("the page says %q, not the reason glass sent", why)
	}
	t.Logf("page after the kill: %q", why)
	x2 := startXvncOn(t, port, testPassword)
	restarted := time.Now()
	waitPage(t, a, "pageA", `document.body.dataset.state === "typing" || document.body.dataset.state === "watching"`, 5*time.Second)
	t.Logf("page back %v after Xvnc listened again", time.Since(restarted).Round(10*time.Millisecond))
	// Back within the grace period (the page retries at once and often
	// while it held the keyboard), it holds the keyboard still.
	waitPage(t, a, "pageA", `document.body.dataset.keyboard === "you" && document.body.dataset.state === "typing" && document.getElementById("reconnect").hidden && document.getElementById("banner").hidden`, 2*time.Second)
	if h, ok := tr.leases.holding("agent1"); !ok || h.Stream != pageEval[string](t, a, `window.glass.stream`) {
		t.Fatalf("after the restart glass has the keyboard with %+v (held %v), not the page's new stream", h, ok)
	}
	if n := distinctColours(t, screenshotCanvas(t, a)); n < 2 {
		t.Fatalf("the screen is blank after the restart: %d colour(s)", n)
	}

	// Xvnc away for longer than the grace period: the keyboard is handed
	// back, and the page says why without blaming its user.
	x2.Kill()
	time.Sleep(DefaultLeaseGrace + time.Second)
	startXvncOn(t, port, testPassword)
	waitPage(t, a, "pageA", `document.body.dataset.keyboard === "nobody" && document.body.dataset.state === "watching" && !document.getElementById("banner").hidden`, 40*time.Second)
	if text := pageEval[string](t, a, `document.getElementById("banner-text").textContent`); !strings.Contains(text, "the computer's screen stopped") {
		t.Fatalf("the banner says %q", text)
	}
	// Retry now: a closed page reconnects at once, without waiting out its
	// countdown.
	pageEval[bool](t, a, `(() => { window.glass.rfb.disconnect(); return true; })()`)
	waitPage(t, a, "pageA", `!document.getElementById("reconnect").hidden`, 5*time.Second)
	pageEval[bool](t, a, `(() => { window.glass.retryNow(); return true; })()`)
	waitPage(t, a, "pageA", `document.body.dataset.state === "typing" || document.body.dataset.state === "watching"`, 5*time.Second)
	for _, e := range con.all() {
		t.Errorf("browser console: %s", e)
	}
}

func screenshotCanvas(t *testing.T, ctx context.Context) []byte {
	t.Helper()
	time.Sleep(time.Second) // the first update
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#screen canvas")))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return shot
}

// TestBrowserKilledHolder: two tabs of one surface (sessionStorage, or
// the same ?surface=); one takes the keyboard and the other says the
// keyboard is in another tab. A reload of the holder keeps it. Then the
// holder's tab is closed while a script keeps renewing its lease: the
// renewals are refused and the keyboard is free within 5 s, as the other
// tab shows. Nothing lands in the console.
func TestBrowserKilledHolder(t *testing.T) {
	rig := newPageRig(t)
	tr, srv, con := rig.tr, rig.srv, rig.con
	a := openPage(t, rig.browser, con, srv.URL, "desk")
	b := openPage(t, rig.browser, con, srv.URL, "desk")
	if err := chromedp.Do(a, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, a, "tab A", `document.body.dataset.state === "typing" && document.body.dataset.keyboard === "you"`, 5*time.Second)
	waitPage(t, b, "tab B", `document.body.dataset.keyboard === "tab" && document.getElementById("keyboard").textContent.includes("another tab") && document.getElementById("give").hidden`, 2*time.Second)

	// A reload keeps the keyboard: the new stream inherits it.
	if err := chromedp.Do(a, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("relay log:\n%s", tr.logs.String())
		}
	})
	waitPage(t, a, "tab A", `document.body.dataset.state === "typing" && document.body.dataset.keyboard === "you"`, 10*time.Second)
	stream := pageEval[string](t, a, `window.glass.stream`)
	if h, ok := tr.leases.holding("agent1"); !ok || h.Surface != "desk" || h.Stream != stream {
		t.Fatalf("after the reload the keyboard is %+v (held %v), want the reloaded stream %s", h, ok, stream)
	}

	// A script keeps renewing the holder's lease, as a dead page's timer
	// would; the holder's tab is closed.
	// Each renewal's start and answer; glass's close of the viewer is when
	// its count of open viewers drops to tab B's one.
	type renewal struct {
		at   time.Time
		code int
	}
	var mu sync.Mutex
	var renewals []renewal
	stop := make(chan struct{})
	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		body := `{"agent":"agent1","surface":"desk","stream":"` + stream + `"}`
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			at := time.Now()
			resp, err := http.Post(srv.URL+"/v1/tools/computers.renew", "application/json", strings.NewReader(body))
			if err != nil {
				continue
			}
			resp.Body.Close()
			mu.Lock()
			renewals = append(renewals, renewal{at, resp.StatusCode})
			mu.Unlock()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	closeTab(t, a)
	killed := time.Now()
	var viewerGone time.Time
	for {
		if viewerGone.IsZero() && tr.Viewers("agent1") == 1 {
			viewerGone = time.Now()
		}
		if _, held := tr.leases.Holder("agent1"); !held {
			break
		}
		if time.Since(killed) > 5*time.Second {
			t.Fatal("the closed tab's keyboard was still held 5 s later")
		}
		time.Sleep(20 * time.Millisecond)
	}
	free := time.Since(killed)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-renewDone
	after, accepted := 0, 0
	for _, r := range renewals {
		if !viewerGone.IsZero() && r.at.After(viewerGone) {
			after++
			if r.code == http.StatusOK {
				accepted++
			}
		}
	}
	if viewerGone.IsZero() || accepted > 0 || after < 5 {
		t.Fatalf("%d of %d renewals after glass saw the viewer close were accepted (want none, of at least 5)", accepted, after)
	}
	t.Logf("keyboard free %v after the holder's tab was closed (its viewer closed after %v); %d renewals since refused",
		free.Round(10*time.Millisecond), viewerGone.Sub(killed).Round(10*time.Millisecond), after)
	waitPage(t, b, "tab B", `document.body.dataset.keyboard === "nobody" && !document.getElementById("take").disabled`, 2*time.Second)
	for _, e := range con.all() {
		t.Errorf("browser console: %s", e)
	}
}

// closeTab closes a tab as its user would (Target.closeTarget).
func closeTab(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Cancel(ctx); err != nil {
		t.Fatalf("closing the tab: %v", err)
	}
}
