package rfbgate

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestResumeCredentials: a resume credential is good while its stream is
// open, however long, and for the window after it closed (at the limit
// too), never past it; it opens what its stream had, once; a second use
// is "reused"; another computer's is refused.
func TestResumeCredentials(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := newResumes(time.Minute, clock)
	g := Grant{Surface: "crowd", Access: AccessWatch, Name: "Bo"}

	open, _ := s.issue("a", g, "stream-1")
	advance(24 * time.Hour) // its stream is still open
	agent, got, err := s.redeem(open, "a")
	if err != nil || agent != "a" || got != g {
		t.Fatalf("a credential of an open stream, a day on: %q %+v %v", agent, got, err)
	}
	if _, _, err := s.redeem(open, "a"); !errors.Is(err, ErrTicketReused) {
		t.Fatalf("used twice: %v", err)
	}

	atLimit, _ := s.issue("a", g, "stream-2")
	pastLimit, _ := s.issue("a", g, "stream-3")
	wrong, _ := s.issue("a", g, "stream-4")
	s.closed("stream-2")
	s.closed("stream-3")
	advance(time.Minute) // at the window's end
	if _, got, err := s.redeem(atLimit, ""); err != nil || got != g {
		t.Fatalf("at the window's end: %+v %v", got, err)
	}
	advance(time.Nanosecond)
	if _, _, err := s.redeem(pastLimit, "a"); !errors.Is(err, ErrTicketExpired) {
		t.Fatalf("past the window: %v", err)
	}
	if _, _, err := s.redeem(wrong, "b"); !errors.Is(err, ErrTicketWrongAgent) {
		t.Fatalf("another computer's: %v", err)
	}
	if _, _, err := s.redeem("never-issued", "a"); !errors.Is(err, ErrTicketUnknown) {
		t.Fatalf("unknown: %v", err)
	}
	// Closed and expired credentials are swept.
	for i := range 127 {
		s.issue("a", g, fmt.Sprint("sweep-", i))
		s.closed(fmt.Sprint("sweep-", i))
	}
	advance(2 * time.Minute)
	for range 64 { // one in 64 closes sweeps
		s.closed("none")
	}
	s.mu.Lock()
	left := len(s.m)
	s.mu.Unlock()
	if left > 1 {
		t.Fatalf("%d credentials kept past their window", left)
	}
}

// TestResumeFromTheOutside: a page opened from a one-use ticket link
// reconnects without the admin token, with the resume credential its
// stream's hello gave it, keeping its surface, access and name; the
// ticket itself never opens a second stream; a credential copied and used
// elsewhere leaves the page's own copy refused as reused (a theft shows);
// each refusal is counted by kind and reason and logged with the client's
// address. A plain RFB stream gets no credential and no events.
func TestResumeFromTheOutside(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{
		{Name: "a", Addr: addr, Password: NewSecret(testPassword)},
		{Name: "b", Addr: addr, Password: NewSecret(testPassword)},
	}})
	base := tr.srv.URL
	m := mint(t, base, `{"agent":"a","surface":"phone","name":"Ana's phone"}`)
	p := dialPage(t, base, "ticket="+m["ticket"])
	if _, err := tryPage(base, "ticket="+m["ticket"]); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("the ticket a second time: %v", err)
	}
	r1 := p.Hello["resume"].(string)
	p.Close()
	p2 := dialPage(t, base, "resume="+r1+"&agent=a")
	if p2.Hello["name"] != "Ana's phone" || p2.Hello["surface"] != "phone" || p2.Hello["access"] != "control" || p2.Hello["stream"] == p.Hello["stream"] {
		t.Fatalf("resumed hello %v (first %v)", p2.Hello, p.Hello)
	}
	waitViewers(t, tr, "a", 1, 5*time.Second)
	if rep := p2.command("takeover"); rep["ok"] != true {
		t.Fatalf("a resumed control page's take-over: %v", rep)
	}
	// Someone copies the page's credential and uses it first.
	r2 := p2.Hello["resume"].(string)
	thief := dialPage(t, base, "resume="+r2)
	thief.Close()
	p2.Close()
	if _, err := tryPage(base, "resume="+r2); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a used credential: %v", err)
	}
	// Another computer's stream is not opened with it.
	r3 := thief.Hello["resume"].(string)
	if _, err := tryPage(base, "resume="+r3+"&agent=b"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a credential for another computer: %v", err)
	}
	if _, err := tryPage(base, "resume=nonsense"); err == nil {
		t.Fatal("an unknown credential opened a stream")
	}
	sc := scrape(t, tr.Relay)
	sc.want(t, 1, "glass_ticket_refusals_total", "kind", "ticket", "reason", "reused")
	sc.want(t, 1, "glass_ticket_refusals_total", "kind", "resume", "reason", "reused")
	sc.want(t, 1, "glass_ticket_refusals_total", "kind", "resume", "reason", "wrong_agent")
	sc.want(t, 1, "glass_ticket_refusals_total", "kind", "resume", "reason", "unknown")
	l := tr.logs.String()
	if !strings.Contains(l, `level=INFO msg="rfbgate: stream refused: ticket already used: a ticket opens one viewer, once" kind=resume reason=reused remote=127.0.0.1:`) {
		t.Fatalf("the refusal is not logged with the client's address:\n%s", l)
	}
	for _, secret := range []string{m["ticket"], r1, r2, r3} {
		if strings.Contains(l, secret) {
			t.Fatalf("the log holds a ticket or credential:\n%s", l)
		}
	}
	// Plain RFB: no text message at all.
	c := tr.open(t, "a", "plain", true)
	time.Sleep(300 * time.Millisecond)
	c.mu.Lock()
	got := c.got.Bytes()
	c.mu.Unlock()
	if strings.Contains(string(got), `"type":`) {
		t.Fatal("a plain RFB stream got glass's events")
	}
}

// TestNamesChecked: a display name is text of at most MaxNameRunes
// characters (at the limit: fine; past it: refused), with no control or
// format character (line breaks, bidirectional overrides, zero-width
// joiners); markup is text, kept as it is and escaped where shown. An
// access other than watch or control is refused.
func TestNamesChecked(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	ok := strings.Repeat("é", MaxNameRunes)
	if m := mint(t, tr.srv.URL, `{"agent":"a","surface":"s","name":"`+ok+`"}`); m["name"] != ok {
		t.Fatalf("a %d-character name: %v", MaxNameRunes, m)
	}
	if m := mint(t, tr.srv.URL, `{"agent":"a","surface":"s","name":"<img src=x onerror=alert(1)>"}`); m["name"] != "<img src=x onerror=alert(1)>" {
		t.Fatalf("markup in a name: %v", m)
	}
	for _, c := range []struct{ body, want string }{
		{`{"agent":"a","surface":"s","name":"` + ok + `é"}`, "at most 64"},
		{`{"agent":"a","surface":"s","name":"a\nb"}`, "U+000A"},
		{`{"agent":"a","surface":"s","name":"evil\u202etxt.exe"}`, "U+202E"},
		{`{"agent":"a","surface":"s","name":"a\u200db"}`, "U+200D"},
		{`{"agent":"a","surface":"s","access":"admin"}`, `access "admin"`},
		{`{"agent":"a","surface":"s","role":"watch"}`, "unknown field"},
	} {
		code, ans := postTool(t, tr.srv.URL, "computers.watch", c.body)
		if code != 400 || ans["error"] != "bad_request" || !strings.Contains(ans["message"].(string), c.want) {
			t.Errorf("%s: %d %v, want 400 saying %q", c.body, code, ans, c.want)
		}
	}
	if _, err := tr.Issue("a", Grant{Surface: "s", Name: "x\x00"}); err == nil {
		t.Fatal("Issue took a NUL in a name")
	}
}
