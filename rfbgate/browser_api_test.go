package rfbgate

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCrossOriginTakeover: a page on another site, in real headless
// Chromium, tries to take the keyboard through the control API, the way
// the attacker did (a no-cors text/plain POST) and with a CORS JSON
// POST. Neither moves the keyboard; the relay refuses both before its tools
// run.
func TestBrowserCrossOriginTakeover(t *testing.T) {
	r, err := NewRelay(Config{Computers: []Computer{{Name: "demo", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var refused, tools atomic.Int64
	inner := NewHandler(r, HandlerOptions{})
	relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, req)
		if strings.HasPrefix(req.URL.Path, "/v1/tools/") {
			tools.Add(1)
			if rec.Code == http.StatusForbidden && strings.Contains(rec.Body.String(), "origin_forbidden") {
				refused.Add(1)
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	defer relay.Close()
	r.leases.TakeOver("demo", "victim", "v1")

	target := relay.URL + "/v1/tools/computers.takeover"
	page := fmt.Sprintf(`<!doctype html><title>mallory</title><script>
const body = '{"agent":"demo","surface":"mallory"}';
Promise.allSettled([
  fetch(%[1]q, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}),
  fetch(%[1]q, {method: 'POST', headers: {'Content-Type': 'application/json'}, body}),
]).then(() => { document.title = 'tried'; });
</script>`, target)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	defer evil.Close()
	// "localhost" is another site than "127.0.0.1" as well as another origin.
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)

	ctx := newBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(evilURL)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.title === "tried"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not finish its attempts: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if h, ok := r.leases.Holder("demo"); !ok || h != "victim" {
		t.Fatalf("a cross-site page moved the keyboard to %q (held %v)", h, ok)
	}
	// The no-cors POST reaches the relay and is refused for its origin; the
	// JSON one stops at its preflight (OPTIONS, refused) or is refused too.
	if refused.Load() < 1 {
		t.Fatalf("the relay saw %d tool requests, %d refused for their origin; want the no-cors POST refused", tools.Load(), refused.Load())
	}
	t.Logf("%d cross-origin tool requests reached the relay, %d refused with origin_forbidden; keyboard still with victim", tools.Load(), refused.Load())
}
