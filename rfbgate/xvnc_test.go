package rfbgate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

const testPassword = "s3cr3t-pw"

// typeA presses and releases "a" in both forms noVNC uses: a plain KeyEvent
// and a QEMU extended key event (XT scancode 30).
func typeA(t *testing.T, c *rfbClient) {
	c.Send(t, keyEvent(true, 'a'), keyEvent(false, 'a'), qemuKey(true, 'a', 30), qemuKey(false, 'a', 30))
}

func noEvents(t *testing.T, x *xEvents, what string) {
	t.Helper()
	time.Sleep(700 * time.Millisecond)
	if ev := x.take(); len(ev) != 0 {
		t.Fatalf("%s: X saw %v", what, ev)
	}
}

// TestXvncEndToEnd: a Go RFB client through the relay to a real Xvnc, with
// input observed in the X display by xinput.
func TestXvncEndToEnd(t *testing.T) {
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{
		Computers:    []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		PingInterval: 200 * time.Millisecond,
	})
	// A second relay to the same Xvnc with a short lease, for expiry.
	short := newTestRelay(t, Config{
		Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		LeaseTTL:  1500 * time.Millisecond,
	})
	cs := short.open(t, "agent1", "laptop", false)
	c := tr.open(t, "agent1", "laptop", false)
	if w, h := int(c.Init[0])<<8|int(c.Init[1]), int(c.Init[2])<<8|int(c.Init[3]); w != 640 || h != 480 {
		t.Fatalf("ServerInit says %dx%d, want 640x480", w, h)
	}
	// A watcher also on the line: it must keep its screen (shared = 1).
	other := tr.open(t, "agent1", "phone", false)
	c.Send(t, setEncodings(16, 0, -258, -316, -312, -313), fbur)
	other.Send(t, setEncodings(0), fbur)

	typeA(t, c)
	c.Send(t, pointer(1, 10, 10), pointer(0, 10, 10))
	noEvents(t, xe, "typing without the keyboard")

	takeOverNewest(t, tr.Relay, "agent1", "laptop")
	typeA(t, c)
	c.Send(t, pointer(1, 10, 10), pointer(0, 10, 10))
	ev := xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 2 && count(e, "ButtonRelease") >= 1 })
	if count(ev, "KeyPress") != 2 || count(ev, "KeyRelease") != 2 || count(ev, "ButtonPress") != 1 {
		t.Fatalf("after take-over X saw %v, want 2 key presses and releases and a click", ev)
	}
	xe.take()
	// The other viewer still cannot type.
	other.Send(t, keyEvent(true, 'b'), keyEvent(false, 'b'))
	noEvents(t, xe, "typing from a viewer that does not hold the keyboard")

	if err := tr.leases.GiveBack("agent1", "laptop"); err != nil {
		t.Fatal(err)
	}
	typeA(t, c)
	noEvents(t, xe, "typing after give-back")

	// Lease loss in the middle of a key press: the gate lets go of the key
	// and the button; nothing stays down.
	for _, how := range []string{"giveback", "expiry", "moved"} {
		t.Run("loss-by-"+how, func(t *testing.T) {
			r, c := tr, c
			if how == "expiry" {
				r, c = short, cs
			}
			takeOverNewest(t, r.Relay, "agent1", "laptop")
			c.Send(t, qemuKey(true, 'a', 30), keyEvent(true, 0xffe1 /* Shift_L */), pointer(1, 20, 20))
			ev := xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyPress") >= 2 && count(e, "ButtonPress") >= 1 })
			if count(ev, "KeyPress") != 2 || count(ev, "ButtonPress") != 1 {
				t.Fatalf("press while holding: X saw %v", ev)
			}
			switch how {
			case "giveback":
				r.leases.GiveBack("agent1", "laptop")
			case "expiry": // 1.5 s lease, not renewed
			case "moved":
				takeOverNewest(t, r.Relay, "agent1", "phone")
			}
			ev = xe.waitFor(4*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 2 && count(e, "ButtonRelease") >= 1 })
			if count(ev, "KeyRelease") != 2 || count(ev, "ButtonRelease") != 1 {
				t.Fatalf("lease lost by %s with keys down: X saw %v, want both keys and the button released", how, ev)
			}
			if _, held := r.leases.Holder("agent1"); held != (how == "moved") {
				t.Fatalf("after loss by %s: holder %v", how, held)
			}
			// The browser's own late key-up is now a watcher's input: dropped.
			xe.take()
			c.Send(t, qemuKey(false, 'a', 30), keyEvent(false, 0xffe1), pointer(0, 20, 20))
			noEvents(t, xe, "late key-up after the loss")
			if how == "moved" {
				r.leases.GiveBack("agent1", "phone")
			}
		})
	}

	// A viewer that closes with keys down: they are released.
	t.Run("loss-by-close", func(t *testing.T) {
		third := tr.open(t, "agent1", "tablet", false)
		takeOverNewest(t, tr.Relay, "agent1", "tablet")
		third.Send(t, qemuKey(true, 'a', 30), pointer(4, 30, 30))
		ev := xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyPress") >= 1 && count(e, "ButtonPress") >= 1 })
		if count(ev, "KeyPress") != 1 || count(ev, "ButtonPress") != 1 {
			t.Fatalf("press: X saw %v", ev)
		}
		third.Close()
		ev = xe.waitFor(3*time.Second, func(e []xEvent) bool { return count(e, "KeyRelease") >= 1 && count(e, "ButtonRelease") >= 1 })
		if count(ev, "KeyRelease") != 1 || count(ev, "ButtonRelease") != 1 {
			t.Fatalf("closed with keys down: X saw %v", ev)
		}
		xe.take()
		tr.leases.GiveBack("agent1", "tablet")
		deadline := time.Now().Add(3 * time.Second)
		for tr.Viewers("agent1") != 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	})

	st, err := tr.Status("agent1")
	if err != nil || len(st.Viewers) != 2 || st.Keyboard != nil {
		t.Fatalf("status %+v %v", st, err)
	}
	for _, v := range st.Viewers {
		if v.RTTms < 0 {
			t.Fatalf("viewer %s has no round-trip time after pings: %+v", v.Surface, st)
		}
	}
	if c.Received() == 0 || other.Received() == 0 {
		t.Fatalf("no framebuffer bytes: %d, %d", c.Received(), other.Received())
	}
	if strings.Contains(tr.logs.String(), testPassword) {
		t.Fatal("the VNC password appears in the relay's log")
	}
}

// TestXvncBadInputClosesViewer: xvp from a browser closes that viewer only.
func TestXvncBadInputClosesViewer(t *testing.T) {
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	bad := tr.open(t, "a", "s1", false)
	good := tr.open(t, "a", "s2", false)
	bad.Send(t, []byte{rfb.MsgXvp, 0, 1, 2})
	select {
	case <-bad.done:
	case <-time.After(5 * time.Second):
		t.Fatal("viewer that sent xvp is still open")
	}
	good.Send(t, fbur)
	deadline := time.Now().Add(3 * time.Second)
	for good.Received() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if good.Received() == 0 || tr.Viewers("a") != 1 {
		t.Fatalf("the other viewer: %d bytes, %d viewers open", good.Received(), tr.Viewers("a"))
	}
	if !strings.Contains(tr.logs.String(), "xvp") {
		t.Fatalf("the log does not say why the viewer closed: %s", tr.logs.String())
	}
}

// TestXvncWrongPassword: the handshake error gives Xvnc's reason and never
// the password; the browser gets no RFB byte from the server.
func TestXvncWrongPassword(t *testing.T) {
	xv := startXvnc(t, testPassword)
	conn, err := net.DialTimeout("tcp", xv.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	wrong := "wrong-" + testPassword
	_, err = ClientHandshake(conn, NewSecret(wrong))
	if !errors.Is(err, ErrAuthFailed) || !errors.Is(err, ErrHandshake) {
		t.Fatalf("wrong password: %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, wrong) || strings.Contains(msg, testPassword) || !strings.Contains(msg, "SecurityResult") {
		t.Fatalf("error %q must name the step and not the password", msg)
	}
	t.Logf("Xvnc refused with: %v", err)

	// The right password, to the same server: ServerInit arrives.
	conn2, err := net.DialTimeout("tcp", xv.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	conn2.SetDeadline(time.Now().Add(10 * time.Second))
	init, err := ClientHandshake(conn2, NewSecret(testPassword))
	if err != nil || init.Width != 640 || init.Height != 480 {
		t.Fatalf("right password: %+v %v", init, err)
	}
}

// TestSecretNeverPrinted: every way a password could be printed redacts it,
// and the API results do not carry it.
func TestSecretNeverPrinted(t *testing.T) {
	c := Computer{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}
	b, _ := json.Marshal(c)
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q %x", c, c, c, c.Password, c.Password, c.Password), string(b)} {
		if strings.Contains(s, testPassword) || strings.Contains(s, fmt.Sprintf("%x", testPassword)) {
			t.Fatalf("password printed: %s", s)
		}
	}
	tr := newTestRelay(t, Config{Computers: []Computer{c}})
	for _, path := range []string{"/v1/computers/a"} {
		resp, err := http.Get(tr.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		body.Write(buf[:n])
		resp.Body.Close()
		if strings.Contains(body.String(), testPassword) || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body.String())
		}
	}
	// A viewer whose server is unreachable: the log says so without the password.
	tk, _ := tr.Watch("a", "s")
	if _, err := dialRFB(t, tr.wsURL(tk.Token, ""), false); err == nil {
		t.Fatal("a viewer opened to an unreachable server")
	}
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(tr.logs.String(), "cannot reach") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if l := tr.logs.String(); strings.Contains(l, testPassword) || !strings.Contains(l, "cannot reach") {
		t.Fatalf("log: %s", l)
	}
}

// TestXvncWrongPasswordBacksOff: a relay with the wrong password tries Xvnc
// once, then stops dialling (Xvnc blacklists an address after five failures),
// and the password is in no log line.
func TestXvncWrongPasswordBacksOff(t *testing.T) {
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret("not-" + testPassword)}}})
	for i := 0; i < 7; i++ {
		tk, _ := tr.Watch("a", "s")
		if _, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false); err == nil {
			t.Fatal("a viewer opened with the wrong password")
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for strings.Count(tr.logs.String(), "backing off")+strings.Count(tr.logs.String(), "refused the password recently") < 6 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	l := tr.logs.String()
	if n := strings.Count(l, "VNC handshake failed"); n != 1 {
		t.Fatalf("dialled Xvnc %d times with a refused password, want 1:\n%s", n, l)
	}
	if !strings.Contains(l, "Authentication failure") || strings.Contains(l, testPassword) {
		t.Fatalf("log must give Xvnc's reason and no password:\n%s", l)
	}
	// The right password still works from this address: not blacklisted.
	good := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	good.open(t, "a", "s", false)
}
