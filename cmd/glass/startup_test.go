package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/testio"
)

// TestMain runs glass's main itself when GLASS_MAIN_ARGS is set (unit
// separator between arguments), so a test can see its exit status and output.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("GLASS_MAIN_ARGS"); ok {
		os.Args = append([]string{"glass"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runGlass runs the glass program (this test binary's main) with args and
// returns its exit status and what it wrote.
func runGlass(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "GLASS_MAIN_ARGS="+strings.Join(args, "\x1f"))
	out, err := cmd.CombinedOutput()
	if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
		t.Fatalf("glass: %v", err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestStartupCheck: glass dials each computer at start. A wrong password
// or a server that is not there makes it exit with status 2 and one line
// naming the computer and the cause; -allow-down starts it anyway, with
// the computer down in the status. A password file others can read is
// warned about.
func TestStartupCheck(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("right-pw\n"), 0o600)
	addr := fakeVNC(t, "other-pw")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := ln.Addr().String()
	ln.Close()
	for _, c := range []struct{ name, addr, want string }{
		{"wrong password", addr, "glass: start-up check: computer agent1 (" + addr + "): the computer refused glass's VNC password (-allow-down starts anyway)\n"},
		{"unreachable", gone, "glass: start-up check: computer agent1 (" + gone + "): glass cannot reach the computer's VNC server: dial tcp " + gone + ": connect: connection refused (-allow-down starts anyway)\n"},
	} {
		code, out := runGlass(t, "-listen", "127.0.0.1:0", "-computer", "agent1="+c.addr, "-password-file", "agent1="+pw)
		if code != 2 || out != c.want {
			t.Errorf("%s: exit %d, output %q; want 2 and %q", c.name, code, out, c.want)
		}
	}

	// -allow-down: glass starts and says the computer is down; a 0644
	// password file is warned about.
	os.Chmod(pw, 0o644)
	g := startGlass(t, "-listen", "127.0.0.1:0", "-computer", "agent1="+addr, "-password-file", "agent1="+pw, "-allow-down")
	resp, err := http.Get("http://" + g.addr + "/v1/computers")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Computers []struct{ Name, Computer, Computer_reason string }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Computers) != 1 || list.Computers[0].Name != "agent1" || list.Computers[0].Computer != "down" || !strings.Contains(list.Computers[0].Computer_reason, "refused glass's VNC password") {
		t.Fatalf("computers: %+v", list)
	}
	l := g.logs.String()
	if !strings.Contains(l, "can be read by group or others (mode 0644): chmod 600 it") || !strings.Contains(l, "starting anyway (-allow-down)") {
		t.Fatalf("log:\n%s", l)
	}
	if err := g.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestHelp: -h says what each flag takes; a password file is either form.
func TestHelp(t *testing.T) {
	code, out := runGlass(t, "-h")
	for _, want := range []string{
		"the binary file vncpasswd writes (Xvnc's -rfbauth), or a text file whose first line is the password",
		"-trusted-proxies", "-resume-window", "instead of glass's own copy",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("glass -h: exit %d, no %q in:\n%s", code, want, out)
		}
	}
}

// glassRun is glass's run in this process.
type glassRun struct {
	addr    string // where it listens
	logs    *testio.SyncBuffer
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
	stopErr error
}

// startGlass runs glass with args until the test ends (or stop) and
// waits until it listens.
func startGlass(t *testing.T, args ...string) *glassRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	g := &glassRun{logs: &testio.SyncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() { g.done <- run(ctx, args, g.logs, func(a string) { ready <- a }) }()
	t.Cleanup(func() { g.stop() })
	select {
	case g.addr = <-ready:
	case err := <-g.done:
		t.Fatalf("glass exited: %v\n%s", err, g.logs.String())
	case <-time.After(10 * time.Second):
		t.Fatal("glass did not start")
	}
	return g
}

// stop ends glass as SIGTERM does and returns what run returned.
func (g *glassRun) stop() error {
	g.once.Do(func() {
		g.cancel()
		select {
		case g.stopErr = <-g.done:
		case <-time.After(10 * time.Second):
			g.stopErr = errors.New("glass did not stop within 10 s")
		}
	})
	return g.stopErr
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "glass test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}

// TestTLS: with -tls-cert and -tls-key glass serves HTTPS and WSS: the
// API answers over TLS, a viewer's stream opens over wss:// and relays
// ServerInit, and plain HTTP is refused.
func TestTLS(t *testing.T) {
	const password = "glass-pw-1"
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte(password+"\n"), 0o600)
	certFile, keyFile, pool := selfSigned(t, dir)
	addr := fakeVNC(t, password)
	g := startGlass(t, "-listen", "127.0.0.1:0", "-computer", "agent1="+addr, "-password-file", "agent1="+pw,
		"-tls-cert", certFile, "-tls-key", keyFile)
	hostport := g.addr
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	resp, err := client.Post("https://"+hostport+"/v1/tools/computers.watch", "application/json", strings.NewReader(`{"agent":"agent1","surface":"s"}`))
	if err != nil {
		t.Fatalf("HTTPS: %v", err)
	}
	var m map[string]string
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if resp.StatusCode != 200 || m["ticket"] == "" {
		t.Fatalf("watch over HTTPS: %d %v", resp.StatusCode, m)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	ws, _, err := websocket.Dial(wctx, "wss://"+hostport+"/v1/streams/computers/glass?ticket="+m["ticket"], &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatalf("WSS: %v", err)
	}
	nc := websocket.NetConn(context.Background(), ws, websocket.MessageBinary)
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if buf, err := fakeHandshake(nc); err != nil || string(buf[24:]) != "fake" {
		t.Fatalf("ServerInit over WSS: %q %v", buf, err)
	}
	ws.Close(websocket.StatusNormalClosure, "")
	// Plain HTTP to the TLS port is refused.
	if resp, err := http.Get("http://" + hostport + "/v1/computers"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP to the TLS port: %d", resp.StatusCode)
		}
	}
	if !strings.Contains(g.logs.String(), "scheme=https") {
		t.Fatalf("log:\n%s", g.logs.String())
	}
}

// TestStartupCheckXvnc: against a real Xvnc, glass with the wrong password
// exits with status 2 and one line; with the right one, read from the
// rfbauth file vncpasswd wrote, it starts.
func TestStartupCheckXvnc(t *testing.T) {
	const password = "xvnc-pw-1"
	addr := peertest.Xvnc(t, password)
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte("not-"+password+"\n"), 0o600)
	code, out := runGlass(t, "-listen", "127.0.0.1:0", "-computer", "x="+addr, "-password-file", "x="+wrong)
	want := "glass: start-up check: computer x (" + addr + "): the computer refused glass's VNC password (-allow-down starts anyway)\n"
	if code != 2 || out != want {
		t.Fatalf("wrong password: exit %d, output %q; want 2 and %q", code, out, want)
	}
	right := filepath.Join(dir, "right")
	os.WriteFile(right, []byte(password+"\n"), 0o600)
	g := startGlass(t, "-listen", "127.0.0.1:0", "-computer", "x="+addr, "-password-file", "x="+right)
	if l := g.logs.String(); !strings.Contains(l, "start-up check passed") {
		t.Fatalf("log:\n%s", l)
	}
}
