package rfbgate

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestXvncCrowd: 30 viewers opened through the relay at the same moment to
// a real Xvnc at its default settings (BlacklistThreshold 5, listen backlog
// 5) all reach ServerInit, and Xvnc never turns the relay away. Shared
// (the default), they all wait on the hub's handshake (then its shared
// connection's, once the second viewer is in); each with its
// own connection, the dial limiter keeps the relay's unauthenticated
// connections under Xvnc's threshold.
//
// /metrics, scraped while they are open and after the relay closed them,
// counts them, their handshakes and their closes.
//
// The time from release to the last ServerInit is logged, not asserted.
// To measure other crowds: GLASS_CROWD=100 sets the number of viewers and
// GLASS_CROWD_INFLIGHT=K the limiter's K (e.g. 50, to see Xvnc's blacklist
// refusals retried).
func TestXvncCrowd(t *testing.T) {
	t.Run("hub", func(t *testing.T) { testXvncCrowd(t, false) })
	t.Run("per-viewer", func(t *testing.T) { testXvncCrowd(t, true) })
}

func testXvncCrowd(t *testing.T, perViewer bool) {
	n := envInt(t, "GLASS_CROWD", 30)
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{
		Computers:         []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		Dial:              DialPolicy{InFlight: envInt(t, "GLASS_CROWD_INFLIGHT", 0)},
		PerViewerUpstream: perViewer,
	})
	took, st := crowdAllIn(t, tr, n)
	t.Logf("%d viewers released at once all reached ServerInit, the last %v after the release; dial stats %+v", n, took, st)
	handshakes := 2 // the first viewer's solo connection, then the one every viewer shares
	if perViewer {
		handshakes = n
	} else {
		// the shared connection is dialled once the second viewer is in
		for deadline := time.Now().Add(30 * time.Second); st.Handshakes < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			st = tr.DialStats("a")
		}
	}
	if st.Handshakes != int64(handshakes) || st.AuthFailures != 0 {
		t.Fatalf("dial stats %+v, want %d handshakes and no password failure", st, handshakes)
	}
	if os.Getenv("GLASS_CROWD_INFLIGHT") == "" && (st.Blacklisted != 0 || st.MaxInFlight > DefaultDialInFlight) {
		t.Fatalf("dial stats %+v: Xvnc turned the relay away, or more than %d handshakes were in flight", st, DefaultDialInFlight)
	}
	// /metrics during: every viewer open, watching; every handshake and
	// every wait in line counted.
	m := waitMetric(t, tr.Relay, func(m metrics) bool { return m.get("glass_viewers", "computer", "a") == float64(n) })
	m.want(t, float64(n), "glass_viewers", "computer", "a", "role", roleWatcher)
	m.want(t, float64(n), "glass_viewers_opened_total", "computer", "a")
	m.want(t, float64(handshakes), "glass_dial_attempts_total", "computer", "a", "result", dialOK)
	m.want(t, float64(st.Handshakes+st.Retries), "glass_dial_attempts_total", "computer", "a")
	m.want(t, float64(st.Waits), "glass_dial_limiter_waits_total", "computer", "a")
	// and after: all closed with 1001 at shutdown.
	tr.Relay.Close()
	m = scrape(t, tr.Relay)
	m.want(t, 0, "glass_viewers", "computer", "a")
	m.want(t, float64(n), "glass_viewer_closes_total", "computer", "a", "code", "1001")
	m.want(t, float64(n), "glass_viewer_closes_total", "computer", "a")
}

// envInt reads a positive integer from the environment, def when unset.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}
