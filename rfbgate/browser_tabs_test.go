package rfbgate

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// requestCounter counts the requests a handler serves, by path.
type requestCounter struct {
	mu sync.Mutex
	n  map[string]int
	h  http.Handler
}

func (c *requestCounter) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	c.mu.Lock()
	c.n[req.URL.Path]++
	c.mu.Unlock()
	c.h.ServeHTTP(w, req)
}

func (c *requestCounter) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

// TestBrowserTwentyTabs: twenty tabs of one headless Chromium on plain
// HTTP (where Chromium keeps at most six connections to a host) all watch
// one real Xvnc, each holding nothing open to glass but its screen's
// WebSocket: no /v1/events request, no status polling. Each says how many
// watch. One takes over and types (X sees the keys), every other tab names
// it; another takes it, the first says who took it, and gives it back;
// every tab says nobody has it. Nothing lands in any console.
func TestBrowserTwentyTabs(t *testing.T) {
	const tabs = 20
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}}, PingInterval: time.Second})
	rc := &requestCounter{n: map[string]int{}, h: NewHandler(tr.Relay, HandlerOptions{})}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	browser := newBrowser(t)
	if err := chromedp.Do(browser); err != nil {
		t.Fatal(err)
	}
	browser, cancel := context.WithTimeout(browser, 4*time.Minute)
	t.Cleanup(cancel)
	con := &consoleLog{}
	page := make([]context.Context, tabs)
	start := time.Now()
	for i := range page {
		name := fmt.Sprintf("Tab %d", i+1)
		ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(con.listen(name)))
		t.Cleanup(cancel)
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/glass/?agent=agent1&name="+strings.ReplaceAll(name, " ", "%20"))); err != nil {
			t.Fatalf("%s: navigate: %v", name, err)
		}
		page[i] = ctx
	}
	for i, ctx := range page {
		waitPage(t, ctx, fmt.Sprintf("Tab %d", i+1), fmt.Sprintf(`document.body.dataset.state === "watching" && document.getElementById("watching").textContent === "%d watching"`, tabs), 60*time.Second)
	}
	t.Logf("%d tabs watching %v after the first opened", tabs, time.Since(start).Round(100*time.Millisecond))
	if n := tr.Viewers("agent1"); n != tabs {
		t.Fatalf("glass counts %d viewers, want %d", n, tabs)
	}

	// Tab 3 takes over and types.
	holder, other := page[2], page[16]
	if err := chromedp.Do(holder, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, holder, "Tab 3", `document.body.dataset.state === "typing"`, 10*time.Second)
	xe.take()
	if err := chromedp.Do(holder, chromedp.Click(chromedp.CSS("#screen canvas")), chromedp.KeyEvent("abc")); err != nil {
		t.Fatal(err)
	}
	ev := xe.waitFor(5*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 3 })
	if count(ev, "KeyPress") != 3 || count(ev, "KeyRelease") != 3 {
		t.Fatalf("Tab 3 typing: X saw %v, want 3 key presses and releases", ev)
	}
	for i, ctx := range page {
		if i != 2 {
			waitPage(t, ctx, fmt.Sprintf("Tab %d", i+1), `document.getElementById("keyboard").textContent === "Tab 3 has the keyboard" && document.getElementById("watching").textContent === "19 watching"`, 10*time.Second)
		}
	}
	// Tab 17 takes it; Tab 3 says who took it; Tab 17 gives it back.
	if err := chromedp.Do(other, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, other, "Tab 17", `document.body.dataset.keyboard === "you"`, 10*time.Second)
	waitPage(t, holder, "Tab 3", `!document.getElementById("banner").hidden && document.getElementById("banner-text").textContent.startsWith("Tab 17 took the keyboard at ")`, 10*time.Second)
	if err := chromedp.Do(other, chromedp.Click(chromedp.CSS("#give"))); err != nil {
		t.Fatal(err)
	}
	for i, ctx := range page {
		waitPage(t, ctx, fmt.Sprintf("Tab %d", i+1), `document.getElementById("keyboard").textContent === "Nobody has the keyboard" && document.getElementById("watching").textContent === "20 watching"`, 10*time.Second)
	}
	if h, held := tr.leases.Holder("agent1"); held {
		t.Fatalf("the keyboard is still held by %s", h)
	}
	if n := rc.count("/v1/events"); n != 0 {
		t.Fatalf("the pages opened /v1/events %d times", n)
	}
	t.Logf("requests: %d watch tickets, %d computer lists, %d streams", rc.count("/v1/tools/computers.watch"), rc.count("/v1/computers"), rc.count("/v1/streams/computers/glass"))
	for _, e := range con.all() {
		t.Errorf("browser console: %s", e)
	}
}
