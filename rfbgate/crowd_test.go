package rfbgate

import (
	"os"
	"strconv"
	"testing"
)

// TestXvncCrowd: 30 viewers opened through the relay at the same moment to
// a real Xvnc at its default settings (BlacklistThreshold 5, listen backlog
// 5) all reach ServerInit, and Xvnc never turns the relay away: the dial
// limiter keeps the relay's unauthenticated connections under its
// threshold.
//
// The time from release to the last ServerInit is logged, not asserted.
// To measure other crowds: GLASS_CROWD=100 sets the number of viewers and
// GLASS_CROWD_INFLIGHT=K the limiter's K (e.g. 50, to see Xvnc's blacklist
// refusals retried).
func TestXvncCrowd(t *testing.T) {
	n := envInt(t, "GLASS_CROWD", 30)
	xv := startXvnc(t, testPassword)
	tr := newTestRelay(t, Config{
		Computers: []Computer{{Name: "a", Addr: xv.Addr, Password: NewSecret(testPassword)}},
		Dial:      DialPolicy{InFlight: envInt(t, "GLASS_CROWD_INFLIGHT", 0)},
	})
	took, st := crowdAllIn(t, tr, n)
	t.Logf("%d viewers released at once all reached ServerInit, the last %v after the release; dial stats %+v", n, took, st)
	if st.Handshakes != int64(n) || st.AuthFailures != 0 {
		t.Fatalf("dial stats %+v, want %d handshakes and no password failure", st, n)
	}
	if os.Getenv("GLASS_CROWD_INFLIGHT") == "" && (st.Blacklisted != 0 || st.MaxInFlight > DefaultDialInFlight) {
		t.Fatalf("dial stats %+v: Xvnc turned the relay away, or more than %d handshakes were in flight", st, DefaultDialInFlight)
	}
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
