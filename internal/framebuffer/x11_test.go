package framebuffer_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// x11Painter is the smallest X11 client that can put a picture on a
// display's root window: the connection setup, CreateGC, PutImage in
// strips, and GetInputFocus as a round trip. It stays connected until the
// test ends (its drawing is on the root window, which nothing covers).
type x11Painter struct {
	c          net.Conn
	root       uint32
	depth      byte
	maxReq     int // bytes
	idBase     uint32
	lsb        bool // the server's image byte order is LSBFirst
	rootW      int
	rootH      int
	bppOfDepth int
}

func dialX11(t *testing.T, display string) *x11Painter {
	t.Helper()
	c, err := net.Dial("unix", "/tmp/.X11-unix/X"+display)
	if err != nil {
		t.Fatalf("X11 display :%s: %v", display, err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	// little-endian ('l'), protocol 11.0, no authorization
	if _, err := c.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	var hdr [8]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		t.Fatalf("X11 setup: %v", err)
	}
	body := make([]byte, 4*int(binary.LittleEndian.Uint16(hdr[6:])))
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatalf("X11 setup: %v", err)
	}
	if hdr[0] != 1 {
		t.Fatalf("X11 setup refused: %q", body)
	}
	le := binary.LittleEndian
	p := &x11Painter{c: c, idBase: le.Uint32(body[4:]), maxReq: 4 * int(le.Uint16(body[18:])), lsb: body[22] == 0}
	vendor, nformats := int(le.Uint16(body[16:])), int(body[21])
	formats := body[32+(vendor+3)&^3:]
	screen := formats[8*nformats:]
	p.root, p.depth = le.Uint32(screen), screen[38]
	p.rootW, p.rootH = int(le.Uint16(screen[20:])), int(le.Uint16(screen[22:]))
	for i := range nformats {
		if f := formats[8*i:]; f[0] == p.depth {
			p.bppOfDepth = int(f[1])
		}
	}
	if p.depth != 24 || p.bppOfDepth != 32 || !p.lsb {
		t.Fatalf("X11 root of depth %d, %d bits a pixel, LSB first %v: the painter writes 24/32 LSB", p.depth, p.bppOfDepth, p.lsb)
	}
	return p
}

// paint puts the RGB picture rgb (w×h, 3 bytes a pixel) at (x, y) of the
// root window and waits until the server has done it.
func (p *x11Painter) paint(t *testing.T, rgb []byte, x, y, w, h int) {
	t.Helper()
	le := binary.LittleEndian
	gc := p.idBase | 1
	req := le.AppendUint16([]byte{55, 0}, 4) // CreateGC, no values
	req = le.AppendUint32(req, gc)
	req = le.AppendUint32(req, p.root)
	req = le.AppendUint32(req, 0)
	rows := max(1, (p.maxReq-24)/(4*w))
	for r0 := 0; r0 < h; r0 += rows {
		n := min(rows, h-r0)
		req = append(req, 72, 2) // PutImage, ZPixmap
		req = le.AppendUint16(req, uint16(6+w*n))
		req = le.AppendUint32(req, p.root)
		req = le.AppendUint32(req, gc)
		req = le.AppendUint16(req, uint16(w))
		req = le.AppendUint16(req, uint16(n))
		req = le.AppendUint16(req, uint16(x))
		req = le.AppendUint16(req, uint16(y+r0))
		req = append(req, 0, p.depth, 0, 0)
		for i := 3 * r0 * w; i < 3*(r0+n)*w; i += 3 {
			req = append(req, rgb[i+2], rgb[i+1], rgb[i], 0) // pixel 0x00RRGGBB, LSB first
		}
	}
	req = append(req, 60, 0, 2, 0) // FreeGC
	req = le.AppendUint32(req, gc)
	p.roundTrip(t, req)
}

// copyArea copies the w×h pixels at (sx, sy) of the root window to (dx, dy)
// (an X CopyArea, which Xvnc can send as CopyRect) and waits until done.
func (p *x11Painter) copyArea(t *testing.T, sx, sy, dx, dy, w, h int) {
	t.Helper()
	le := binary.LittleEndian
	gc := p.idBase | 2
	req := le.AppendUint16([]byte{55, 0}, 4) // CreateGC, no values
	req = le.AppendUint32(req, gc)
	req = le.AppendUint32(req, p.root)
	req = le.AppendUint32(req, 0)
	req = le.AppendUint16(append(req, 62, 0), 7) // CopyArea
	req = le.AppendUint32(req, p.root)
	req = le.AppendUint32(req, p.root)
	req = le.AppendUint32(req, gc)
	for _, v := range []int{sx, sy, dx, dy, w, h} {
		req = le.AppendUint16(req, uint16(v))
	}
	req = append(req, 60, 0, 2, 0) // FreeGC
	req = le.AppendUint32(req, gc)
	p.roundTrip(t, req)
}

// roundTrip sends req and GetInputFocus, and waits for the reply: all of
// req is then done. An X error fails t.
func (p *x11Painter) roundTrip(t *testing.T, req []byte) {
	t.Helper()
	req = append(req, 43, 0, 1, 0) // GetInputFocus
	if _, err := p.c.Write(req); err != nil {
		t.Fatalf("X11: %v", err)
	}
	var ev [32]byte
	for {
		if _, err := io.ReadFull(p.c, ev[:]); err != nil {
			t.Fatalf("X11: %v", err)
		}
		switch ev[0] {
		case 0:
			t.Fatalf("X11 error %d (major opcode %d, value 0x%x)", ev[1], ev[10], binary.LittleEndian.Uint32(ev[4:]))
		case 1: // the reply (GetInputFocus has no extra data)
			return
		}
	}
}

func (p *x11Painter) String() string {
	return fmt.Sprintf("X11 root 0x%x %dx%d", p.root, p.rootW, p.rootH)
}
