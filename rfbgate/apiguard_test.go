package rfbgate

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// apiCall makes one request with the given headers and returns the status,
// the headers and the decoded JSON body (which every answer must be).
func apiCall(t *testing.T, method, url, body string, hdr map[string]string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: not JSON (%d): %q", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, resp.Header, m
}

// TestControlAPIGuards: JSON only, the origin and Sec-Fetch-Site checks,
// 405 with Allow, the body limit, a case-insensitive Bearer, JSON errors for
// upgrade refusals and no directory listing.
func TestControlAPIGuards(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	r, err := NewRelay(Config{PerViewerUpstream: true,
		Computers:      []Computer{{Name: "agent1", Addr: addr, Password: NewSecret(testPassword)}},
		OriginPatterns: []string{"deck.example"},
		Logger:         slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := httptest.NewServer(NewHandler(r, HandlerOptions{NoVNCDir: noVNCDir(t)}))
	defer srv.Close()
	own := srv.URL                               // http://127.0.0.1:PORT
	viewerAt(t, r, srv.URL, "agent1", "mallory") // a take-over needs an open viewer
	body := `{"agent":"agent1","surface":"mallory"}`
	jsonCT := map[string]string{"Content-Type": "application/json"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name string
		hdr  map[string]string
		code int
		err  string
	}{
		{"curl: JSON, no Origin", jsonCT, 200, ""},
		{"charset parameter", with("Content-Type", "application/json; charset=utf-8"), 200, ""},
		{"text/plain (a no-cors form post)", with("Content-Type", "text/plain"), 415, "unsupported_media_type"},
		{"no content type", nil, 415, "unsupported_media_type"},
		{"form", with("Content-Type", "application/x-www-form-urlencoded"), 415, "unsupported_media_type"},
		{"foreign Origin", with("Content-Type", "application/json", "Origin", "http://evil.example"), 403, "origin_forbidden"},
		{"foreign Origin, text/plain", with("Content-Type", "text/plain", "Origin", "http://evil.example"), 403, "origin_forbidden"},
		{"other port on the same host", with("Content-Type", "application/json", "Origin", "http://127.0.0.1:1"), 403, "origin_forbidden"},
		{"null Origin", with("Content-Type", "application/json", "Origin", "null"), 403, "origin_forbidden"},
		{"own Origin", with("Content-Type", "application/json", "Origin", own, "Sec-Fetch-Site", "same-origin"), 200, ""},
		{"allowed by -origins", with("Content-Type", "application/json", "Origin", "https://deck.example", "Sec-Fetch-Site", "cross-site"), 200, ""},
		{"cross-site without Origin", with("Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"), 403, "origin_forbidden"},
		{"same-site without Origin", with("Content-Type", "application/json", "Sec-Fetch-Site", "same-site"), 403, "origin_forbidden"},
		{"same-origin without Origin", with("Content-Type", "application/json", "Sec-Fetch-Site", "same-origin"), 200, ""},
	} {
		r.leases.GiveBack("agent1", "mallory")
		code, _, m := apiCall(t, "POST", srv.URL+"/v1/tools/computers.takeover", body, c.hdr)
		if code != c.code || (c.err != "" && (m["error"] != c.err || m["message"] == "")) {
			t.Errorf("%s: %d %v, want %d %s", c.name, code, m, c.code, c.err)
		}
		_, held := r.leases.Holder("agent1")
		if held != (c.code == 200) {
			t.Errorf("%s: keyboard taken %v after answer %d", c.name, held, code)
		}
	}
	// A cross-origin GET of the status or the events is refused too.
	for _, p := range []string{"/v1/computers/agent1", "/v1/events"} {
		if code, _, m := apiCall(t, "GET", srv.URL+p, "", with("Origin", "http://evil.example")); code != 403 || m["error"] != "origin_forbidden" {
			t.Errorf("cross-origin GET %s: %d %v", p, code, m)
		}
	}
	// Wrong methods: 405 with Allow, JSON.
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/tools/computers.takeover", "POST"},
		{"PUT", "/v1/tools/computers.watch", "POST"},
		{"POST", "/v1/computers/agent1", "GET"},
		{"DELETE", "/v1/events", "GET"},
		{"POST", "/v1/streams/computers/glass", "GET"},
	} {
		code, h, m := apiCall(t, c.method, srv.URL+c.path, "", jsonCT)
		if code != 405 || h.Get("Allow") != c.allow || m["error"] != "method_not_allowed" {
			t.Errorf("%s %s: %d Allow %q %v", c.method, c.path, code, h.Get("Allow"), m)
		}
	}
	// The body limit: at maxRequestBody fine, one byte more "too large".
	pad := func(n int) string { return body + strings.Repeat(" ", n-len(body)) }
	if code, _, m := apiCall(t, "POST", srv.URL+"/v1/tools/computers.watch", pad(maxRequestBody), jsonCT); code != 200 {
		t.Errorf("body of %d bytes: %d %v", maxRequestBody, code, m)
	}
	if code, _, m := apiCall(t, "POST", srv.URL+"/v1/tools/computers.watch", "{\"agent\":\""+strings.Repeat("a", maxRequestBody)+"\"}", jsonCT); code != 413 || m["error"] != "too_large" {
		t.Errorf("body over the limit: %d %v", code, m)
	}
	if code, _, m := apiCall(t, "POST", srv.URL+"/v1/tools/computers.watch", pad(maxRequestBody+1), jsonCT); code != 413 || m["error"] != "too_large" {
		t.Errorf("body of %d bytes: %d %v", maxRequestBody+1, code, m)
	}
	// Upgrade refusals are JSON: not an upgrade, and a foreign origin (before
	// the ticket is used).
	if code, _, m := apiCall(t, "GET", srv.URL+"/v1/streams/computers/glass?ticket=x", "", nil); code != 426 || m["error"] != "upgrade_required" {
		t.Errorf("plain GET of the stream: %d %v", code, m)
	}
	tk, _ := r.Watch("agent1", "s")
	before := r.tickets.Outstanding()
	up := with("Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Origin", "http://evil.example")
	if code, _, m := apiCall(t, "GET", srv.URL+"/v1/streams/computers/glass?ticket="+tk.Token, "", up); code != 403 || m["error"] != "origin_forbidden" {
		t.Errorf("foreign-origin upgrade: %d %v", code, m)
	}
	if r.tickets.Outstanding() != before {
		t.Errorf("a refused origin used the ticket")
	}
	delete(up, "Sec-WebSocket-Key")
	if code, _, m := apiCall(t, "GET", srv.URL+"/v1/streams/computers/glass?ticket="+tk.Token, "", up); code != 400 || m["error"] != "bad_websocket_key" {
		t.Errorf("upgrade without a key: %d %v", code, m)
	}
	up["Sec-WebSocket-Key"] = "dGhlIHNhbXBsZSBub25jZQ=="
	up["Sec-WebSocket-Version"] = "8"
	delete(up, "Origin")
	if code, _, m := apiCall(t, "GET", srv.URL+"/v1/streams/computers/glass?ticket="+tk.Token, "", up); code != 400 || m["error"] != "bad_websocket_version" {
		t.Errorf("old WebSocket version: %d %v", code, m)
	}
	// noVNC's files, never a listing.
	for _, p := range []string{"/glass/novnc/", "/glass/novnc/core/", "/glass/novnc/core", "/glass/novnc/.bin/", "/glass/novnc/nope.js", "/nothing"} {
		if code, _, m := apiCall(t, "GET", srv.URL+p, "", nil); code != 404 || m["error"] != "not_found" {
			t.Errorf("GET %s: %d %v", p, code, m)
		}
	}
	resp, err := http.Get(srv.URL + "/glass/novnc/core/rfb.js")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("rfb.js: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestBearerSchemeCaseInsensitive: "bearer", "BEARER" and "Bearer" all work;
// a wrong token or scheme does not.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	for _, c := range []struct {
		h  string
		ok bool
	}{{"Bearer tok", true}, {"bearer tok", true}, {"BEARER tok", true}, {"Bearer  tok", true}, {"Basic tok", false}, {"Bearer tok2", false}, {"Bearer", false}, {"tok", false}, {"", false}} {
		if got := bearerOK(c.h, "tok"); got != c.ok {
			t.Errorf("%q: %v, want %v", c.h, got, c.ok)
		}
	}
}

// blockingWriter is a ResponseWriter whose writes wait until released: an
// events subscriber whose network is stuck.
type blockingWriter struct {
	hdr     http.Header
	release chan struct{}
	mu      sync.Mutex
	out     bytes.Buffer
}

func (b *blockingWriter) Header() http.Header { return b.hdr }
func (b *blockingWriter) WriteHeader(int)     {}
func (b *blockingWriter) Flush()              {}
func (b *blockingWriter) Write(p []byte) (int, error) {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.Write(p)
}

// TestEventsTellLaggingSubscriber: a stream that falls eventBuffer events
// behind gets every event it kept, then a "dropped" event, and ends.
func TestEventsTellLaggingSubscriber(t *testing.T) {
	r, err := NewRelay(Config{Computers: []Computer{{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := &handler{r: r}
	w := &blockingWriter{hdr: http.Header{}, release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.events(w, httptest.NewRequest("GET", "/v1/events", nil))
	}()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		r.leases.mu.Lock()
		n := len(r.leases.subs)
		r.leases.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the events handler did not subscribe")
		}
	}
	for i := 0; i < 1000; i++ { // 2,000 events in a burst
		r.leases.TakeOver("a", "s", "s1")
		r.leases.GiveBack("a", "s")
	}
	close(w.release)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a lagging events stream did not end")
	}
	out := w.out.String()
	if n := strings.Count(out, "event: computer."); n != eventBuffer {
		t.Fatalf("%d events before the end, want the %d buffered", n, eventBuffer)
	}
	if !strings.HasSuffix(out, "event: dropped\ndata: {\"type\":\"dropped\",\"message\":\"this stream fell 64 events behind and missed some; reconnect and read the status\"}\n\n") {
		t.Fatalf("the stream does not end with a dropped event: %q", out[max(0, len(out)-300):])
	}
}
