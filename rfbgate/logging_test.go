package rfbgate

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirebench/wirebench/internal/testio"
)

// TestLogsJSONNoSecrets: with a JSON log, every record is one JSON object;
// a viewer's open and close records, a lease change and a dial failure
// each carry their fields; and neither a VNC password (right or wrong)
// nor any ticket ever appears, whatever the path: a viewer that opens and
// closes, a used ticket tried again, a computer whose password is wrong.
func TestLogsJSONNoSecrets(t *testing.T) {
	const wrongPassword = "wr0ng-pw-77"
	addr, _ := syntheticVNC(t, testPassword, 1024, 20*time.Millisecond)
	logs := &testio.SyncBuffer{}
	r, err := NewRelay(Config{PerViewerUpstream: true,
		Computers: []Computer{
			{Name: "a", Addr: addr, Password: NewSecret(testPassword)},
			{Name: "b", Addr: addr, Password: NewSecret(wrongPassword)},
		},
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler(r, HandlerOptions{}))
	t.Cleanup(func() { r.Close(); srv.Close() })
	tr := &testRelay{Relay: r, srv: srv, logs: logs}

	var tickets []string
	tk, _ := tr.Watch("a", "desk")
	tickets = append(tickets, tk.Token)
	c, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false)
	if err != nil {
		t.Fatal(err)
	}
	waitViewers(t, tr, "a", 1, 5*time.Second)
	takeOverNewest(t, tr.Relay, "a", "desk")
	if _, err := dialRFB(t, tr.wsURL(tk.Token, "a"), false); err == nil { // used already
		t.Fatal("a used ticket opened a viewer")
	}
	tb, _ := tr.Watch("b", "desk")
	tickets = append(tickets, tb.Token)
	if _, err := dialRFB(t, tr.wsURL(tb.Token, "b"), false); err == nil {
		t.Fatal("a viewer opened with the wrong password")
	}
	c.ws.Close(websocket.StatusNormalClosure, "done")
	waitViewers(t, tr, "a", 0, 5*time.Second)
	tr.leases.GiveBack("a", "desk")
	waitFor(t, func() bool { return strings.Contains(logs.String(), "computer.handed-back") })

	l := logs.String()
	for _, secret := range append(tickets, testPassword, wrongPassword) {
		if strings.Contains(l, secret) {
			t.Fatalf("the log holds a secret (%q):\n%s", secret, l)
		}
	}
	records := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(l))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("not a JSON record: %q: %v", sc.Text(), err)
		}
		records[rec["msg"].(string)] = rec
	}
	for msg, fields := range map[string][]string{
		"rfbgate: viewer open":                        {"agent", "surface", "role", "remote"},
		"rfbgate: viewer closed":                      {"agent", "surface", "role", "remote", "by", "code", "reason", "close_sent", "duration", "bytes_to_viewer", "bytes_to_computer"},
		"rfbgate: keyboard lease computer.taken-over": {"agent", "surface", "cause"},
		"rfbgate: VNC handshake failed":               {"agent", "addr", "err"},
	} {
		rec, ok := records[msg]
		if !ok {
			t.Errorf("no %q record in\n%s", msg, l)
			continue
		}
		for _, f := range fields {
			if _, ok := rec[f]; !ok {
				t.Errorf("%q has no %q: %v", msg, f, rec)
			}
		}
	}
	if rec := records["rfbgate: viewer closed"]; rec["code"] != float64(1000) || rec["reason"] != "done" || rec["by"] != "viewer" {
		t.Errorf("close record %v, want the viewer's own 1000 \"done\"", rec)
	}
}
