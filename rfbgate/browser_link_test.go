package rfbgate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserLinks, in headless Chromium on a real Xvnc behind glass with
// an admin token that base64 would write ("+", "/", "="):
//   - the operator's page opened with #token=T as typed, raw, works;
//   - a watch-only ticket link opens a page with no admin token that
//     watches: no Take over, no Keyboard, no Clipboard, noVNC view-only;
//     a click on the screen says its input is not sent; a take-over sent
//     on its stream anyway is refused; the ticket leaves the address; a
//     reload reconnects it with its resume credential, watch-only still;
//   - the same link opened again says it was used, and asks for a new one;
//   - a control link named with markup takes the keyboard, and the other
//     pages show its name as text (no element made of it);
//   - the link line shows nothing until glass's first link event, then
//     the latest in words;
//   - no link page ever called the control API (no 401), and nothing lands
//     in any console but Chromium's own line for the used link's refusal.
func TestBrowserLinks(t *testing.T) {
	const token = "q+Zx/9Ab3==" // as `openssl rand -base64` writes them
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}}, PingInterval: time.Second})
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{AdminToken: token}))
	t.Cleanup(srv.Close)
	browser := newBrowser(t)
	if err := chromedp.Do(browser); err != nil {
		t.Fatal(err)
	}
	con := &consoleLog{}
	tab := func(name, url string) context.Context {
		ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(con.listen(name)))
		t.Cleanup(cancel)
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatalf("%s: navigate: %v", name, err)
		}
		return ctx
	}
	mintLink := func(body string) string {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/tools/computers.watch", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]string
		json.NewDecoder(resp.Body).Decode(&m)
		if resp.StatusCode != 200 || m["link"] == "" {
			t.Fatalf("watch %s: %d %v", body, resp.StatusCode, m)
		}
		return m["link"]
	}

	desk := tab("desk", srv.URL+"/glass/?agent=agent1&name=Desk#token="+token)
	waitPage(t, desk, "desk", `document.body.dataset.state === "watching" && document.body.dataset.access === "control"`, 20*time.Second)

	link := mintLink(`{"agent":"agent1","surface":"crowd","access":"watch","name":"Crowd"}`)
	crowd := tab("crowd", srv.URL+link)
	waitPage(t, crowd, "crowd", `document.body.dataset.state === "watching" && document.body.dataset.access === "watch" && location.hash === ""`, 20*time.Second)
	hidden := pageEval[map[string]bool](t, crowd, `(() => { const h = (id) => getComputedStyle(document.getElementById(id)).display === "none";
		return {take: h("take"), give: h("give"), kbd: h("kbd"), clip: h("clipbtn"), viewOnly: window.glass.rfb.viewOnly}; })()`)
	if !hidden["take"] || !hidden["give"] || !hidden["kbd"] || !hidden["clip"] || !hidden["viewOnly"] {
		t.Fatalf("a watch-only page offers %v", hidden)
	}
	if err := chromedp.Do(crowd, chromedp.Click(chromedp.CSS("#screen canvas"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, crowd, "crowd", `!document.getElementById("hint").hidden && document.getElementById("hint-text").textContent.includes("watch-only link")`, 2*time.Second)
	if got, err := chromedp.Run(crowd, chromedp.Evaluate[string](`window.glass.command("takeover").then(() => "taken", (e) => e.code)`, chromedp.EvalAwaitPromise)); err != nil || got != "watch_only" {
		t.Fatalf("a take-over sent from the watch-only page: %q %v", got, err)
	}
	first := pageEval[string](t, crowd, `window.glass.stream`)
	if err := chromedp.Do(crowd, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitPage(t, crowd, "crowd", `document.body.dataset.state === "watching" && window.glass.stream !== "" && window.glass.stream !== "`+first+`" && window.glass.hello.access === "watch" && window.glass.hello.name === "Crowd"`, 20*time.Second)

	// The same link again: used.
	again := tab("again", srv.URL+link)
	waitPage(t, again, "again", `document.body.dataset.state === "closed" && document.getElementById("why").textContent.includes("Ask for a new link")`, 20*time.Second)

	// A control link with markup in its name takes the keyboard.
	odd := `<img src=x onerror="window.pwned=1">Ana`
	body, _ := json.Marshal(map[string]string{"agent": "agent1", "surface": "ana", "name": odd})
	ana := tab("ana", srv.URL+mintLink(string(body)))
	waitPage(t, ana, "ana", `document.body.dataset.state === "watching" && !document.getElementById("take").disabled`, 20*time.Second)
	if err := chromedp.Do(ana, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ana, "ana", `document.body.dataset.state === "typing"`, 10*time.Second)
	for name, ctx := range map[string]context.Context{"desk": desk, "crowd": crowd} {
		waitPage(t, ctx, name, `document.getElementById("keyboard").textContent === `+jsString(odd+" has the keyboard")+` && document.querySelectorAll("#info img").length === 0 && window.pwned === undefined`, 5*time.Second)
	}

	// The link line: glass's own measure of the page's link (its
	// requests for updates), within a few reports.
	waitPage(t, crowd, "crowd", `/^Your link( keeps up|: [0-9.]+ [kM]?bit\/s), [0-9]+ ms · picture: (exact|high|good|medium|low|lowest)$/.test(document.getElementById("link").textContent)`, 15*time.Second)
	t.Logf("the crowd's page says %q", pageEval[string](t, crowd, `document.getElementById("link").textContent`))

	scrape(t, tr.Relay).want(t, 0, "glass_unauthorized_total")
	for _, e := range con.all() {
		// Chromium logs the refused upgrade of the used link, which no page
		// can keep out of its console.
		if strings.HasPrefix(e, "again: log network error") && strings.Contains(e, "403") {
			continue
		}
		t.Errorf("browser console: %s", e)
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(s)
	return strings.TrimSpace(b.String())
}
