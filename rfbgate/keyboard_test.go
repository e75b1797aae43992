package rfbgate

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// takeOverNewest gives agent's keyboard to the newest open viewer of
// surface, as a take-over naming no stream does, and fails the test if
// there is none.
func takeOverNewest(t testing.TB, r *Relay, agent, surface string) {
	t.Helper()
	if _, err := r.TakeOver(agent, surface, ""); err != nil {
		t.Fatalf("take-over of %s by %s: %v", agent, surface, err)
	}
}

// postTool calls a control-API tool over HTTP as any client would and
// returns the status and the decoded answer.
func postTool(t testing.TB, baseURL, tool, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(baseURL+"/v1/tools/"+tool, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s: answer is not JSON: %v", tool, err)
	}
	return resp.StatusCode, m
}

// TestTakeOverNamingNoStreamIsOneStream, from the outside (HTTP API, a
// real Xvnc, input observed by xinput): of two streams of one surface, a
// take-over that names no stream gives the keyboard to exactly one, the
// newest open viewer, and the answer and the status say which; the other
// tab's keys do not reach X. A viewer of the same surface opened later
// watches until it takes over; a second take-over naming no stream then
// moves the keyboard to it, and again only one stream types.
func TestTakeOverNamingNoStreamIsOneStream(t *testing.T) {
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	a, _ := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "me")
	b, sb := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "me") // a duplicated tab: same surface

	code, ans := postTool(t, tr.srv.URL, "computers.takeover", `{"agent":"agent1","surface":"me"}`)
	if code != http.StatusOK || ans["stream"] != sb {
		t.Fatalf("take-over naming no stream: %d %v, want 200 naming the newest stream %s", code, ans, sb)
	}
	// Both tabs type; exactly one (b) reaches X.
	a.Send(t, keyEvent(true, 'a'), keyEvent(false, 'a'))
	noEvents(t, xe, "typing from the older tab after a take-over naming no stream")
	b.Send(t, keyEvent(true, 'b'), keyEvent(false, 'b'))
	oneKey(t, xe, "the newest tab typing after a take-over naming no stream")
	st := statusOf(t, tr.srv.URL, "agent1")
	if st.KeyboardStream != sb || holdersIn(st) != sb {
		t.Fatalf("status %+v: want the keyboard marked on stream %s alone", st, sb)
	}

	// A later viewer of the surface watches.
	c, sc := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "me")
	c.Send(t, keyEvent(true, 'c'), keyEvent(false, 'c'))
	noEvents(t, xe, "typing from a viewer of the holding surface opened after the take-over")
	// Until a take-over: naming no stream, it now goes to c, and only c types.
	if code, ans := postTool(t, tr.srv.URL, "computers.takeover", `{"agent":"agent1","surface":"me"}`); code != http.StatusOK || ans["stream"] != sc {
		t.Fatalf("second take-over naming no stream: %d %v, want stream %s", code, ans, sc)
	}
	a.Send(t, keyEvent(true, 'a'), keyEvent(false, 'a'))
	b.Send(t, keyEvent(true, 'b'), keyEvent(false, 'b'))
	noEvents(t, xe, "typing from the two older tabs after the keyboard moved to the newest")
	c.Send(t, keyEvent(true, 'c'), keyEvent(false, 'c'))
	oneKey(t, xe, "the newest tab typing after the keyboard moved to it")
	if st := statusOf(t, tr.srv.URL, "agent1"); st.KeyboardStream != sc || holdersIn(st) != sc {
		t.Fatalf("status %+v: want the keyboard marked on stream %s alone", st, sc)
	}
	// A renewal naming no stream renews the holding stream; b cannot renew it.
	if code, _ := postTool(t, tr.srv.URL, "computers.renew", `{"agent":"agent1","surface":"me"}`); code != http.StatusOK {
		t.Fatalf("renewal naming no stream: %d", code)
	}
	if code, _ := postTool(t, tr.srv.URL, "computers.renew", `{"agent":"agent1","surface":"me","stream":"`+sb+`"}`); code != http.StatusConflict {
		t.Fatalf("renewal by a tab that does not hold it: %d, want 409", code)
	}
}

// oneKey waits for one key press and release in X, and fails if X sees
// anything else (waiting a moment for more).
func oneKey(t *testing.T, xe *xEvents, what string) {
	t.Helper()
	xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 1 })
	time.Sleep(300 * time.Millisecond)
	if ev := xe.take(); count(ev, "KeyPress") != 1 || count(ev, "KeyRelease") != 1 || len(ev) != 2 {
		t.Fatalf("%s: X saw %v, want one key press and release", what, ev)
	}
}

// statusOf reads GET /v1/computers/NAME.
func statusOf(t testing.TB, baseURL, agent string) ComputerStatus {
	t.Helper()
	resp, err := http.Get(baseURL + "/v1/computers/" + agent)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st ComputerStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// holdersIn is the stream of the one viewer the status marks as holding
// the keyboard ("" for none, "several" for more than one).
func holdersIn(st ComputerStatus) string {
	got := ""
	for _, v := range st.Viewers {
		if v.Keyboard {
			if got != "" {
				return "several"
			}
			got = v.Stream
		}
	}
	return got
}

// viewerAt opens a viewer of agent for surface through the handler served
// at baseURL (http://...); it returns the client and its stream id.
func viewerAt(t testing.TB, r *Relay, baseURL, agent, surface string) (*rfbClient, string) {
	t.Helper()
	tk, err := r.Watch(agent, surface)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialRFB(t, "ws"+strings.TrimPrefix(baseURL, "http")+"/v1/streams/computers/glass?ticket="+tk.Token, false)
	if err != nil {
		t.Fatalf("viewer %s: %v", surface, err)
	}
	// The relay counts a viewer a moment after the ServerInit it relays.
	stream := streamID(tk.Token)
	for deadline := time.Now().Add(5 * time.Second); !r.streamOpen(agent, surface, stream); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("viewer %s not counted 5 s after its ServerInit", surface)
		}
	}
	return c, stream
}

// TestKeyboardLivesWithViewer, on a real Xvnc with input observed by
// xinput: a take-over or renewal needs an open viewer; of two streams of
// one surface only the one that took over types; when the holding stream
// closes its held key is released at once and the keyboard is handed back
// after the grace period although renewals keep coming for it; a stream of
// the same surface opened within the grace period (a reload) inherits it.
func TestKeyboardLivesWithViewer(t *testing.T) {
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	// (long enough for a reload's new viewer to open, a fresh Xvnc
	// handshake included, on a loaded host: 600 ms was not, in CI)
	const grace = 2 * time.Second
	tr := newTestRelay(t, Config{
		Computers:  []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		LeaseGrace: grace,
	})
	events, cancel := tr.leases.Subscribe(32)
	defer cancel()
	if _, err := tr.TakeOver("agent1", "tab", ""); !errors.Is(err, ErrNoViewer) {
		t.Fatalf("take-over without a viewer: %v, want ErrNoViewer", err)
	}
	a1, s1 := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "tab")
	a2, s2 := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "tab") // the same surface in a second tab
	if _, err := tr.TakeOver("agent1", "tab", "no-such-stream"); !errors.Is(err, ErrNoViewer) {
		t.Fatalf("take-over for a stream that is not open: %v", err)
	}
	if _, err := tr.TakeOver("agent1", "tab", s1); err != nil {
		t.Fatal(err)
	}
	// Only the stream that took over types.
	a2.Send(t, keyEvent(true, 'b'), keyEvent(false, 'b'))
	noEvents(t, xe, "typing from the other tab of the holding surface")
	if _, err := tr.Renew("agent1", "tab", s2); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("renewal by the other tab: %v, want ErrNotHolder", err)
	}
	st, _ := tr.Status("agent1")
	if st.Keyboard == nil || *st.Keyboard != "tab" || st.KeyboardStream != s1 || st.KeyboardSince == nil || len(st.Viewers) != 2 {
		t.Fatalf("status %+v", st)
	}
	// The holder presses a key and its stream closes with the key down: X
	// sees the release at once; renewals are refused (no viewer), and the
	// keyboard is handed back after the grace period.
	a1.Send(t, keyEvent(true, 'a'))
	xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyPress") == 1 })
	a1.Close()
	closed := time.Now()
	if ev := xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") == 1 }); count(ev, "KeyRelease") != 1 {
		t.Fatalf("the closed holder's key stayed down: X saw %v", ev)
	}
	xe.take()
	renewed := 0
	for tr.leases.holds("agent1", "tab", s1) {
		if _, err := tr.Renew("agent1", "tab", s1); err == nil {
			renewed++
		} else if !errors.Is(err, ErrNoViewer) && !errors.Is(err, ErrNotHolder) {
			t.Fatalf("renewal after the viewer closed: %v", err)
		}
		if time.Since(closed) > 5*time.Second {
			t.Fatal("the keyboard outlived its closed viewer by 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	freed := time.Since(closed)
	if renewed > 1 { // one renewal may cross the close
		t.Fatalf("%d renewals succeeded after the holder's viewer closed", renewed)
	}
	if freed < grace-50*time.Millisecond {
		t.Fatalf("the keyboard was handed back %v after its viewer closed, before the %v grace period", freed, grace)
	}
	t.Logf("keyboard free %v after its viewer closed (grace %v)", freed.Round(time.Millisecond), grace)
	// The other tab of the surface did not inherit it: it is nobody's.
	if h, ok := tr.leases.Holder("agent1"); ok {
		t.Fatalf("after the holder closed, %q holds the keyboard", h)
	}

	// A reload: the holding stream closes and a new one of the surface
	// opens within the grace period; it inherits the keyboard and types.
	if _, err := tr.TakeOver("agent1", "tab", s2); err != nil {
		t.Fatal(err)
	}
	a2.Close()
	a3, s3 := viewerAt(t, tr.Relay, tr.srv.URL, "agent1", "tab")
	time.Sleep(grace + 300*time.Millisecond)
	if h, ok := tr.leases.holding("agent1"); !ok || h.Stream != s3 {
		t.Fatalf("after a reload within the grace period the keyboard is %+v (held %v), want stream %s", h, ok, s3)
	}
	if _, err := tr.Renew("agent1", "tab", s3); err != nil {
		t.Fatalf("renewal by the reloaded stream: %v", err)
	}
	a3.Send(t, keyEvent(true, 'c'), keyEvent(false, 'c'))
	if ev := xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 1 }); count(ev, "KeyPress") != 1 {
		t.Fatalf("the reloaded stream typed, X saw %v", ev)
	}
	a3.Close()

	want := []string{
		"computer.taken-over ", "computer.handed-back viewer-closed",
		"computer.taken-over ", "computer.taken-over reopened", "computer.handed-back viewer-closed",
	}
	var got []string
	for len(got) < len(want) {
		select {
		case ev := <-events:
			got = append(got, ev.Type+" "+ev.Reason)
		case <-time.After(5 * time.Second):
			t.Fatalf("events so far: %q", got)
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// TestLeaseGraceLimit: Config.LeaseGrace at MaxLeaseGrace is taken, past it
// refused; zero takes the default. CheckLeaseGrace, which a program's flag
// goes through, takes the same range without the default.
func TestLeaseGraceLimit(t *testing.T) {
	for _, c := range []struct {
		grace time.Duration
		ok    bool
	}{{MaxLeaseGrace, true}, {1, true}, {MaxLeaseGrace + 1, false}, {0, false}, {-1, false}} {
		if err := CheckLeaseGrace(c.grace); (err == nil) != c.ok {
			t.Fatalf("CheckLeaseGrace(%v): %v", c.grace, err)
		}
	}
	comps := []Computer{{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}
	for _, c := range []struct {
		grace, want time.Duration
		ok          bool
	}{{0, DefaultLeaseGrace, true}, {MaxLeaseGrace, MaxLeaseGrace, true}, {MaxLeaseGrace + 1, 0, false}, {-1, 0, false}} {
		r, err := NewRelay(Config{Computers: comps, LeaseGrace: c.grace})
		if (err == nil) != c.ok {
			t.Fatalf("grace %v: %v", c.grace, err)
		}
		if err == nil {
			if r.cfg.LeaseGrace != c.want {
				t.Fatalf("grace %v became %v", c.grace, r.cfg.LeaseGrace)
			}
			r.Close()
		}
	}
}
