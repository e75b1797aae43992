package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/rfbgate"
)

// BenchmarkKeyToPixel: the time from a key event a viewer sends to the
// first screen update it receives after it, with the real peers: Xvnc
// running xkbwatch (which draws the keyboard's modifier state, so Shift
// changes pixels), Shift pressed and released in turn, one incremental
// update request outstanding at each key. Straight to Xvnc (raw_tcp),
// through glass (in this process, holding the keyboard) and through
// websockify. One operation is one key event; reported: the median and
// 90th percentile in ms besides ns/op.
func BenchmarkKeyToPixel(b *testing.B) {
	const pw = "k2p-pw"
	x := launchScaleXvnc(b, pw)
	defer x.Stop()
	xaddr, display := x.Addr, x.Display
	xkb := exec.Command(peertest.Program(b, "xkbwatch"))
	xkb.Env = append(os.Environ(), "DISPLAY=:"+display)
	if err := xkb.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { xkb.Process.Kill(); xkb.Wait() }()
	time.Sleep(500 * time.Millisecond) // its window maps and draws

	b.Run("path=raw_tcp", func(b *testing.B) {
		c, err := net.Dial("tcp", xaddr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if _, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret(pw)); err != nil {
			b.Fatal(err)
		}
		keyToPixel(b, c)
	})
	b.Run("path=glass", func(b *testing.B) {
		hs, c := rfbGlassViewer(b, xaddr, pw, false) // the shared hub, glass's default
		resp, err := http.Post(hs.URL+"/v1/tools/computers.takeover", "application/json", strings.NewReader(`{"agent":"bench","surface":"bench"}`))
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("take-over: %v %v", resp, err)
		}
		resp.Body.Close()
		keyToPixel(b, c)
	})
	b.Run("path=websockify", func(b *testing.B) {
		c := rfbDialWS(b, "ws://"+rfbStartWebsockify(b, peertest.Websockify(b), xaddr)+"/")
		defer c.Close()
		if _, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret(pw)); err != nil {
			b.Fatal(err)
		}
		keyToPixel(b, c)
	})
}

// keyToPixel asks c (after ServerInit) for the whole screen in Raw, then
// times b.N Shift events, each to the first update with a rectangle.
func keyToPixel(b *testing.B, c net.Conn) {
	req := func(incremental byte) []byte {
		return []byte{3, incremental, 0, 0, 0, 0, scaleWidth >> 8, scaleWidth & 0xff, scaleHeight >> 8, scaleHeight & 0xff}
	}
	// A stalled peer must fail the benchmark, not hang it (wsStream's reads
	// have no deadline): the watchdog closes c.
	watchdog := time.AfterFunc(time.Hour, func() { c.Close() })
	defer watchdog.Stop()
	r := bufio.NewReaderSize(c, 64<<10)
	wait := func() {
		watchdog.Reset(10 * time.Second)
		for {
			rects, err := readRawUpdate(r)
			if err != nil {
				b.Fatalf("waiting for an update: %v", err)
			}
			if rects > 0 {
				return
			}
		}
	}
	c.Write(append([]byte{2, 0, 0, 1, 0, 0, 0, 0}, req(0)...)) // SetEncodings Raw; the whole screen
	wait()
	lat := make([]time.Duration, 0, b.N)
	key := []byte{4, 0, 0, 0, 0, 0, 0xff, 0xe1} // KeyEvent Shift_L
	b.ResetTimer()
	for i := range b.N {
		time.Sleep(20 * time.Millisecond) // xkbwatch and Xvnc are done with the last key
		key[1] = byte(1 - i%2)
		start := time.Now()
		c.Write(append(req(1), key...))
		wait()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.9), "p90-ms")
}

// readRawUpdate reads one server message; for a FramebufferUpdate (Raw
// rectangles, 32 bits per pixel) it returns its rectangle count.
func readRawUpdate(r *bufio.Reader) (int, error) {
	var h [12]byte
	if _, err := io.ReadFull(r, h[:1]); err != nil {
		return 0, err
	}
	switch h[0] {
	case 0: // FramebufferUpdate
		if _, err := io.ReadFull(r, h[:3]); err != nil {
			return 0, err
		}
		n := int(binary.BigEndian.Uint16(h[1:3]))
		for range n {
			if _, err := io.ReadFull(r, h[:]); err != nil {
				return 0, err
			}
			w, ht := int64(binary.BigEndian.Uint16(h[4:6])), int64(binary.BigEndian.Uint16(h[6:8]))
			if enc := int32(binary.BigEndian.Uint32(h[8:12])); enc != 0 {
				return 0, fmt.Errorf("rectangle in encoding %d, asked for Raw only", enc)
			}
			if _, err := io.CopyN(io.Discard, r, w*ht*4); err != nil {
				return 0, err
			}
		}
		return n, nil
	case 2: // Bell
		return 0, nil
	case 3: // ServerCutText
		if _, err := io.ReadFull(r, h[:7]); err != nil {
			return 0, err
		}
		_, err := io.CopyN(io.Discard, r, int64(binary.BigEndian.Uint32(h[3:7])))
		return 0, err
	}
	return 0, fmt.Errorf("server message type %d", h[0])
}
