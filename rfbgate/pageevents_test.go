package rfbgate

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestPageEventsOnStream: pages that open their stream with the
// subprotocol "glass" get glass's events on it, and act by commands on
// it, with no other request open: the hello (stream, access, name, resume
// credential, lease TTL and grace), the state (who holds the keyboard by
// name, as "you", "tab" or "other"; how many watch), lease events with
// names and reasons, replies, round trips and link events. The status
// and /v1/events name the holder and count the watchers too.
func TestPageEventsOnStream(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		PingInterval: 100 * time.Millisecond, LeaseGrace: time.Second})
	base := tr.srv.URL
	sse := followEvents(t, base)

	ana := dialPage(t, base, "ticket="+mint(t, base, `{"agent":"a","surface":"desk","name":"Ana's laptop"}`)["ticket"])
	tab := dialPage(t, base, "ticket="+mint(t, base, `{"agent":"a","surface":"desk","name":"Ana's laptop"}`)["ticket"])
	odd := `<b>Bo "the" O'Neil</b> & co`
	bo := dialPage(t, base, "ticket="+mint(t, base, `{"agent":"a","surface":"phone","access":"watch","name":"`+strings.ReplaceAll(odd, `"`, `\"`)+`"}`)["ticket"])
	waitViewers(t, tr, "a", 3, 5*time.Second)
	for _, p := range []*pageClient{ana, tab, bo} {
		h := p.Hello
		if h["agent"] != "a" || h["stream"] == "" || h["resume"] == "" || h["lease_ttl_ms"] != float64(DefaultLeaseTTL.Milliseconds()) ||
			h["lease_grace_ms"] != float64(1000) || h["resume_window_ms"] != float64(DefaultResumeWindow.Milliseconds()) {
			t.Fatalf("hello %v", h)
		}
		p.lastState(3*time.Second, func(s map[string]any) bool {
			return s["keyboard"] == nil && s["viewers"] == float64(3) && s["watching"] == float64(3) && s["computer"] == "up"
		})
	}
	if bo.Hello["name"] != odd || bo.Hello["access"] != "watch" || ana.Hello["access"] != "control" {
		t.Fatalf("hellos: %v / %v", bo.Hello, ana.Hello)
	}

	// Ana takes over on her stream.
	rep := ana.command("takeover")
	if rep["ok"] != true || rep["ttl_ms"] != float64(DefaultLeaseTTL.Milliseconds()) || rep["expires_at"] == nil {
		t.Fatalf("take-over reply %v", rep)
	}
	for p, rel := range map[*pageClient]string{ana: holderYou, tab: holderTab, bo: holderOther} {
		p.lastState(3*time.Second, func(s map[string]any) bool {
			k, _ := s["keyboard"].(map[string]any)
			return k != nil && k["name"] == "Ana's laptop" && k["holder"] == rel && k["since"] != nil && s["watching"] == float64(2)
		})
		if ev := p.waitFor(3*time.Second, func(e map[string]any) bool {
			return e["type"] == eventTakenOver && e["name"] == "Ana's laptop" && e["holder"] == rel
		}); ev == nil {
			t.Fatalf("page %s got no taken-over event as %s: %v", p.Hello["stream"], rel, p.all())
		}
	}
	if rep := ana.command("renew"); rep["ok"] != true {
		t.Fatalf("renew %v", rep)
	}
	if rep := tab.command("renew"); rep["error"] != "not_holder" {
		t.Fatalf("renew from the other tab %v", rep)
	}
	if rep := tab.command("giveback"); rep["error"] != "not_holder" {
		t.Fatalf("give-back from the other tab %v", rep)
	}
	st := statusOf(t, base, "a")
	if st.Keyboard == nil || *st.Keyboard != "desk" || st.KeyboardName != "Ana's laptop" || st.Watching != 2 || len(st.Viewers) != 3 {
		t.Fatalf("status %+v", st)
	}
	// The other tab takes it: Ana's page learns who, and why.
	if rep := tab.command("takeover"); rep["ok"] != true {
		t.Fatalf("take-over by the other tab %v", rep)
	}
	if ev := ana.waitFor(3*time.Second, func(e map[string]any) bool {
		return e["type"] == eventHandedBack && e["reason"] == reasonMoved && e["holder"] == holderYou
	}); ev == nil {
		t.Fatalf("Ana's page was not told it lost the keyboard: %v", ana.all())
	}
	ana.lastState(3*time.Second, func(s map[string]any) bool {
		k, _ := s["keyboard"].(map[string]any)
		return k != nil && k["holder"] == holderTab
	})
	if rep := tab.command("giveback"); rep["ok"] != true {
		t.Fatalf("give-back %v", rep)
	}
	bo.lastState(3*time.Second, func(s map[string]any) bool { return s["keyboard"] == nil && s["watching"] == float64(3) })
	if ev := bo.waitFor(3*time.Second, func(e map[string]any) bool {
		return e["type"] == eventHandedBack && e["reason"] == reasonGiveBack && e["holder"] == holderOther && e["name"] == "Ana's laptop"
	}); ev == nil {
		t.Fatalf("the watcher was not told of the give-back: %v", bo.all())
	}
	// A command glass does not know, and one that is not JSON.
	if rep := ana.command("reboot"); rep["error"] != "bad_request" || !strings.Contains(rep["message"].(string), "reboot") {
		t.Fatalf("unknown op %v", rep)
	}
	if rep := ana.commandRaw("{"); rep["error"] != "bad_request" {
		t.Fatalf("not JSON %v", rep)
	}
	// Round trips, and a link event as the pacing code sends it.
	if ana.waitFor(3*time.Second, func(e map[string]any) bool { return e["type"] == "rtt" && e["rtt_ms"].(float64) >= 0 }) == nil {
		t.Fatal("no round-trip event")
	}
	tr.mu.Lock()
	for v := range tr.viewers["a"] {
		if v.stream == bo.Hello["stream"] {
			v.notify(newLinkEvent(1_800_000, 90*time.Millisecond, "medium", 5, false))
		}
	}
	tr.mu.Unlock()
	if ev := bo.waitFor(3*time.Second, func(e map[string]any) bool { return e["type"] == "link" }); ev == nil ||
		ev["rate_bps"] != float64(1_800_000) || ev["rtt_ms"] != float64(90) || ev["quality"] != "medium" || ev["quality_level"] != float64(5) {
		t.Fatalf("link event %v", ev)
	}
	// /v1/events names the holder.
	if !sse.saw(`"name":"Ana's laptop"`, 3*time.Second) {
		t.Fatalf("/v1/events does not name the holder: %q", sse.lines())
	}
	// A viewer leaving changes the count.
	tab.Close()
	bo.lastState(3*time.Second, func(s map[string]any) bool { return s["viewers"] == float64(2) && s["watching"] == float64(2) })
}

// sseLog follows /v1/events.
type sseLog struct {
	t   testing.TB
	mu  chan struct{}
	got []string
}

func followEvents(t testing.TB, base string) *sseLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/v1/events: %v %v", resp, err)
	}
	s := &sseLog{t: t, mu: make(chan struct{}, 1)}
	s.mu <- struct{}{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			<-s.mu
			s.got = append(s.got, sc.Text())
			s.mu <- struct{}{}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	return s
}

func (s *sseLog) lines() []string {
	<-s.mu
	defer func() { s.mu <- struct{}{} }()
	return append([]string(nil), s.got...)
}

func (s *sseLog) saw(sub string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, l := range s.lines() {
			if strings.Contains(l, sub) {
				return true
			}
		}
	}
	return false
}

// TestTextMessagesNeverReachTheGate: RFB is all binary. A text message on
// a plain RFB stream closes it (1003) before any of it reaches the gate;
// on a page's stream it is a command, answered, and never input: RFB
// input bytes sent as text (while the page holds the keyboard) reach
// nothing. A page message over the limit closes the stream (1009); one
// at the limit is answered.
func TestTextMessagesNeverReachTheGate(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	base := tr.srv.URL

	plain := tr.open(t, "a", "plain", false)
	waitViewers(t, tr, "a", 1, 5*time.Second)
	if err := plain.ws.Write(context.Background(), websocket.MessageText, keyEvent(true, 'x')); err != nil {
		t.Fatal(err)
	}
	waitViewers(t, tr, "a", 0, 5*time.Second)
	if l := tr.logs.String(); !strings.Contains(l, `code=1003 reason="`+reasonTextMessage+`"`) {
		t.Fatalf("the plain stream's text message: log\n%s", l)
	}

	p := dialPage(t, base, "ticket="+mint(t, base, `{"agent":"a","surface":"p"}`)["ticket"])
	waitViewers(t, tr, "a", 1, 5*time.Second)
	if rep := p.command("takeover"); rep["ok"] != true {
		t.Fatalf("take-over %v", rep)
	}
	for _, m := range [][]byte{keyEvent(true, 'x'), keyEvent(false, 'x'), pointer(1, 3, 3), cutText(2, []byte("hi"))} {
		if rep := p.commandRaw(string(m)); rep["error"] != "bad_request" {
			t.Fatalf("input as text: %v", rep)
		}
	}
	gs := tr.GateStats("a")["p"]
	if gs.Messages != 0 || gs.BytesIn != 0 { // the page sent no binary message after the handshake
		t.Fatalf("text reached the gate: %+v", gs)
	}
	// At the limit, answered; one byte more closes the stream.
	atLimit := `{"id":7,"op":"renew"` + strings.Repeat(" ", maxPageMessage-len(`{"id":7,"op":"renew"`)-1) + `}`
	if rep := p.commandRaw(atLimit); rep["ok"] != true || rep["id"] != float64(7) {
		t.Fatalf("a %d-byte command: %v", len(atLimit), rep)
	}
	if err := p.ws.Write(context.Background(), websocket.MessageText, []byte(atLimit+" ")); err != nil {
		t.Fatal(err)
	}
	if ce := p.ended(5 * time.Second); ce == nil || ce.Code != websocket.StatusMessageTooBig || ce.Reason != reasonPageTooBig {
		t.Fatalf("a page message over the limit: closed with %v", ce)
	}
}

// TestPageNotifyNeverBlocks: a page that stops reading never holds up
// glass's notifications: notify returns at once whatever it sends, and
// events past pageQueueMax are dropped and counted. Once the page reads
// again, it gets the latest state.
func TestPageNotifyNeverBlocks(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, time.Second)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}, WriteTimeout: time.Minute})
	p := dialPage(t, tr.srv.URL, "ticket="+mint(t, tr.srv.URL, `{"agent":"a","surface":"p"}`)["ticket"])
	waitViewers(t, tr, "a", 1, 5*time.Second)
	var v *viewer
	tr.mu.Lock()
	for x := range tr.viewers["a"] {
		v = x
	}
	tr.mu.Unlock()
	// The page's read loop is held (it waits for this lock to keep its
	// next event): nothing it is sent is read.
	p.mu.Lock()
	big := strings.Repeat("x", 64<<10)
	start := time.Now()
	for i := 0; i < 2000; i++ { // 128 MB of events: far past any socket buffer
		v.notify(map[string]string{"type": "filler", "pad": big})
	}
	took := time.Since(start)
	v.page.mu.Lock()
	dropped, queued := v.page.dropped, len(v.page.queue)
	v.page.mu.Unlock()
	p.mu.Unlock()
	if dropped == 0 || queued > pageQueueMax {
		t.Fatalf("after 2000 events to a page that does not read: %d dropped, %d queued (at most %d)", dropped, queued, pageQueueMax)
	}
	t.Logf("2000 notifications to a page that does not read took %v; %d dropped", took, dropped)
	n := len(p.all())
	if p.waitAfter(n, 30*time.Second, func(e map[string]any) bool { return e["type"] == "state" }) == nil {
		t.Fatal("the page got no state once it read again")
	}
}
