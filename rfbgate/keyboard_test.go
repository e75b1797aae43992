package rfbgate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

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
	const grace = 600 * time.Millisecond
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
