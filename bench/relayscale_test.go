package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Geometry of the Xvnc the scale benchmark relays (32 bits per pixel).
const (
	scaleWidth  = 640
	scaleHeight = 480
)

// BenchmarkRelayScale: N viewers (1, 50, 200) open through glass, run as
// its own process (bin built from ./cmd/glass), to one real Xvnc at its
// default settings. Every viewer asks for the whole screen in Raw again as
// soon as an update ends, so Xvnc sends as fast as it can and the relay
// carries real RFB updates. One operation is 1 MiB relayed to the viewers
// in all. Reported: MB/s (all viewers), glass-CPU-s/100MB (glass's user +
// system time per 100 MB relayed), xvnc-CPU-s/100MB (the peer, same run),
// RSS-KB/viewer (glass's resident set after the run, less its resident
// set before any viewer, over N) and open-RSS-KB/viewer (the same with
// every viewer open, before the first update).
func BenchmarkRelayScale(b *testing.B) {
	for _, n := range []int{1, 50, 200} {
		b.Run(fmt.Sprintf("viewers=%d", n), func(b *testing.B) {
			s := scaleSetup(b, n)
			s.run(b)
		})
	}
}

// scaleRig is one Xvnc, one glass and n viewers, kept across the b.N
// calls of one sub-benchmark.
type scaleRig struct {
	name        string
	glass, xvnc int   // pids
	rss0        int64 // glass's resident set before any viewer
	rssOpen     int64 // and with every viewer open, before any update
	bytes       atomic.Int64
	viewers     int
	errc        chan error
	end         func()
}

// scaleCur is the running rig: one at a time, so one sub-benchmark's
// viewers do not load the next one's measurement.
var scaleCur *scaleRig

// scaleSetup returns the rig for b's name, ending the previous one and
// starting a new one on the first call.
func scaleSetup(b *testing.B, n int) *scaleRig {
	if scaleCur != nil && scaleCur.name == b.Name() {
		return scaleCur
	}
	scaleStop()
	tmp, err := os.MkdirTemp("", "relayscale")
	if err != nil {
		b.Fatal(err)
	}
	const pw = "scale-pw"
	bin := buildGlass(b)
	x := launchScaleXvnc(b, pw)
	started := false
	defer func() {
		if !started { // b.Fatal on the way: the rig never ran
			x.Stop()
			os.RemoveAll(tmp)
		}
	}()
	gaddr, gpid, stopG := startGlass(b, bin, tmp, x.Addr, pw)
	started = true
	s := &scaleRig{name: b.Name(), glass: gpid, xvnc: x.Pid, viewers: n, errc: make(chan error, n)}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	s.end = func() {
		cancel()
		stopG()
		wg.Wait()
		x.Stop()
		os.RemoveAll(tmp)
	}
	scaleCur = s
	time.Sleep(200 * time.Millisecond)
	s.rss0 = procRSS(b, gpid)
	// Open every viewer, then start them: opening under full load is slow.
	conns := make([]net.Conn, n)
	for i := range conns {
		var err error
		if conns[i], err = openScaleViewer(ctx, gaddr, fmt.Sprintf("v%03d", i)); err != nil {
			b.Fatalf("viewer %d: %v", i, err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	s.rssOpen = procRSS(b, gpid)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.pull(c); err != nil && ctx.Err() == nil {
				s.errc <- err
			}
		}()
	}
	return s
}

// scaleStop ends the running rig, if any.
func scaleStop() {
	if scaleCur != nil {
		scaleCur.end()
		scaleCur = nil
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	scaleStop()
	if glassBin != "" {
		os.RemoveAll(filepath.Dir(glassBin))
	}
	os.Exit(code)
}

// run relays b.N MiB and reports the metrics.
func (s *scaleRig) run(b *testing.B) {
	want := int64(b.N) << 20
	start := s.bytes.Load()
	cpu0, xcpu0 := procCPU(b, s.glass), procCPU(b, s.xvnc)
	b.SetBytes(1 << 20)
	b.ResetTimer()
	for s.bytes.Load()-start < want {
		select {
		case err := <-s.errc:
			b.Fatal(err)
		case <-time.After(time.Millisecond):
		}
	}
	b.StopTimer()
	got := float64(s.bytes.Load() - start)
	cpu, xcpu := procCPU(b, s.glass)-cpu0, procCPU(b, s.xvnc)-xcpu0
	b.ReportMetric(cpu/(got/1e8), "glass-CPU-s/100MB")
	b.ReportMetric(xcpu/(got/1e8), "xvnc-CPU-s/100MB")
	b.ReportMetric(float64(procRSS(b, s.glass)-s.rss0)/1024/float64(s.viewers), "RSS-KB/viewer")
	b.ReportMetric(float64(s.rssOpen-s.rss0)/1024/float64(s.viewers), "open-RSS-KB/viewer")
}

// pull reads c's updates, asking for the whole screen again (non-incremental,
// so Xvnc sends it all) each time one ends; two requests are outstanding.
func (s *scaleRig) pull(c net.Conn) error {
	req := []byte{3, 0, 0, 0, 0, 0, scaleWidth >> 8, scaleWidth & 0xff, scaleHeight >> 8, scaleHeight & 0xff}
	if _, err := c.Write(append(append([]byte{}, req...), req...)); err != nil {
		return err
	}
	r := bufio.NewReaderSize(c, 64<<10)
	var hdr [12]byte
	for {
		if _, err := io.ReadFull(r, hdr[:1]); err != nil {
			return err
		}
		switch hdr[0] {
		case 0: // FramebufferUpdate
			if _, err := io.ReadFull(r, hdr[:3]); err != nil {
				return err
			}
			rects := int(binary.BigEndian.Uint16(hdr[1:3]))
			n := int64(4)
			for range rects {
				if _, err := io.ReadFull(r, hdr[:]); err != nil {
					return err
				}
				w, h := int64(binary.BigEndian.Uint16(hdr[4:6])), int64(binary.BigEndian.Uint16(hdr[6:8]))
				if enc := int32(binary.BigEndian.Uint32(hdr[8:12])); enc != 0 {
					return fmt.Errorf("rectangle in encoding %d, asked for Raw only", enc)
				}
				if _, err := io.CopyN(io.Discard, r, w*h*4); err != nil {
					return err
				}
				n += 12 + w*h*4
			}
			s.bytes.Add(n)
			if _, err := c.Write(req); err != nil {
				return err
			}
		case 2: // Bell
		case 3: // ServerCutText
			if _, err := io.ReadFull(r, hdr[:7]); err != nil {
				return err
			}
			if _, err := io.CopyN(io.Discard, r, int64(binary.BigEndian.Uint32(hdr[3:7]))); err != nil {
				return err
			}
		default:
			return fmt.Errorf("server message type %d", hdr[0])
		}
	}
}

// openScaleViewer asks glass for a ticket and opens a viewer: RFB 3.8
// with security None, 32-bit true colour, Raw only.
func openScaleViewer(ctx context.Context, addr, surface string) (net.Conn, error) {
	body := fmt.Sprintf(`{"agent":"scale","surface":%q}`, surface)
	resp, err := http.Post("http://"+addr+"/v1/tools/computers.watch", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	var tk struct{ Ticket string }
	err = json.NewDecoder(resp.Body).Decode(&tk)
	resp.Body.Close()
	if err != nil || tk.Ticket == "" {
		return nil, fmt.Errorf("watch: status %d, %v", resp.StatusCode, err)
	}
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(dctx, "ws://"+addr+"/v1/streams/computers/glass?ticket="+tk.Ticket, &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1)
	c := websocket.NetConn(ctx, ws, websocket.MessageBinary)
	c.SetDeadline(time.Now().Add(60 * time.Second)) // a crowd queues in the dial limiter
	if err := rfbNoneHandshake(c); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	pf := []byte{0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
	enc := []byte{2, 0, 0, 1, 0, 0, 0, 0} // SetEncodings: Raw
	if _, err := c.Write(append(pf, enc...)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
