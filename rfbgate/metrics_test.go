package rfbgate

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/wirebench/wirebench/internal/rfb"
)

// metrics is one scrape of a relay's /metrics, parsed.
type metrics map[string]*dto.MetricFamily

// scrape GETs the relay's /metrics from loopback, as a local Prometheus
// would, and parses the text format.
func scrape(t testing.TB, r *Relay) metrics {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.RemoteAddr = "127.0.0.1:40000"
	rec := httptest.NewRecorder()
	r.MetricsHandler("").ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// get sums the values of name's series whose labels include the pairs
// given (name, value, name, value...): a counter's or gauge's value, a
// histogram's sample count.
func (m metrics) get(name string, pairs ...string) float64 {
	sum, _ := m.lookup(name, pairs...)
	return sum
}

// lookup is get, and whether any series matched.
func (m metrics) lookup(name string, pairs ...string) (sum float64, found bool) {
	f := m[name]
	if f == nil {
		return 0, false
	}
next:
	for _, s := range f.Metric {
		for i := 0; i+1 < len(pairs); i += 2 {
			found := false
			for _, l := range s.Label {
				if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		found = true
		switch {
		case s.Counter != nil:
			sum += s.Counter.GetValue()
		case s.Gauge != nil:
			sum += s.Gauge.GetValue()
		case s.Histogram != nil:
			sum += float64(s.Histogram.GetSampleCount())
		}
	}
	return sum, found
}

// want checks name{pairs} == v: a series must be exported, so a zero is
// a zero the relay reports, not a family it forgot.
func (m metrics) want(t testing.TB, v float64, name string, pairs ...string) {
	t.Helper()
	got, found := m.lookup(name, pairs...)
	if !found {
		t.Errorf("%s%v: no such series exported", name, pairs)
	} else if got != v {
		t.Errorf("%s%v = %v, want %v", name, pairs, got, v)
	}
}

// waitMetric scrapes until cond holds (the relay counts a client's bytes
// when it has read them), for up to 5 s, and returns the last scrape.
func waitMetric(t testing.TB, r *Relay, cond func(metrics) bool) metrics {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		m := scrape(t, r)
		if cond(m) || time.Now().After(deadline) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serverCutText is a ServerCutText message carrying text.
func serverCutText(text string) []byte {
	b := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerCutText, 0, 0, 0}, uint32(len(text)))
	return append(b, text...)
}

// TestMetricsCountWhatViewersDid: three viewers of a scripted server
// (64 KiB of updates and a clipboard message, then quiet), one of them
// holding the keyboard, send known input; /metrics, scraped during and
// after, counts exactly that: viewers by role, opened and closed by code,
// messages passed, dropped and refused by type, the clipboard withheld
// from watchers, bytes each way, lease changes by cause, handshakes and
// pings.
func TestMetricsCountWhatViewersDid(t *testing.T) {
	updates := make([]byte, 16*seededMsg)
	newSeededStream(1).fill(updates)
	clip := serverCutText("server clipboard")
	script := append(append([]byte{}, updates...), clip...)
	addr := scriptedVNC(t, testPassword, script)
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers:    []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		PingInterval: 50 * time.Millisecond,
		LeaseTTL:     3 * time.Second,
	})
	h := watchClose(t, tr, "a", "h", true)
	w1 := watchClose(t, tr, "a", "w1", true)
	w2 := watchClose(t, tr, "a", "w2", true)
	waitViewers(t, tr, "a", 3, 5*time.Second)
	// Every viewer was a watcher when the script came: the clipboard is
	// withheld from all three.
	for _, c := range []*closeWatcher{h, w1, w2} {
		waitFor(t, func() bool { return c.received() == int64(len(updates)) })
	}
	takeOverNewest(t, tr.Relay, "a", "h")
	m := waitMetric(t, tr.Relay, func(m metrics) bool { return m.get("glass_viewers", "role", "holder") == 1 })
	m.want(t, 1, "glass_viewers", "computer", "a", "role", "holder")
	m.want(t, 2, "glass_viewers", "computer", "a", "role", "watcher")

	send := func(c *closeWatcher, msgs ...[]byte) (n int) {
		for _, b := range msgs {
			if _, err := c.Write(b); err != nil {
				t.Fatal(err)
			}
			n += len(b)
		}
		return n
	}
	toComputer := send(h, setEncodings(0), fbur)
	for range 5 {
		toComputer += send(h, keyEvent(true, 'a'), keyEvent(false, 'a'))
	}
	toComputer += send(w1, fbur)
	for range 3 {
		send(w1, keyEvent(true, 'b'), keyEvent(false, 'b'))
	}
	send(w1, pointer(1, 5, 5), pointer(0, 5, 5))
	send(w2, cutText(2, []byte("hi")))
	m = waitMetric(t, tr.Relay, func(m metrics) bool {
		return m.get("glass_client_messages_total", "type", "KeyEvent")+m.get("glass_client_messages_total", "verdict", "dropped") >= 16+9
	})
	for _, c := range []struct {
		typ, verdict string
		n            float64
	}{
		{"SetEncodings", "passed", 1}, {"FramebufferUpdateRequest", "passed", 2}, {"KeyEvent", "passed", 10},
		{"KeyEvent", "dropped", 6}, {"PointerEvent", "dropped", 2}, {"ClientCutText", "dropped", 1},
	} {
		m.want(t, c.n, "glass_client_messages_total", "computer", "a", "type", c.typ, "verdict", c.verdict)
	}
	m.want(t, 3, "glass_viewers_opened_total", "computer", "a")
	m.want(t, 3, "glass_dial_attempts_total", "computer", "a", "result", dialOK)
	m.want(t, float64(3*len(updates)), "glass_bytes_total", "computer", "a", "direction", "to_viewer")
	m.want(t, float64(toComputer), "glass_bytes_total", "computer", "a", "direction", "to_computer")
	m.want(t, 3, "glass_server_messages_withheld_total", "computer", "a")
	if m.get("glass_ping_rtt_seconds", "computer", "a") == 0 {
		t.Error("no ping round trip observed")
	}
	if m.get("go_build_info") != 1 {
		t.Error("no go_build_info")
	}

	// Lease changes: a give-back, a take-over by another surface, expiry.
	tr.leases.GiveBack("a", "h")
	takeOverNewest(t, tr.Relay, "a", "w1")
	m = waitMetric(t, tr.Relay, func(m metrics) bool { return m.get("glass_lease_changes_total", "cause", "expiry") == 1 })
	m.want(t, 2, "glass_lease_changes_total", "computer", "a", "cause", "take-over")
	m.want(t, 1, "glass_lease_changes_total", "computer", "a", "cause", "give-back")
	m.want(t, 1, "glass_lease_changes_total", "computer", "a", "cause", "expiry")

	// A refused message (xvp) closes w2 with 1008 naming it; h and w1 close
	// themselves (1000).
	send(w2, []byte{rfb.MsgXvp, 0, 1, 2})
	w2.closedWith(t, "w2 after xvp", websocket.StatusPolicyViolation, "client message refused: xvp")
	h.ws.Close(websocket.StatusNormalClosure, "bye")
	w1.ws.Close(websocket.StatusNormalClosure, "bye")
	waitViewers(t, tr, "a", 0, 10*time.Second)
	m = scrape(t, tr.Relay)
	m.want(t, 0, "glass_viewers", "computer", "a")
	m.want(t, 1, "glass_viewer_closes_total", "computer", "a", "code", "1008")
	m.want(t, 2, "glass_viewer_closes_total", "computer", "a", "code", "1000")
	m.want(t, 1, "glass_client_messages_total", "computer", "a", "type", "xvp", "verdict", "refused")
	m.want(t, 10, "glass_client_messages_total", "computer", "a", "type", "KeyEvent", "verdict", "passed")
	m.want(t, float64(3*len(updates)), "glass_bytes_total", "computer", "a", "direction", "to_viewer")
	m.want(t, float64(toComputer), "glass_bytes_total", "computer", "a", "direction", "to_computer")
	m.want(t, 0, "glass_write_timeout_drops_total", "computer", "a")
	if l := tr.logs.String(); !strings.Contains(l, `surface=w2 access=control role=watcher remote=127.0.0.1:`) || !strings.Contains(l, `by=relay code=1008 reason="client message refused: xvp (forbidden client message)" close_sent=true`) {
		t.Errorf("the log does not carry the 1008 sent, naming xvp:\n%s", l)
	}
	if l := tr.logs.String(); !strings.Contains(l, `by=viewer code=1000 reason=bye close_sent=true`) {
		t.Errorf("the log does not carry the viewers' own close:\n%s", l)
	}
}

// TestMetricsGuard: /metrics wants the admin token when one is set (from
// any address), and otherwise serves loopback clients only; a browser on
// another origin and a POST are refused.
func TestMetricsGuard(t *testing.T) {
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}})
	for _, c := range []struct {
		name, token, remote, auth, origin, method string
		want                                      int
	}{
		{"loopback, no token", "", "127.0.0.1:5000", "", "", "GET", 200},
		{"IPv6 loopback", "", "[::1]:5000", "", "", "GET", 200},
		{"LAN, no token", "", "192.0.2.7:5000", "", "", "GET", 403},
		{"LAN with the token", "tok", "192.0.2.7:5000", "Bearer tok", "", "GET", 200},
		{"loopback without the token", "tok", "127.0.0.1:5000", "", "", "GET", 401},
		{"wrong token", "tok", "127.0.0.1:5000", "Bearer nope", "", "GET", 401},
		{"another site's page", "", "127.0.0.1:5000", "", "https://evil.example", "GET", 403},
		{"POST", "", "127.0.0.1:5000", "", "", "POST", 405},
	} {
		req := httptest.NewRequest(c.method, "/metrics", nil)
		req.RemoteAddr = c.remote
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		rec := httptest.NewRecorder()
		tr.MetricsHandler(c.token).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, rec.Code, c.want, rec.Body)
		}
		if c.want == 200 && !strings.Contains(rec.Body.String(), "glass_viewers{computer=\"a\",role=\"holder\"} 0") {
			t.Errorf("%s: no glass_viewers in\n%s", c.name, rec.Body)
		}
		if c.want != 200 && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("%s: refusal is not the JSON error shape: %s", c.name, rec.Body)
		}
	}
}
