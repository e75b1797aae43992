package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfb"
	"github.com/wirebench/wirebench/rfbgate"
)

// BenchmarkGate: the input gate over seeded client streams, cut as noVNC's
// WebSocket frames cut them, for the keyboard holder and for a watcher.
// Reports MB/s, ns per message and allocations per message (target 0).
func BenchmarkGate(b *testing.B) {
	for _, kind := range support.RFBStreamKinds {
		s, err := support.RFBClientStream(kind, 1, 20000)
		if err != nil {
			b.Fatal(err)
		}
		for _, role := range []string{"holder", "watcher"} {
			support.Run(b, "stream="+kind+"/role="+role, func(b *testing.B) {
				g := rfbgate.NewGate(rfbgate.Limits{})
				g.SetKeyboard(role == "holder")
				out := make([]byte, 0, 64<<10)
				b.SetBytes(int64(len(s.Bytes)))
				b.ReportAllocs()
				c := support.CountAllocs(b)
				for i := 0; i < b.N; i++ {
					off := 0
					for _, n := range s.Chunks {
						var err error
						if out, err = g.Feed(out[:0], s.Bytes[off:off+n]); err != nil {
							b.Fatal(err)
						}
						off += n
					}
				}
				c.Stop()
				allocs, _ := c.PerOp()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(s.Messages)), "ns/msg")
				b.ReportMetric(allocs/float64(s.Messages), "allocs/msg")
			})
		}
	}
}

// rfbRelayBlock is the bytes counted as one benchmark operation.
const rfbRelayBlock = 1 << 20

const rfbBenchPassword = "bench-pw"

// BenchmarkRelay: server-to-client MB/s on loopback from a synthetic RFB
// server sending seeded ZRLE framebuffer updates, read by a fast client
// directly (raw_tcp), through glass relaying byte for byte
// (-per-viewer-upstream: the synthetic server's ZRLE is seeded noise,
// which glass's shared hub would have to decode; make rfbgate-scale
// measures the hub on real Xvnc), and through websockify. Both relays run
// as their own processes, so that each is measured the same way. One
// operation is 1 MiB relayed. Reported: MB/s; relay-cpu-ms/MiB, the relay
// process's CPU time per MiB (from /proc: glass's own, websockify's own);
// relay-allocs/MiB, glass's allocations per MiB (its
// go_memstats_mallocs_total); cpu-ms/MiB, this process's (server and
// client). Compare glass and websockify as ratios to raw_tcp of the same
// run: time on a shared host swings.
func BenchmarkRelay(b *testing.B) {
	payload := support.RFBFramebufferUpdates(1, 8<<20)
	srv, err := support.NewRFBServer(rfbBenchPassword, payload)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()

	b.Run("path=raw_tcp", func(b *testing.B) {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		rfbVNCHandshake(b, c)
		rfbReadBlocks(b, c, relayProc{})
	})

	b.Run("path=glass", func(b *testing.B) {
		g := startRelayGlass(b, srv.Addr())
		c := g.viewer(b)
		defer c.Close()
		rfbReadBlocks(b, c, relayProc{pid: g.pid, metrics: g.addr})
	})

	b.Run("path=websockify", func(b *testing.B) {
		addr, pid := rfbStartWebsockifyPID(b, peertest.Websockify(b), srv.Addr())
		c := rfbDialWS(b, "ws://"+addr+"/")
		defer c.Close()
		rfbVNCHandshake(b, c)
		rfbReadBlocks(b, c, relayProc{pid: pid})
	})
}

// relayGlass is glass as its own process for one computer, "scale", at
// a synthetic server, relaying byte for byte.
type relayGlass struct {
	addr string
	pid  int
}

// startRelayGlass starts glass (-per-viewer-upstream) for the VNC server
// at srv; it ends with the test.
func startRelayGlass(b testing.TB, srv string) relayGlass {
	addr, pid, stop := startGlass(b, buildGlass(b), b.TempDir(), srv, rfbBenchPassword, "-per-viewer-upstream")
	b.Cleanup(stop)
	return relayGlass{addr: addr, pid: pid}
}

// viewer opens one viewer through g, past ServerInit.
func (g relayGlass) viewer(b testing.TB) net.Conn {
	var w struct{ Ticket string }
	resp, err := http.Post("http://"+g.addr+"/v1/tools/computers.watch", "application/json", strings.NewReader(`{"agent":"scale","surface":"bench"}`))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil || w.Ticket == "" {
		b.Fatalf("computers.watch: status %d, %v", resp.StatusCode, err)
	}
	c := rfbDialWS(b, "ws://"+g.addr+"/v1/streams/computers/glass?ticket="+w.Ticket)
	if err := rfbNoneHandshake(c); err != nil {
		c.Close()
		b.Fatal(err)
	}
	return c
}

// procTreeCPUns is procCPUns of pid and every process under it
// (websockify serves each connection in a child of its own).
func procTreeCPUns(b testing.TB, pid int) float64 {
	sum := procCPUns(b, pid)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			if c, err := strconv.Atoi(f); err == nil {
				sum += procTreeCPUns(b, c)
			}
		}
	}
	return sum
}

// relayProc is the relay process a path goes through (pid 0: none), and
// the address of its Prometheus metrics, if it has them (glass).
type relayProc struct {
	pid     int
	metrics string
}

// cpu is the relay's CPU time so far, in seconds.
func (p relayProc) cpu(b testing.TB) float64 {
	if p.pid == 0 {
		return 0
	}
	return procTreeCPUns(b, p.pid)
}

// mallocs is the relay's go_memstats_mallocs_total (-1: it has none).
func (p relayProc) mallocs(b testing.TB) float64 {
	if p.metrics == "" {
		return -1
	}
	resp, err := http.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_mallocs_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				b.Fatalf("go_memstats_mallocs_total %q", v)
			}
			return f
		}
	}
	b.Fatalf("glass's /metrics has no go_memstats_mallocs_total")
	return 0
}

// rfbGlassViewer runs glass in this process for the VNC server at addr
// (computer "bench"; perViewer: its own connection, relayed byte for byte,
// else the shared hub) and opens one viewer through it, past ServerInit;
// both end with the benchmark.
func rfbGlassViewer(b *testing.B, addr, password string, perViewer bool) (hs *httptest.Server, c net.Conn) {
	relay, err := rfbgate.NewRelay(rfbgate.Config{
		Computers:         []rfbgate.Computer{{Name: "bench", Addr: addr, Password: rfbgate.NewSecret(password)}},
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		PerViewerUpstream: perViewer,
	})
	if err != nil {
		b.Fatal(err)
	}
	hs = httptest.NewServer(rfbgate.NewHandler(relay, rfbgate.HandlerOptions{}))
	b.Cleanup(func() { relay.Close(); hs.Close() })
	tk, err := relay.Watch("bench", "bench")
	if err != nil {
		b.Fatal(err)
	}
	c = rfbDialWS(b, "ws"+strings.TrimPrefix(hs.URL, "http")+"/v1/streams/computers/glass?ticket="+tk.Token)
	b.Cleanup(func() { c.Close() })
	if err := rfbNoneHandshake(c); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); relay.Viewers("bench") == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the viewer was not counted open")
		}
	}
	return hs, c
}

// rfbVNCHandshake does the client's VNC handshake on c: the paths with
// no relay doing VNC auth.
func rfbVNCHandshake(b testing.TB, c net.Conn) {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret(rfbBenchPassword)); err != nil {
		b.Fatal(err)
	}
	c.SetDeadline(time.Time{})
}

// processCPU is this process's user and system CPU time so far, in
// seconds: BenchmarkRelay's cpu-ms/MiB, which a busy host changes less than
// it changes MB/s (websockify's own CPU, another process, is not in it).
func processCPU(b testing.TB) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// rfbReadBlocks reads b.N blocks of server bytes as fast as it can, and
// reports what they cost this process and the relay process p.
func rfbReadBlocks(b *testing.B, c net.Conn, p relayProc) {
	buf := make([]byte, 256<<10)
	b.SetBytes(rfbRelayBlock)
	b.ReportAllocs()
	cpu0, rcpu0, m0 := processCPU(b), p.cpu(b), p.mallocs(b)
	b.ResetTimer()
	want := int64(b.N) * rfbRelayBlock
	for got := int64(0); got < want; {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := c.Read(buf[:min(int64(len(buf)), want-got)])
		got += int64(n)
		if err != nil {
			b.Fatalf("after %d bytes: %v", got, err)
		}
	}
	b.StopTimer()
	mib := float64(want) / (1 << 20)
	b.ReportMetric((processCPU(b)-cpu0)*1e3/mib, "cpu-ms/MiB")
	if p.pid != 0 {
		b.ReportMetric((p.cpu(b)-rcpu0)*1e3/mib, "relay-cpu-ms/MiB")
	}
	if m0 >= 0 {
		b.ReportMetric((p.mallocs(b)-m0)/mib, "relay-allocs/MiB")
	}
}

// rfbDialWS opens a binary WebSocket as noVNC does (subprotocol "binary").
func rfbDialWS(b testing.TB, url string) net.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		b.Fatalf("dial %s: %v", url, err)
	}
	ws.SetReadLimit(-1)
	return &wsStream{Conn: websocket.NetConn(context.Background(), ws, websocket.MessageBinary), rw: rfbgate.ByteStream(ws)}
}

// wsStream reads and writes a WebSocket's binary messages as one byte
// stream, as noVNC does, with no context per message (rfbgate.ByteStream:
// coder/websocket's NetConn costs a few allocations per message read,
// which would be counted against the relay). Deadlines are NetConn's and
// do not bound its reads.
type wsStream struct {
	net.Conn // Close, addresses and deadlines
	rw       io.ReadWriter
}

func (s *wsStream) Read(p []byte) (int, error)  { return s.rw.Read(p) }
func (s *wsStream) Write(p []byte) (int, error) { return s.rw.Write(p) }

// rfbNoneHandshake is the browser's side of the relay's RFB 3.8 handshake.
func rfbNoneHandshake(c net.Conn) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	buf := make([]byte, 64)
	if _, err := io.ReadFull(c, buf[:12]); err != nil {
		return err
	}
	c.Write([]byte("RFB 003.008\n"))
	if _, err := io.ReadFull(c, buf[:2]); err != nil {
		return err
	}
	c.Write([]byte{rfb.SecurityNone})
	if _, err := io.ReadFull(c, buf[:4]); err != nil {
		return err
	}
	c.Write([]byte{1})
	if _, err := io.ReadFull(c, buf[:24]); err != nil {
		return err
	}
	n := int(buf[20])<<24 | int(buf[21])<<16 | int(buf[22])<<8 | int(buf[23])
	_, err := io.ReadFull(c, make([]byte, n))
	return err
}

// rfbStartWebsockify runs Debian's websockify from a free loopback port to
// target and stops it when the benchmark ends.
func rfbStartWebsockify(b testing.TB, bin, target string) string {
	addr, _ := rfbStartWebsockifyPID(b, bin, target)
	return addr
}

// rfbStartWebsockifyPID is rfbStartWebsockify, with websockify's process
// id.
func rfbStartWebsockifyPID(b testing.TB, bin, target string) (string, int) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, addr, target)
	var logb strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &logb
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return addr, cmd.Process.Pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("websockify did not listen on %s: %s", addr, fmt.Sprint(logb.String()))
	return "", 0
}
