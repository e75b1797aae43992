package workload

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/rfbgate"
)

func get(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestServes: the page carries its parts, the photo decodes at its size,
// the beacons count, anything else is 404.
func TestServes(t *testing.T) {
	s, url := Serve(t)
	resp, body := get(t, "GET", url+"/")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, part := range []string{`id="key"`, `id="spin"`, `src="/photo.png"`, `addEventListener("keydown"`, "scrollTo", Palette[0], "Section 12"} {
		if !bytes.Contains(body, []byte(part)) {
			t.Errorf("the page lacks %q", part)
		}
	}
	resp, body = get(t, "GET", url+"/photo.png")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("photo: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the photo does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != PhotoWidth || b.Dy() != PhotoHeight {
		t.Fatalf("photo %v, want %dx%d", b, PhotoWidth, PhotoHeight)
	}
	if n := len(body); n < PhotoWidth*PhotoHeight {
		t.Fatalf("the photo compresses to %d bytes: not photo-like (noisy) enough", n)
	}
	select {
	case <-s.Ready():
		t.Fatal("ready before the page said so")
	default:
	}
	get(t, "POST", url+"/key")
	get(t, "POST", url+"/key")
	get(t, "POST", url+"/ready")
	get(t, "POST", url+"/ready")
	select {
	case <-s.Ready():
	default:
		t.Fatal("not ready after POST /ready")
	}
	if s.Keys() != 2 {
		t.Fatalf("keys %d, want 2", s.Keys())
	}
	for _, r := range [][2]string{{"GET", "/nothing"}, {"POST", "/"}, {"GET", "/key"}} {
		if resp, _ := get(t, r[0], url+r[1]); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", r[0], r[1], resp.StatusCode)
		}
	}
}

// TestDeterministic: two servers serve the same bytes.
func TestDeterministic(t *testing.T) {
	a, b := page(), page()
	if a != b {
		t.Fatal("the page differs between two renderings")
	}
	p1, _ := photoPNG()
	p2, _ := photoPNG()
	if !bytes.Equal(p1, p2) {
		t.Fatal("the photo differs between two renderings")
	}
}

// TestWindowInXvnc: the real peers. The workload window in a real Xvnc
// shows the key square at KeySpot in Palette[0]; a key sent over RFB
// reaches the page (focused, no window manager), which counts it and turns
// the square to Palette[1].
func TestWindowInXvnc(t *testing.T) {
	const pw = "workload-pw"
	x := peertest.StartXvnc(t, pw, "-geometry", "640x480", "-depth", "24")
	w := Open(t, x.Display, 640, 480)
	c, err := net.Dial("tcp", x.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret(pw)); err != nil {
		t.Fatal(err)
	}
	// 32 bits, depth 24, little-endian true colour, red at bit 16: B G R X.
	pf := []byte{0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
	c.Write(append(pf, 2, 0, 0, 1, 0, 0, 0, 0)) // SetEncodings: Raw
	r := bufio.NewReader(c)
	kx, ky := KeySpot()
	pixel := func() string {
		c.Write([]byte{3, 0, byte(kx >> 8), byte(kx), byte(ky >> 8), byte(ky), 0, 1, 0, 1})
		for {
			var h [16]byte
			if _, err := io.ReadFull(r, h[:4]); err != nil {
				t.Fatal(err)
			}
			if h[0] != 0 {
				t.Fatalf("server message %d", h[0])
			}
			var px string
			for range binary.BigEndian.Uint16(h[2:4]) {
				if _, err := io.ReadFull(r, h[:12]); err != nil {
					t.Fatal(err)
				}
				n := int64(binary.BigEndian.Uint16(h[4:6])) * int64(binary.BigEndian.Uint16(h[6:8])) * 4
				body := make([]byte, n)
				if _, err := io.ReadFull(r, body); err != nil {
					t.Fatal(err)
				}
				if n == 4 {
					px = fmt.Sprintf("#%02x%02x%02x", body[2], body[1], body[0])
				}
			}
			if px != "" {
				return px
			}
		}
	}
	want := func(colour string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if got = pixel(); got == colour {
				return
			}
		}
		t.Fatalf("the key spot (%d,%d) shows %s, want %s; chromium:\n%s", kx, ky, got, colour, w.Chrome.Log())
	}
	want(Palette[0])
	c.Write([]byte{4, 1, 0, 0, 0, 0, 0, 'a', 4, 0, 0, 0, 0, 0, 0, 'a'}) // KeyEvent a down, up
	want(Palette[1])
	for deadline := time.Now().Add(10 * time.Second); w.Keys() != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page counted %d keys, want 1", w.Keys())
		}
	}
}

// TestPaletteNeighboursFar: each colour and the next (cyclically) differ
// by at least 0x100 summed over the channels, well past ChangedAt.
func TestPaletteNeighboursFar(t *testing.T) {
	rgb := func(s string) (c [3]int) {
		if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &c[0], &c[1], &c[2]); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return c
	}
	for i, s := range Palette {
		next := Palette[(i+1)%len(Palette)]
		a, b := rgb(s), rgb(next)
		d := 0
		for k := range a {
			d += max(a[k]-b[k], b[k]-a[k])
		}
		if d < 0x100 || d < 2*ChangedAt {
			t.Errorf("%s and %s differ by %#x", s, next, d)
		}
	}
}
