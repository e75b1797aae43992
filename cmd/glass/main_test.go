package main

import (
	"bytes"
	"context"
	"crypto/des"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/bits"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirebench/wirebench/rfbgate"
)

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("pw\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "at least one -computer"},
		{[]string{"-computer", "a"}, "want NAME=HOST:PORT"},
		{[]string{"-computer", "a=nohost"}, "missing port"},
		{[]string{"-computer", "a=127.0.0.1:1"}, "no -password-file a=PATH"},
		{[]string{"-computer", "a=127.0.0.1:1", "-computer", "a=127.0.0.1:2"}, "a given twice"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-password-file", "b=" + pw}, "-password-file b names no -computer (the computers: a)"},
		// A misspelt name is named, not the computer it left without a password.
		{[]string{"-computer", "demo=127.0.0.1:1", "-password-file", "dmo=" + pw}, "-password-file dmo names no -computer (the computers: demo)"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-trusted-proxies", "10.0.0.0/99"}, "-trusted-proxies 10.0.0.0/99"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-resume-window", "0s"}, "-resume-window must be positive"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-admin-token-file", empty}, "is empty"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-novnc", dir}, "not a noVNC package"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-lease-ttl", "0s"}, "must be positive"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "extra"}, "unexpected arguments"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-dial-in-flight", "0"}, "-dial-in-flight, -dial-queue and -dial-wait must be positive"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-dial-queue", "-1"}, "must be positive"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-dial-wait", "0s"}, "must be positive"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-lease-grace", "6s"}, "-lease-grace: lease grace 6s: want more than 0 and at most 5s"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-lease-grace", "0s"}, "-lease-grace: lease grace 0s: want more than 0"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-tls-cert", pw}, "-tls-cert and -tls-key go together"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-tls-cert", pw, "-tls-key", pw}, "-tls-cert " + pw},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-listen", "0.0.0.0:7900"}, "0.0.0.0 is not a loopback address"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-listen", "[::]:7900"}, ":: is not a loopback address"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-listen", ":7900"}, "every interface would be served without TLS"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-listen", "192.0.2.7:7900"}, "-insecure-listen"},
		{[]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-log-format", "xml"}, "want text or json"},
	} {
		_, err := parseFlags(c.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	o, err := parseFlags([]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-ticket-ttl", "5s"}, io.Discard)
	if err != nil || o.listen != "127.0.0.1:7900" || o.ticketTTL != 5*time.Second || o.leaseTTL != 90*time.Second {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	// Loopback needs no TLS; beyond it, -insecure-listen says so.
	for _, l := range [][]string{{"-listen", "127.0.0.2:0"}, {"-listen", "[::1]:0"}, {"-listen", "localhost:0"}, {"-listen", "0.0.0.0:7900", "-insecure-listen"}} {
		if _, err := parseFlags(append([]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw}, l...), io.Discard); err != nil {
			t.Errorf("%q: %v", l, err)
		}
	}
	if o.dial != (rfbgate.DialPolicy{InFlight: 3, Queue: 512, Wait: 30 * time.Second}) {
		t.Fatalf("dial defaults: %+v", o.dial)
	}
	if o, err := parseFlags([]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-lease-grace", "5s"}, io.Discard); err != nil || o.leaseGrace != 5*time.Second {
		t.Fatalf("-lease-grace at its limit: %v", err)
	}
	o, err = parseFlags([]string{"-computer", "a=127.0.0.1:1", "-password-file", "a=" + pw, "-dial-in-flight", "1", "-dial-queue", "8", "-dial-wait", "2s"}, io.Discard)
	if err != nil || o.dial != (rfbgate.DialPolicy{InFlight: 1, Queue: 8, Wait: 2 * time.Second}) {
		t.Fatalf("dial flags: %+v %v", o, err)
	}
}

// fakeVNC is a tiny RFB 3.8 server with VNC authentication: enough to check
// the program's wiring (the real Xvnc is tested in package rfbgate).
func fakeVNC(t *testing.T, password string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	key := make([]byte, 8)
	copy(key, password)
	for i := range key {
		key[i] = bits.Reverse8(key[i])
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				c.Write([]byte("RFB 003.008\n"))
				io.ReadFull(c, make([]byte, 12))
				c.Write([]byte{2, 19, 2})
				io.ReadFull(c, make([]byte, 1))
				ch := []byte("0123456789abcdef")
				c.Write(ch)
				resp := make([]byte, 16)
				io.ReadFull(c, resp)
				blk, _ := des.NewCipher(key)
				want := make([]byte, 16)
				blk.Encrypt(want[:8], ch[:8])
				blk.Encrypt(want[8:], ch[8:])
				if !bytes.Equal(resp, want) {
					c.Write([]byte{0, 0, 0, 1, 0, 0, 0, 4, 'n', 'o', 'p', 'e'})
					return
				}
				c.Write([]byte{0, 0, 0, 0})
				io.ReadFull(c, make([]byte, 1))
				init := []byte{0, 100, 0, 50, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0} // 32-bit true colour
				init = binary.BigEndian.AppendUint32(init, 4)
				c.Write(append(init, "fake"...))
				io.Copy(io.Discard, c)
			}(c)
		}
	}()
	return ln.Addr().String()
}

// TestGlassJSONLogAndMetrics: -log-format json writes one JSON object a
// line; /metrics needs the admin token and serves the relay's metrics.
func TestGlassJSONLogAndMetrics(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte("glass-pw-2\n"), 0o600)
	tokFile := filepath.Join(dir, "tok")
	os.WriteFile(tokFile, []byte("admintok\n"), 0o600)
	g := startGlass(t, "-listen", "127.0.0.1:0", "-log-format", "json", "-computer", "agent1="+fakeVNC(t, "glass-pw-2"),
		"-password-file", "agent1="+pwFile, "-admin-token-file", tokFile)
	base := "http://" + g.addr
	get := func(auth string) (int, string) {
		req, _ := http.NewRequest("GET", base+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(""); code != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d %s", code, body)
	}
	code, body := get("Bearer admintok")
	if code != 200 || !strings.Contains(body, `glass_viewers{computer="agent1",role="watcher"} 0`) || !strings.Contains(body, "go_build_info") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	// A viewer opens and closes: its close record's duration is in seconds.
	ws := openViewer(t, base, "Bearer admintok")
	ws.Close(websocket.StatusNormalClosure, "")
	if err := g.stop(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(g.logs.String()), "\n")
	closed := false
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["msg"] == nil {
			t.Fatalf("not a JSON log record: %q (%v)", l, err)
		}
		if rec["msg"] == "rfbgate: viewer closed" {
			closed = true
			if d, ok := rec["duration"].(float64); !ok || d <= 0 || d > 60 {
				t.Fatalf("the close record's duration is %v (%T), want seconds: %s", rec["duration"], rec["duration"], l)
			}
		}
	}
	if !closed {
		t.Fatalf("no viewer closed record in %q", lines)
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, `"msg":"glass: listening"`) }) {
		t.Fatalf("no listening record in %q", lines)
	}
}

// openViewer opens a viewer of agent1 through glass at base (minting its
// ticket with auth) and runs the RFB handshake.
func openViewer(t *testing.T, base, auth string) *websocket.Conn {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/tools/computers.watch", strings.NewReader(`{"agent":"agent1","surface":"s1","name":"Ana"}`))
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(base, "http", "ws", 1)+"/v1/streams/computers/glass?ticket="+m["ticket"], nil)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if _, err := fakeHandshake(websocket.NetConn(context.Background(), ws, websocket.MessageBinary)); err != nil {
		t.Fatalf("ServerInit: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	return ws
}

// fakeHandshake is a browser's side of the RFB handshake through glass
// with fakeVNC behind it (security type None, a 28-byte ServerInit named
// "fake"); it returns the ServerInit.
func fakeHandshake(nc io.ReadWriter) ([]byte, error) {
	buf := make([]byte, 12)
	io.ReadFull(nc, buf)
	nc.Write([]byte("RFB 003.008\n"))
	io.ReadFull(nc, buf[:2])
	nc.Write([]byte{1})
	io.ReadFull(nc, buf[:4])
	nc.Write([]byte{1})
	init := make([]byte, 28)
	_, err := io.ReadFull(nc, init)
	return init, err
}

func TestGlassServes(t *testing.T) {
	const password = "glass-pw-1"
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte(password+"\n"), 0o600)
	tokFile := filepath.Join(dir, "tok")
	os.WriteFile(tokFile, []byte("admintok\n"), 0o600)
	addr := fakeVNC(t, password)
	g := startGlass(t, "-listen", "127.0.0.1:0", "-computer", "agent1="+addr,
		"-password-file", "agent1="+pwFile, "-admin-token-file", tokFile)
	base := "http://" + g.addr
	post := func(tool string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+"/v1/tools/computers."+tool, strings.NewReader(`{"agent":"agent1","surface":"s1"}`))
		req.Header.Set("Authorization", "Bearer admintok")
		req.Header.Set("Content-Type", "application/json") // as curl -H would; no Origin
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	code, m := post("watch")
	if code != 200 {
		t.Fatalf("watch: %d %v", code, m)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	ws, _, err := websocket.Dial(wctx, strings.Replace(base, "http", "ws", 1)+"/v1/streams/computers/glass?ticket="+m["ticket"].(string), nil)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	nc := websocket.NetConn(context.Background(), ws, websocket.MessageBinary)
	if init, err := fakeHandshake(nc); err != nil || string(init[24:]) != "fake" || init[1] != 100 {
		t.Fatalf("ServerInit through glass: %q %v", init, err)
	}
	var st struct {
		Keyboard *string `json:"keyboard"`
		Viewers  []struct {
			Surface string  `json:"surface"`
			RTT     float64 `json:"rtt_ms"`
		} `json:"viewers"`
	}
	// The relay counts a viewer a moment after the ServerInit it relays
	// (as rfbgate's TestViewersCounted allows): ask until it is there.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		req, _ := http.NewRequest("GET", base+"/v1/computers/agent1", nil)
		req.Header.Set("Authorization", "Bearer admintok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		st.Keyboard, st.Viewers = nil, nil
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("status: %v", err)
		}
		if len(st.Viewers) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if code, _ := post("takeover"); code != 200 {
		t.Fatalf("takeover %d", code)
	}
	req, _ := http.NewRequest("GET", base+"/v1/computers/agent1", nil)
	req.Header.Set("Authorization", "Bearer admintok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Keyboard == nil || *st.Keyboard != "s1" || len(st.Viewers) != 1 || st.Viewers[0].Surface != "s1" {
		t.Fatalf("status %+v", st)
	}
	// Shutdown (SIGTERM) with the viewer open: it gets a close frame (the
	// NetConn reads a 1000 or 1001 close as EOF; an abrupt end is an error).
	g.cancel()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if rest, err := io.ReadAll(nc); err != nil {
		t.Fatalf("at shutdown the viewer's stream ended without a close frame: %v (after %d bytes)", err, len(rest))
	}
	nc.Close()
	if err := g.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if l := g.logs.String(); strings.Contains(l, password) || !strings.Contains(l, "viewer open") || !strings.Contains(l, `code=1001 reason="relay shutting down"`) {
		t.Fatalf("log (must say viewer open and closed going away at shutdown, must not hold the password):\n%s", l)
	}
	// Stopping says so, once, with what was open.
	if l := g.logs.String(); !strings.Contains(l, `msg="glass: stopping" viewers=1 why="context canceled" agent1.viewers=1 agent1.watching=0 agent1.keyboard=s1`) {
		t.Fatalf("no stopping record with what was open:\n%s", l)
	}
}
