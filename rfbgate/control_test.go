package rfbgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestTicketsOneUseExpiryAgent(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tk := newTickets(30*time.Second, clock)
	a, err := tk.Issue("agent1", Grant{Surface: "laptop"})
	if err != nil || len(a.Token) != 32 || !a.ExpiresAt.Equal(now.Add(30*time.Second)) {
		t.Fatalf("issue: %+v %v", a, err)
	}
	b, _ := tk.Issue("agent1", Grant{Surface: "laptop"})
	if a.Token == b.Token {
		t.Fatal("two tickets alike")
	}
	if got, err := tk.Redeem(a.Token, "agent1"); err != nil || got.Surface != "laptop" || got.Access != AccessControl || got.Name != "" {
		t.Fatalf("redeem: %+v %v, want laptop, control access (minted with none) and no name", got, err)
	}
	if _, err := tk.Redeem(a.Token, "agent1"); !errors.Is(err, ErrTicketReused) {
		t.Fatalf("reuse: %v", err)
	}
	if _, err := tk.Redeem("never-issued", "agent1"); !errors.Is(err, ErrTicketUnknown) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := tk.Redeem(b.Token, "agent2"); !errors.Is(err, ErrTicketWrongAgent) {
		t.Fatalf("wrong agent: %v", err)
	}
	if _, err := tk.Redeem(b.Token, "agent1"); !errors.Is(err, ErrTicketReused) {
		t.Fatalf("a refused ticket must be used up: %v", err)
	}
	c, _ := tk.Issue("agent1", Grant{Surface: "laptop"})
	mu.Lock()
	now = now.Add(30 * time.Second) // at the limit: still good
	mu.Unlock()
	d, _ := tk.Issue("agent1", Grant{Surface: "laptop"})
	if _, err := tk.Redeem(c.Token, ""); err != nil {
		t.Fatalf("at 30 s: %v", err)
	}
	mu.Lock()
	now = now.Add(30*time.Second + time.Nanosecond) // past it
	mu.Unlock()
	if _, err := tk.Redeem(d.Token, ""); !errors.Is(err, ErrTicketExpired) {
		t.Fatalf("past 30 s: %v", err)
	}
	// Expired tickets that nobody presents are swept.
	for i := 0; i < 10; i++ {
		tk.Issue("x", Grant{Surface: "y"})
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	for i := 0; i < 256; i++ {
		tk.Issue("x", Grant{Surface: "y"}) // one of these is a 256th issue, which sweeps
	}
	if n := tk.Outstanding(); n != 256 {
		t.Fatalf("%d outstanding after a sweep, want 256", n)
	}
}

func TestLeases(t *testing.T) {
	var changes []string
	var mu sync.Mutex
	l := newLeases(600*time.Millisecond, func(a string) { mu.Lock(); changes = append(changes, a); mu.Unlock() })
	ch, cancel := l.Subscribe(16)
	defer cancel()
	if err := l.CheckAgentInput("a"); err != nil {
		t.Fatalf("no holder: %v", err)
	}
	l.TakeOver("a", "laptop", "laptop-1")
	var held *KeyboardHeldError
	if err := l.CheckAgentInput("a"); !errors.As(err, &held) || held.Surface != "laptop" {
		t.Fatalf("agent input while held: %v", err)
	}
	if _, err := l.Renew("a", "phone"); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("renew by a non-holder: %v", err)
	}
	if err := l.GiveBack("a", "phone"); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("giveback by a non-holder: %v", err)
	}
	l.TakeOver("a", "phone", "phone-1") // moves it
	for i := 0; i < 4; i++ {            // renewals keep it past its TTL
		time.Sleep(200 * time.Millisecond)
		if _, err := l.Renew("a", "phone"); err != nil {
			t.Fatalf("renew %d: %v", i, err)
		}
	}
	if s, ok := l.Holder("a"); !ok || s != "phone" {
		t.Fatalf("holder %q %v", s, ok)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, ok := l.Holder("a"); ok; _, ok = l.Holder("a") {
		if time.Now().After(deadline) {
			t.Fatal("lease did not expire")
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.TakeOver("a", "laptop", "laptop-1")
	if err := l.GiveBack("a", "laptop"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"computer.taken-over a laptop ",
		"computer.handed-back a laptop moved",
		"computer.taken-over a phone ",
		"computer.handed-back a phone expired",
		"computer.taken-over a laptop ",
		"computer.handed-back a laptop giveback",
	}
	for i, w := range want {
		select {
		case ev := <-ch:
			if got := ev.Type + " " + ev.Agent + " " + ev.Surface + " " + ev.Reason; got != w {
				t.Fatalf("event %d: %q, want %q", i, got, w)
			}
		case <-time.After(time.Second):
			t.Fatalf("event %d missing", i)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changes) != 5 {
		t.Fatalf("onChange ran %d times, want 5: %v", len(changes), changes)
	}
}

// TestLeaseSubscriberNeverBlocks: a subscriber that falls behind is never
// waited for; it keeps the events it holds and then finds its channel
// closed (at the limit: a full buffer and no more events stays open).
func TestLeaseSubscriberNeverBlocks(t *testing.T) {
	l := newLeases(time.Minute, nil)
	ch, cancel := l.Subscribe(2)
	defer cancel()
	l.TakeOver("a", "s", "s-1")
	l.GiveBack("a", "s") // the buffer is full: at the limit
	if l.Dropped() != 0 {
		t.Fatalf("a full buffer dropped %d", l.Dropped())
	}
	for i := 0; i < 5; i++ { // past it: never blocks
		l.TakeOver("a", "s", "s-1")
		l.GiveBack("a", "s")
	}
	if l.Dropped() != 1 {
		t.Fatalf("dropped %d subscriptions, want 1", l.Dropped())
	}
	var got []string
	for ev := range ch {
		got = append(got, ev.Type)
	}
	if len(got) != 2 || got[0] != eventTakenOver || got[1] != eventHandedBack {
		t.Fatalf("a lagging subscriber got %v, then its channel must close", got)
	}
	cancel() // after the close: no double close
}

// fakeServer scripts the server side of an RFB handshake.
func fakeServer(t *testing.T, script func(c net.Conn)) net.Conn {
	a, b := net.Pipe()
	go func() { defer b.Close(); script(b) }()
	a.SetDeadline(time.Now().Add(5 * time.Second))
	t.Cleanup(func() { a.Close() })
	return a
}

// serverInit is a ServerInit for a 640x480 desktop in 32-bit true colour
// (Xvnc's format; a relayed viewer's serverFilter needs a framable one).
func serverInit(name string) []byte {
	b := []byte{2, 128, 1, 224, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	return append(b, name...)
}

func TestPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := writeFile(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := ReadPasswordFile(write("ok", testPassword+"\r\nsecond line\n"))
	if err != nil || string(s.b) != testPassword {
		t.Fatalf("read: %v", err)
	}
	for _, c := range []struct{ name, content, want string }{
		{"empty", "\n", "empty first line"},
		{"big", strings.Repeat("x", maxPasswordFile+1), "longer than 4096"},
	} {
		_, err := ReadPasswordFile(write(c.name, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if _, err := ReadPasswordFile(dir + "/missing"); err == nil || strings.Contains(err.Error(), testPassword) {
		t.Fatalf("missing: %v", err)
	}
	// At the limit.
	if _, err := ReadPasswordFile(write("limit", strings.Repeat("x", maxPasswordFile))); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}

// TestHTTPAPI drives the control API: the JSON shapes, errors, the admin
// token, lease events over SSE, and ticket refusals as 403 with no RFB byte.
func TestHTTPAPI(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	r, err := NewRelay(Config{PerViewerUpstream: true, Computers: []Computer{{Name: "agent1", Addr: addr, Password: NewSecret(testPassword)}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := httptest.NewServer(NewHandler(r, HandlerOptions{AdminToken: "tok"}))
	defer srv.Close()
	call := func(method, path, body, token string) (int, map[string]any) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if bytes.Contains(raw, []byte(testPassword)) {
			t.Fatalf("%s %s: the password is in the answer", method, path)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: not JSON: %q", method, path, raw)
		}
		return resp.StatusCode, m
	}
	body := `{"agent":"agent1","surface":"laptop"}`
	if code, m := call("POST", "/v1/tools/computers.watch", body, ""); code != 401 || m["error"] != "unauthorized" {
		t.Fatalf("no token: %d %v", code, m)
	}
	if code, m := call("POST", "/v1/tools/computers.watch", body, "wrong"); code != 401 || m["error"] != "unauthorized" {
		t.Fatalf("wrong token: %d %v", code, m)
	}
	code, m := call("POST", "/v1/tools/computers.watch", body, "tok")
	ticket, _ := m["ticket"].(string)
	if exp, err := time.Parse(time.RFC3339, m["expires_at"].(string)); code != 200 || len(ticket) != 32 || err != nil || time.Until(exp) > 31*time.Second {
		t.Fatalf("watch: %d %v", code, m)
	}
	for _, c := range []struct {
		path, body string
		code       int
		err        string
	}{
		{"/v1/tools/computers.watch", `{"agent":"nope","surface":"s"}`, 404, "unknown_computer"},
		{"/v1/tools/computers.watch", `{"agent":"agent1"}`, 400, "bad_request"},
		{"/v1/tools/computers.watch", `{"agent":"agent1","surface":"s","x":1}`, 400, "bad_request"},
		{"/v1/tools/computers.watch", `not json`, 400, "bad_request"},
		{"/v1/tools/computers.watch", `{"agent":"agent1","surface":"` + strings.Repeat("s", 129) + `"}`, 400, "bad_request"},
		{"/v1/tools/computers.renew", body, 409, "not_holder"},
		{"/v1/tools/computers.giveback", body, 409, "not_holder"},
		{"/v1/tools/computers.nothing", body, 404, "not_found"},
	} {
		if code, m := call("POST", c.path, c.body, "tok"); code != c.code || m["error"] != c.err || m["message"] == "" {
			t.Errorf("%s %s: %d %v, want %d %s", c.path, c.body, code, m, c.code, c.err)
		}
	}
	// At the surface length limit: fine.
	if code, _ := call("POST", "/v1/tools/computers.watch", `{"agent":"agent1","surface":"`+strings.Repeat("s", 128)+`"}`, "tok"); code != 200 {
		t.Fatalf("128-character surface: %d", code)
	}

	// Lease events over SSE.
	req, _ := http.NewRequest("GET", srv.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %v %v", resp, err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	<-lines // the opening comment
	// No open viewer of the surface: no keyboard.
	if code, m := call("POST", "/v1/tools/computers.takeover", body, "tok"); code != 409 || m["error"] != "no_viewer" {
		t.Fatalf("takeover without a viewer: %d %v", code, m)
	}
	viewerAt(t, r, srv.URL, "agent1", "laptop")
	if code, m := call("POST", "/v1/tools/computers.takeover", body, "tok"); code != 200 || m["expires_at"] == nil {
		t.Fatalf("takeover: %d %v", code, m)
	}
	if code, m := call("GET", "/v1/computers/agent1", "", "tok"); code != 200 || m["keyboard"] != "laptop" {
		t.Fatalf("status: %d %v", code, m)
	}
	if code, _ := call("POST", "/v1/tools/computers.renew", body, "tok"); code != 200 {
		t.Fatalf("renew: %d", code)
	}
	if code, _ := call("POST", "/v1/tools/computers.giveback", body, "tok"); code != 200 {
		t.Fatalf("giveback: %d", code)
	}
	if code, m := call("GET", "/v1/computers/agent1", "", "tok"); code != 200 || m["keyboard"] != nil || m["viewers"] == nil {
		t.Fatalf("status after giveback: %d %v", code, m)
	}
	if code, m := call("GET", "/v1/computers/nope", "", "tok"); code != 404 || m["error"] != "unknown_computer" {
		t.Fatalf("status of unknown: %d %v", code, m)
	}
	var got []string
	timeout := time.After(3 * time.Second)
	for len(got) < 4 {
		select {
		case l := <-lines:
			if l != "" {
				got = append(got, l)
			}
		case <-timeout:
			t.Fatalf("events so far: %q", got)
		}
	}
	if got[0] != "event: computer.taken-over" || !strings.Contains(got[1], `"surface":"laptop"`) || got[2] != "event: computer.handed-back" || !strings.Contains(got[3], `"reason":"giveback"`) {
		t.Fatalf("events: %q", got)
	}

	// tickets at the upgrade: used, expired, unknown and wrong agent give 403
	// (a JSON error, no RFB byte) and the ticket does not open anything.
	tk, _ := r.Watch("agent1", "laptop")
	for i, c := range []struct{ q, err string }{
		{"ticket=" + tk.Token + "&agent=other", "ticket_wrong_agent"},
		{"ticket=" + tk.Token + "&agent=agent1", "ticket_reused"}, // used by the refusal above
		{"ticket=nonsense", "ticket_invalid"},
		{"", "ticket_invalid"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/streams/computers/glass?"+c.q, nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || bytes.Contains(raw, []byte("RFB")) || !bytes.Contains(raw, []byte(c.err)) {
			t.Fatalf("case %d: %d %q", i, resp.StatusCode, raw)
		}
	}
}

func TestTicketExpiredAtUpgrade(t *testing.T) {
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	var mu sync.Mutex
	now := time.Now()
	tr.tickets = newTickets(30*time.Second, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	tk, _ := tr.Watch("a", "s")
	mu.Lock()
	now = now.Add(30*time.Second + time.Millisecond)
	mu.Unlock()
	_, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("expired ticket: %v", err)
	}
	// A fresh one works, once.
	tk, _ = tr.Watch("a", "s")
	if _, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false); err != nil {
		t.Fatalf("fresh ticket: %v", err)
	}
	if _, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("reused ticket: %v", err)
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o600) }

// TestOriginPolicy: a cross-origin upgrade is refused (403 from
// coder/websocket, not a ticket error) unless OriginPatterns allows it.
func TestOriginPolicy(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	for _, c := range []struct {
		patterns []string
		ok       bool
	}{{nil, false}, {[]string{"deck.example"}, true}, {[]string{"other.example"}, false}} {
		tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}, OriginPatterns: c.patterns})
		tk, _ := tr.Watch("a", "s")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, resp, err := websocket.Dial(ctx, tr.wsURL(tk.Token, "a"), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://deck.example"}}})
		cancel()
		if c.ok {
			if err != nil {
				t.Fatalf("patterns %v: %v", c.patterns, err)
			}
			ws.Close(websocket.StatusNormalClosure, "")
			continue
		}
		if err == nil || resp == nil || resp.StatusCode != 403 {
			t.Fatalf("patterns %v: cross-origin upgrade not refused: %v", c.patterns, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if bytes.Contains(body, []byte("ticket_")) || bytes.Contains(body, []byte("RFB")) {
			t.Fatalf("origin refusal looks like a ticket refusal or carries RFB: %q", body)
		}
	}
}

// TestVNCPasswdKnownAnswer checks the bit-reversed-key DES against TigerVNC's
// own vncpasswd: the same DES with VNC's fixed key must give its bytes.
func TestVNCPasswdKnownAnswer(t *testing.T) {
	bin := needPeer(t, "vncpasswd")
	for _, pw := range []string{testPassword, "12345678", "a", "longer-than-eight"} {
		cmd := exec.Command(bin, "-f")
		cmd.Stdin = strings.NewReader(pw + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vncpasswd -f: %v", err)
		}
		if got := vncPasswdFile(pw); !bytes.Equal(got, out) {
			t.Fatalf("%q: ours %x, vncpasswd %x", pw, got, out)
		}
	}
}

func TestTicketsLimit(t *testing.T) {
	tk := newTickets(time.Minute, nil)
	for i := 0; i < maxTickets; i++ {
		if _, err := tk.Issue("a", Grant{Surface: "s"}); err != nil {
			t.Fatalf("ticket %d: %v", i, err)
		}
	}
	if _, err := tk.Issue("a", Grant{Surface: "s"}); !errors.Is(err, ErrTooManyTickets) {
		t.Fatalf("past the limit: %v", err)
	}
}

// TestClientMessageLimit: one WebSocket message of maxClientMessage bytes
// passes; one byte more closes the viewer with 1009.
func TestClientMessageLimit(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	msg := func(n int) []byte { // FramebufferUpdateRequests, then a cut text to fill
		var b []byte
		for len(b)+10 <= n-8 {
			b = append(b, fbur...)
		}
		return append(b, cutText(int32(n-len(b)-8), make([]byte, n-len(b)-8))...)
	}
	for _, c := range []struct {
		n  int
		ok bool
	}{{maxClientMessage, true}, {maxClientMessage + 1, false}} {
		tk, _ := tr.Watch("a", "s")
		v, err := dialRFBRaw(tr.wsURL(tk.Token, "a"))
		if err != nil {
			t.Fatal(err)
		}
		b := msg(c.n)
		if len(b) != c.n {
			t.Fatalf("built %d bytes, want %d", len(b), c.n)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = v.ws.Write(ctx, websocket.MessageBinary, b)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		// Read until the relay closes, or for 1.5 s of it streaming on.
		errc := make(chan error, 1)
		go func() {
			buf := make([]byte, 64<<10)
			for {
				if _, err := v.conn.Read(buf); err != nil {
					errc <- err
					return
				}
			}
		}()
		var rerr error
		wait := 1500 * time.Millisecond
		if !c.ok {
			wait = 10 * time.Second
		}
		select {
		case rerr = <-errc:
		case <-time.After(wait):
		}
		status := websocket.CloseStatus(rerr)
		if c.ok && rerr != nil {
			t.Fatalf("%d bytes: viewer closed: %v", c.n, rerr)
		}
		if !c.ok && status != websocket.StatusMessageTooBig {
			t.Fatalf("%d bytes: want close 1009, got %v (status %d)", c.n, rerr, status)
		}
		if !c.ok { // the log carries the code and reason the browser got
			var ce websocket.CloseError
			errors.As(rerr, &ce)
			want := fmt.Sprintf(`by=relay code=1009 reason="%s"`, ce.Reason)
			waitFor(t, func() bool { return strings.Contains(tr.logs.String(), want) })
			if ce.Reason != reasonTooBig {
				t.Fatalf("1009 reason %q, want %q", ce.Reason, reasonTooBig)
			}
		}
		v.close()
	}
}

// TestViewersCounted: open viewers are counted, and OnViewers hears every
// change (open viewers keep the computer checked out).
func TestViewersCounted(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	var mu sync.Mutex
	var heard []int
	tr := newTestRelay(t, Config{PerViewerUpstream: true,
		Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}},
		OnViewers: func(agent string, n int) { mu.Lock(); heard = append(heard, n); mu.Unlock() },
	})
	v1 := tr.open(t, "a", "s1", false)
	tr.open(t, "a", "s2", false)
	// The relay may count a viewer a moment after its handshake ends.
	for deadline := time.Now().Add(5 * time.Second); tr.Viewers("a") != 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := tr.Viewers("a"); n != 2 {
		t.Fatalf("%d viewers open, want 2", n)
	}
	v1.Close()
	deadline := time.Now().Add(3 * time.Second)
	for tr.Viewers("a") != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if tr.Viewers("a") != 1 || len(heard) != 3 || heard[0] != 1 || heard[1] != 2 || heard[2] != 1 {
		t.Fatalf("viewers %d, OnViewers heard %v, want [1 2 1]", tr.Viewers("a"), heard)
	}
}
