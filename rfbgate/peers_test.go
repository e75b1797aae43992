package rfbgate

import (
	"bufio"
	"bytes"
	"context"
	"crypto/des"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/bits"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfb"
	"github.com/wirebench/wirebench/internal/testio"
)

// needPeer finds a real peer program; a missing one fails the test unless
// PEERS=off (internal/peertest).
func needPeer(t testing.TB, name string) string {
	t.Helper()
	return peertest.Program(t, name)
}

// vncPasswdFile is the vncpasswd file format Xvnc's -rfbauth reads: the
// password zero-padded to 8 bytes, DES-encrypted under VNC's fixed key.
func vncPasswdFile(pw string) []byte {
	k := []byte{23, 82, 107, 6, 35, 78, 88, 7}
	for i := range k {
		k[i] = bits.Reverse8(k[i])
	}
	c, _ := des.NewCipher(k)
	in := make([]byte, 8)
	copy(in, pw)
	out := make([]byte, 8)
	c.Encrypt(out, in)
	return out
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// xvnc is a real TigerVNC Xvnc started for a test.
type xvnc struct {
	Display int
	Addr    string
	Kill    func() // SIGKILL: Xvnc dies without a word to its clients
}

var displayMu sync.Mutex

// startXvnc starts Xvnc on a free display, loopback only, with VNC
// authentication from a password file; it is killed at the test's end.
func startXvnc(t testing.TB, password string, extra ...string) *xvnc {
	t.Helper()
	return startXvncOn(t, 0, password, extra...)
}

// startXvncOn is startXvnc listening on port (0: a free one), as a
// restarted server does.
func startXvncOn(t testing.TB, port int, password string, extra ...string) *xvnc {
	t.Helper()
	bin := needPeer(t, "Xvnc")
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "passwd")
	if err := os.WriteFile(pwFile, vncPasswdFile(password), 0o600); err != nil {
		t.Fatal(err)
	}
	displayMu.Lock()
	defer displayMu.Unlock()
	for d := 40 + os.Getpid()%40; d < 200; d++ {
		if !displayFree(d) {
			continue
		}
		if x := tryXvnc(t, bin, d, port, pwFile, extra); x != nil {
			return x
		}
	}
	t.Fatal("no free X display")
	return nil
}

// displayFree reports whether X display d is free, clearing the lock and
// socket an X server killed without a chance to clean up left behind.
func displayFree(d int) bool {
	lock := fmt.Sprintf("/tmp/.X%d-lock", d)
	sock := fmt.Sprintf("/tmp/.X11-unix/X%d", d)
	if b, err := os.ReadFile(lock); err == nil {
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == nil {
			return false // unreadable, or its server is alive
		}
		if os.Remove(lock) != nil {
			return false
		}
		os.Remove(sock)
		return true
	}
	_, err := os.Stat(sock)
	return os.IsNotExist(err)
}

// tryXvnc starts Xvnc on display d; nil if it exited (display taken).
func tryXvnc(t testing.TB, bin string, d, port int, pwFile string, extra []string) *xvnc {
	if port == 0 {
		port = freePort(t)
	}
	args := append([]string{fmt.Sprintf(":%d", d), "-localhost", "yes", "-rfbport", strconv.Itoa(port),
		"-rfbauth", pwFile, "-geometry", "640x480", "-depth", "24", "-retro", "-nolisten", "tcp"}, extra...)
	cmd := exec.Command(bin, args...)
	var logb testio.SyncBuffer
	cmd.Stdout, cmd.Stderr = &logb, &logb
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvnc: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Logf("Xvnc :%d exited early: %s", d, logb.String())
			return nil
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", d)); err == nil {
				t.Cleanup(func() {
					// SIGTERM lets Xvnc remove its lock file and socket.
					cmd.Process.Signal(syscall.SIGTERM)
					select {
					case <-done:
					case <-time.After(5 * time.Second):
						cmd.Process.Kill()
						<-done
					}
				})
				return &xvnc{Display: d, Addr: addr, Kill: func() { cmd.Process.Kill() }}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-done
	t.Fatalf("Xvnc :%d did not listen on %s within 10 s: %s", d, addr, logb.String())
	return nil
}

// xEvents watches key and button events in an X display with
// `xinput test-xi2 --root` (a real X client in that display).
type xEvents struct {
	mu     sync.Mutex
	events []xEvent
}

type xEvent struct {
	Type   string // KeyPress, KeyRelease, ButtonPress, ButtonRelease, Motion
	Detail int
}

var xiEventRe = regexp.MustCompile(`^EVENT type \d+ \((\w+)\)`)

func watchX(t testing.TB, display int) *xEvents {
	t.Helper()
	bin := needPeer(t, "xinput")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "test-xi2", "--root")
	cmd.Env = append(os.Environ(), fmt.Sprintf("DISPLAY=:%d", display))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("xinput: %v", err)
	}
	x := &xEvents{}
	ready := make(chan struct{})
	var once sync.Once
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		var cur string
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "⎣") || strings.Contains(line, "keyboard") {
				// The device list is printed once the client is connected.
				once.Do(func() { close(ready) })
			}
			if m := xiEventRe.FindStringSubmatch(line); m != nil {
				cur = m[1]
				continue
			}
			if f := strings.Fields(line); cur != "" && len(f) == 3 && f[0] == "device:" {
				// "device: 3 (7)": the master's copy of a slave's event; keep
				// only the slave's own (deviceid == sourceid) so each counts once.
				if "("+f[1]+")" != f[2] {
					cur = ""
				}
				continue
			}
			if cur != "" && strings.HasPrefix(strings.TrimSpace(line), "detail:") {
				d, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "detail:")))
				switch cur {
				case "KeyPress", "KeyRelease", "ButtonPress", "ButtonRelease":
					x.mu.Lock()
					x.events = append(x.events, xEvent{cur, d})
					x.mu.Unlock()
				}
				cur = ""
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cmd.Wait() })
	select {
	case <-ready:
		time.Sleep(200 * time.Millisecond) // the event selection follows the device list
	case <-time.After(10 * time.Second):
		t.Fatal("xinput test-xi2 printed nothing in 10 s")
	}
	return x
}

// take returns and clears the events seen so far.
func (x *xEvents) take() []xEvent {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.events
	x.events = nil
	return e
}

// waitFor waits until pred holds over the events seen (without clearing).
func (x *xEvents) waitFor(d time.Duration, pred func([]xEvent) bool) []xEvent {
	deadline := time.Now().Add(d)
	for {
		x.mu.Lock()
		e := append([]xEvent(nil), x.events...)
		x.mu.Unlock()
		if pred(e) || time.Now().After(deadline) {
			return e
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func count(ev []xEvent, typ string) int {
	n := 0
	for _, e := range ev {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// rfbClient is a minimal RFB 3.8 client over the relay's WebSocket, as a
// browser would be: it accepts security type None and reads everything the
// server sends in the background.
type rfbClient struct {
	ws     *websocket.Conn
	conn   net.Conn
	Init   []byte
	mu     sync.Mutex
	got    bytes.Buffer
	keep   bool // keep the received bytes (for order checks)
	n      int64
	done   chan struct{}
	cancel context.CancelFunc
}

// dialViewer opens a viewer's WebSocket at wsURL and runs the RFB
// handshake over it, each within timeout. The client's cancel ends its
// connection's context.
func dialViewer(wsURL string, timeout time.Duration) (*rfbClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1)
	cctx, ccancel := context.WithCancel(context.Background())
	c := &rfbClient{ws: ws, conn: websocket.NetConn(cctx, ws, websocket.MessageBinary), cancel: ccancel}
	c.conn.SetDeadline(time.Now().Add(timeout))
	if err := c.handshake(); err != nil {
		c.conn.Close()
		ccancel()
		return nil, err
	}
	c.conn.SetDeadline(time.Time{})
	return c, nil
}

func dialRFB(t testing.TB, wsURL string, keep bool) (*rfbClient, error) {
	t.Helper()
	c, err := dialViewer(wsURL, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c.done, c.keep = make(chan struct{}), keep
	go func() {
		defer close(c.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := c.conn.Read(buf)
			c.mu.Lock()
			c.n += int64(n)
			if c.keep {
				c.got.Write(buf[:n])
			}
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(c.Close)
	return c, nil
}

func (c *rfbClient) handshake() error {
	init, err := rfbHandshake(c.conn)
	c.Init = init
	return err
}

// rfbHandshake is the browser's side of the relay's RFB 3.8 handshake; it
// returns ServerInit.
func rfbHandshake(conn io.ReadWriter) ([]byte, error) {
	var ver [12]byte
	if _, err := io.ReadFull(conn, ver[:]); err != nil {
		return nil, fmt.Errorf("version: %w", err)
	}
	if _, err := conn.Write([]byte("RFB 003.008\n")); err != nil {
		return nil, err
	}
	var n [1]byte
	if _, err := io.ReadFull(conn, n[:]); err != nil {
		return nil, fmt.Errorf("security types: %w", err)
	}
	types := make([]byte, n[0])
	if _, err := io.ReadFull(conn, types); err != nil {
		return nil, err
	}
	if !bytes.Equal(types, []byte{rfb.SecurityNone}) {
		return nil, fmt.Errorf("relay offered %v, want only None", types)
	}
	conn.Write([]byte{rfb.SecurityNone})
	var res [4]byte
	if _, err := io.ReadFull(conn, res[:]); err != nil || binary.BigEndian.Uint32(res[:]) != 0 {
		return nil, fmt.Errorf("SecurityResult %x: %v", res, err)
	}
	conn.Write([]byte{0}) // ClientInit shared = 0: the relay must not forward it
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(conn, hdr); err != nil {
		return nil, fmt.Errorf("ServerInit: %w", err)
	}
	name := make([]byte, binary.BigEndian.Uint32(hdr[20:]))
	if _, err := io.ReadFull(conn, name); err != nil {
		return nil, err
	}
	return append(hdr, name...), nil
}

func (c *rfbClient) Send(t testing.TB, b ...[]byte) {
	t.Helper()
	for _, m := range b {
		if _, err := c.conn.Write(m); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
}

func (c *rfbClient) Received() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *rfbClient) Close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	<-c.done
}

// testRelay is a Relay behind an httptest server on loopback.
type testRelay struct {
	*Relay
	srv  *httptest.Server
	logs *testio.SyncBuffer
}

func (tr *testRelay) wsURL(ticket, agent string) string {
	u := "ws" + strings.TrimPrefix(tr.srv.URL, "http") + "/v1/streams/computers/glass?ticket=" + ticket
	if agent != "" {
		u += "&agent=" + agent
	}
	return u
}

// open issues a ticket for agent/surface and connects a client.
func (tr *testRelay) open(t testing.TB, agent, surface string, keep bool) *rfbClient {
	t.Helper()
	tk, err := tr.Watch(agent, surface)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialRFB(t, tr.wsURL(tk.Token, agent), keep)
	if err != nil {
		t.Fatalf("viewer %s: %v", surface, err)
	}
	return c
}

func newTestRelay(t testing.TB, cfg Config) *testRelay {
	t.Helper()
	logs := &testio.SyncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := NewRelay(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler(r, HandlerOptions{}))
	t.Cleanup(func() {
		r.Close()
		srv.Close()
	})
	return &testRelay{Relay: r, srv: srv, logs: logs}
}
