package rfbgate

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestForwardedFor: behind a trusted proxy the client is the rightmost
// X-Forwarded-For entry that is not itself a trusted proxy; from anyone
// else, or with a malformed header, the connection's peer.
func TestForwardedFor(t *testing.T) {
	trusted, err := ParseTrustedProxies("127.0.0.1, 10.0.0.0/8,::1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"127.0.0.1:5000", nil, "127.0.0.1:5000"},
		{"127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"[::1]:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.7, 10.1.2.3"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"10.1.2.3, 10.4.5.6"}, "10.1.2.3"},
		{"127.0.0.1:5000", []string{"bogus, 203.0.113.7"}, "203.0.113.7"},
		{"127.0.0.1:5000", []string{"203.0.113.7, bogus"}, "127.0.0.1:5000"},
		{"192.0.2.9:5000", []string{"127.0.0.1"}, "192.0.2.9:5000"}, // not a trusted proxy: its header is the client's word
		{"127.0.0.1:5000", []string{"[2001:db8::1]:443"}, "2001:db8::1"},
	} {
		if got := forwardedFor(c.peer, c.xff, trusted); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
	if got := forwardedFor("127.0.0.1:5000", []string{"203.0.113.7"}, nil); got != "127.0.0.1:5000" {
		t.Errorf("no trusted proxies: %s", got)
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "1.2.3"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestUnauthorizedCountedAndLogged: control API and metrics calls without
// the admin token, or with a wrong one, are refused with 401, counted by
// reason and logged at info with the client's address: the proxy's
// X-Forwarded-For one when it comes through a trusted proxy. Without an
// admin token, /metrics from beyond loopback is refused even through a
// proxy on loopback.
func TestUnauthorizedCountedAndLogged(t *testing.T) {
	trusted, _ := ParseTrustedProxies("127.0.0.1")
	tr := newTestRelay(t, Config{Computers: []Computer{{Name: "a", Addr: "127.0.0.1:1", Password: NewSecret(testPassword)}}, TrustedProxies: trusted})
	srv := httptest.NewServer(NewHandler(tr.Relay, HandlerOptions{AdminToken: "s3cret"}))
	t.Cleanup(srv.Close)
	metricsSrv := httptest.NewServer(tr.MetricsHandler("s3cret"))
	t.Cleanup(metricsSrv.Close)
	call := func(url, auth, xff string) int {
		req, _ := http.NewRequest("GET", url, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := call(srv.URL+"/v1/computers", "", "203.0.113.7"); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	if code := call(srv.URL+"/v1/computers/a", "Bearer guess", ""); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code := call(metricsSrv.URL, "Bearer guess2", ""); code != 401 {
		t.Fatalf("wrong token on /metrics: %d", code)
	}
	if code := call(srv.URL+"/v1/computers", "Bearer s3cret", ""); code != 200 {
		t.Fatalf("the token: %d", code)
	}
	m := scrape(t, tr.Relay)
	m.want(t, 1, "glass_unauthorized_total", "reason", "missing")
	m.want(t, 2, "glass_unauthorized_total", "reason", "wrong")
	l := tr.logs.String()
	for _, want := range []string{
		`level=INFO msg="rfbgate: call refused: no valid admin token" reason=missing method=GET path=/v1/computers remote=203.0.113.7`,
		`level=INFO msg="rfbgate: call refused: no valid admin token" reason=wrong method=GET path=/v1/computers/a remote=127.0.0.1:`,
	} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q:\n%s", want, l)
		}
	}
	if strings.Contains(l, "guess") || strings.Contains(l, "s3cret") {
		t.Fatalf("a token is in the log:\n%s", l)
	}
	// No admin token: /metrics is loopback's only, and a proxy on
	// loopback does not make its clients loopback.
	open := httptest.NewServer(tr.MetricsHandler(""))
	t.Cleanup(open.Close)
	if code := call(open.URL, "", ""); code != 200 {
		t.Fatalf("/metrics from loopback: %d", code)
	}
	if code := call(open.URL, "", "203.0.113.7"); code != 403 {
		t.Fatalf("/metrics through a proxy on loopback for a client beyond it: %d, want 403", code)
	}
}

// TestComputerUpGauge: glass_computer_up is 0 before glass reached the
// computer and after a failed handshake, 1 after a good one.
func TestComputerUpGauge(t *testing.T) {
	addr, _ := syntheticVNC(t, testPassword, 1024, 50*time.Millisecond)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := ln.Addr().String()
	ln.Close()
	tr := newTestRelay(t, Config{Computers: []Computer{
		{Name: "up", Addr: addr, Password: NewSecret(testPassword)},
		{Name: "down", Addr: gone, Password: NewSecret(testPassword)},
	}})
	m := scrape(t, tr.Relay)
	m.want(t, 0, "glass_computer_up", "computer", "up")
	m.want(t, 0, "glass_computer_up", "computer", "down")
	tr.Check(context.Background(), "up")
	tr.Check(context.Background(), "down")
	m = scrape(t, tr.Relay)
	m.want(t, 1, "glass_computer_up", "computer", "up")
	m.want(t, 0, "glass_computer_up", "computer", "down")
}
