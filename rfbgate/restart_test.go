package rfbgate

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// reconnect reopens a page's stream with its resume credential, again
// and again (each attempt's hello carries the next credential, even when
// the computer cannot be reached yet) every pause until it connects or d
// has passed.
func reconnect(t *testing.T, base string, p *pageClient, pause, d time.Duration) *pageClient {
	t.Helper()
	resume := p.Hello["resume"].(string)
	deadline := time.Now().Add(d)
	for {
		q, err := tryPage(base, "resume="+resume)
		if err == nil {
			q.t = t
			t.Cleanup(q.Close)
			return q
		}
		if q == nil || q.Hello["resume"] == nil {
			t.Fatalf("reconnecting: %v", err)
		}
		resume = q.Hello["resume"].(string)
		if time.Now().After(deadline) {
			t.Fatalf("not reconnected within %v: %v", d, err)
		}
		time.Sleep(pause)
	}
}

// TestKeyboardSurvivesXvncRestart, with a real Xvnc and input observed by
// xinput: the holder's page, reconnecting with its resume credential
// while Xvnc restarts on its port, is back within the grace period and
// still holds the keyboard (it types), and its page is told so; the
// computer shows down between. When Xvnc stays away longer than the grace
// period, the keyboard is handed back with the reason computer-ended, not
// viewer-closed: the holder did not leave, its computer's screen did.
func TestKeyboardSurvivesXvncRestart(t *testing.T) {
	xv := startXvnc(t, testPassword)
	_, portStr, _ := strings.Cut(xv.Addr, ":")
	port, _ := strconv.Atoi(portStr)
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "agent1", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		LeaseGrace: MaxLeaseGrace})
	base := tr.srv.URL
	sse := followEvents(t, base)
	p := dialPage(t, base, "ticket="+mint(t, base, `{"agent":"agent1","surface":"desk","name":"Ana"}`)["ticket"])
	waitViewers(t, tr, "agent1", 1, 5*time.Second)
	if rep := p.command("takeover"); rep["ok"] != true {
		t.Fatalf("take-over %v", rep)
	}

	xv.Kill()
	killed := time.Now()
	if ce := p.ended(5 * time.Second); ce == nil || ce.Code != websocket.StatusGoingAway || ce.Reason != reasonServerEnded {
		t.Fatalf("the holder's stream ended with %v, want 1001 %q", ce, reasonServerEnded)
	}
	waitFor(t, func() bool { return tr.health("agent1").State == stateDown })
	xv = startXvncOn(t, port, testPassword)
	xe := watchX(t, xv.Display)
	q := reconnect(t, base, p, 200*time.Millisecond, MaxLeaseGrace)
	t.Logf("the holder's page was back %v after Xvnc was killed", time.Since(killed).Round(10*time.Millisecond))
	q.lastState(3*time.Second, func(s map[string]any) bool {
		k, _ := s["keyboard"].(map[string]any)
		return k != nil && k["holder"] == holderYou && k["name"] == "Ana" && s["computer"] == "up"
	})
	if ev := q.waitFor(3*time.Second, func(e map[string]any) bool { return e["type"] == eventTakenOver && e["reason"] == reasonReopened }); ev == nil {
		t.Fatalf("the reconnected page was not told it kept the keyboard: %v", q.all())
	}
	q.Send(keyEvent(true, 'a'), keyEvent(false, 'a'))
	oneKey(t, xe, "the holder typing after the restart")

	// Away longer than the grace period: handed back, and why.
	xv.Kill()
	if ce := q.ended(5 * time.Second); ce == nil || ce.Reason != reasonServerEnded {
		t.Fatalf("second kill: %v", ce)
	}
	for deadline := time.Now().Add(MaxLeaseGrace + 5*time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, held := tr.leases.Holder("agent1"); !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the keyboard was still held %v after the second kill", MaxLeaseGrace+5*time.Second)
		}
	}
	if !sse.saw(`"reason":"`+reasonComputerEnded+`"`, 3*time.Second) {
		t.Fatalf("the hand-back's reason is not %s: %q", reasonComputerEnded, sse.lines())
	}
	scrape(t, tr.Relay).want(t, 1, "glass_lease_changes_total", "cause", reasonComputerEnded)
	scrape(t, tr.Relay).want(t, 0, "glass_computer_up", "computer", "agent1")
}
