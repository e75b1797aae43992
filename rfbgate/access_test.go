package rfbgate

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

// setDesktopSize is a SetDesktopSize message for one screen of w×h.
func setDesktopSize(w, h uint16) []byte {
	return []byte{rfb.MsgSetDesktopSize, 0, byte(w >> 8), byte(w), byte(h >> 8), byte(h), 1, 0,
		0, 0, 0, 0, 0, 0, 0, 0, byte(w >> 8), byte(w), byte(h >> 8), byte(h), 0, 0, 0, 0}
}

// TestWatchOnlyCannotType, from the outside (the control API over HTTP, a
// real Xvnc, input and the clipboard observed in its X display with
// xinput and xclip): a viewer opened with a watch-only ticket can take
// over neither on its own stream nor through the API (naming its stream,
// or its surface), and nothing it sends reaches X: keys (KeyEvent and
// QEMU extended key events), pointer presses and moves, clipboard text,
// a desktop resize, and RFB bytes smuggled in text messages. Even with
// the lease table forced to name it, its gate stays shut. A page
// reconnecting with its resume credential is watch-only still. A control
// viewer of the same computer types, the check that the rig works.
func TestWatchOnlyCannotType(t *testing.T) {
	xv := startXvnc(t, testPassword)
	xe := watchX(t, xv.Display)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}}})
	base := tr.srv.URL
	before := fmt.Sprintf("before-%d", time.Now().UnixNano())
	xclipCopy(t, xv.Display, before)

	wm := mint(t, base, `{"agent":"agent1","surface":"crowd","access":"watch","name":"Crowd member"}`)
	if wm["access"] != "watch" || wm["name"] != "Crowd member" || wm["link"] != "/glass/?agent=agent1#ticket="+wm["ticket"] {
		t.Fatalf("watch-only ticket: %v", wm)
	}
	w := dialPage(t, base, "ticket="+wm["ticket"])
	if w.Hello["access"] != "watch" || w.Hello["name"] != "Crowd member" || w.Hello["stream"] != wm["stream"] || w.Hello["resume"] == "" {
		t.Fatalf("watch-only hello: %v", w.Hello)
	}
	// A second watch-only viewer of the surface, plain RFB (no events).
	wm2 := mint(t, base, `{"agent":"agent1","surface":"crowd","access":"watch"}`)
	w2, err := dialRFB(t, tr.wsURL(wm2["ticket"], "agent1"), false)
	if err != nil {
		t.Fatal(err)
	}
	cm := mint(t, base, `{"agent":"agent1","surface":"desk","name":"Ana's laptop"}`)
	c := dialPage(t, base, "ticket="+cm["ticket"])
	waitViewers(t, tr, "agent1", 3, 5*time.Second)

	input := [][]byte{keyEvent(true, 'q'), keyEvent(false, 'q'), qemuKey(true, 'w', 25), qemuKey(false, 'w', 25),
		pointer(0, 100, 100), pointer(1, 100, 100), pointer(0, 100, 100), pointer(4, 50, 50), pointer(0, 50, 50),
		cutText(5, []byte("stole")), setDesktopSize(320, 200)}
	smuggle := func(p *pageClient) {
		for _, m := range input { // as text messages: never the byte stream
			if rep := p.commandRaw(string(m)); rep["error"] != "bad_request" {
				t.Fatalf("RFB bytes in a text message: reply %v", rep)
			}
		}
	}
	tryAll := func(what string) {
		t.Helper()
		if rep := w.command("takeover"); rep["error"] != "watch_only" || rep["ok"] != nil {
			t.Fatalf("%s: a watch-only page's take-over: %v", what, rep)
		}
		for _, body := range []string{
			`{"agent":"agent1","surface":"crowd","stream":"` + w.Hello["stream"].(string) + `"}`,
			`{"agent":"agent1","surface":"crowd","stream":"` + wm2["stream"] + `"}`,
			`{"agent":"agent1","surface":"crowd"}`,
		} {
			if code, ans := postTool(t, base, "computers.takeover", body); code != http.StatusForbidden || ans["error"] != "watch_only" {
				t.Fatalf("%s: take-over %s: %d %v, want 403 watch_only", what, body, code, ans)
			}
		}
		if rep := w.command("renew"); rep["error"] != "not_holder" {
			t.Fatalf("%s: renew: %v", what, rep)
		}
		w.Send(input...)
		w2.Send(t, input...)
		smuggle(w)
		noEvents(t, xe, what+": a watch-only viewer's input")
		if got := xclipRead(t, xv.Display); got != before {
			t.Fatalf("%s: the X clipboard holds %q, want %q", what, got, before)
		}
		if h, ok := tr.leases.holding("agent1"); ok && h.Surface == "crowd" {
			t.Fatalf("%s: the keyboard went to a watch-only viewer: %+v", what, h)
		}
	}
	tryAll("nobody holding")

	// The control viewer takes over on its own stream and types: the rig
	// sees input that is let through.
	if rep := c.command("takeover"); rep["ok"] != true || rep["ttl_ms"] == nil {
		t.Fatalf("control take-over: %v", rep)
	}
	c.Send(keyEvent(true, 'a'), keyEvent(false, 'a'))
	oneKey(t, xe, "the control viewer typing")
	tryAll("another holding")

	// Forced: the lease table names the watch-only stream (as no API call
	// can make it); its gate stays shut all the same.
	tr.leases.TakeOver("agent1", "crowd", wm["stream"])
	tr.applyLease("agent1")
	w.Send(input...)
	noEvents(t, xe, "a watch-only viewer named in the lease table")
	tr.leases.GiveBack("agent1", "crowd")

	// Reconnecting with its resume credential: watch-only still, same name.
	resume := w.Hello["resume"].(string)
	w.Close()
	waitViewers(t, tr, "agent1", 2, 5*time.Second)
	w = dialPage(t, base, "resume="+resume)
	if w.Hello["access"] != "watch" || w.Hello["name"] != "Crowd member" || w.Hello["resume"] == resume {
		t.Fatalf("resumed hello: %v", w.Hello)
	}
	waitViewers(t, tr, "agent1", 3, 5*time.Second)
	tryAll("resumed")

	st := statusOf(t, base, "agent1")
	access := map[string]Access{}
	for _, v := range st.Viewers {
		access[v.Surface+"/"+v.Name] = v.Access
	}
	if access["crowd/Crowd member"] != AccessWatch || access["crowd/"] != AccessWatch || access["desk/Ana's laptop"] != AccessControl {
		t.Fatalf("status viewers %+v", st.Viewers)
	}
	gs := tr.GateStats("agent1")["crowd"]
	for _, typ := range []uint8{rfb.MsgKeyEvent, rfb.MsgPointerEvent, rfb.MsgClientCutText, rfb.MsgQEMU, rfb.MsgSetDesktopSize} {
		if gs.PassedByType[typ] != 0 || gs.DroppedByType[typ] == 0 {
			t.Fatalf("a watch-only gate passed %d and dropped %d of %s: %+v", gs.PassedByType[typ], gs.DroppedByType[typ], messageName(typ), gs)
		}
	}
}
