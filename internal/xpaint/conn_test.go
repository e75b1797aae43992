package xpaint

import (
	"encoding/binary"
	"errors"
	"net"
	"testing"
)

// setupReply is a well-formed setup reply: one screen of w×h with root
// window 0x100, depth depth at bpp bits a pixel, image byte order order.
func setupReply(w, h int, depth, bpp, order byte) ([8]byte, []byte) {
	le := binary.LittleEndian
	vendor := []byte("test")
	body := make([]byte, 32)
	le.PutUint32(body[4:], 0x400000) // id base
	le.PutUint16(body[16:], uint16(len(vendor)))
	le.PutUint16(body[18:], 65535) // max request length, in 4-byte units
	body[20], body[21], body[22] = 1, 1, order
	body = append(body, vendor...)
	body = append(body, depth, bpp, 32, 0, 0, 0, 0, 0) // the one format
	screen := make([]byte, 40)
	le.PutUint32(screen, 0x100)
	le.PutUint16(screen[20:], uint16(w))
	le.PutUint16(screen[22:], uint16(h))
	screen[38] = depth
	body = append(body, screen...)
	var hdr [8]byte
	hdr[0] = 1
	le.PutUint16(hdr[6:], uint16(len(body)/4))
	return hdr, body
}

func TestParseSetup(t *testing.T) {
	hdr, body := setupReply(640, 480, 24, 32, 0)
	x, err := parseSetup(hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	if x.width != 640 || x.height != 480 || x.root != 0x100 || x.gc != 0x400001 || x.maxReq != 4*65535 {
		t.Fatalf("parsed %+v", x)
	}
	for name, mod := range map[string]func(h *[8]byte, b []byte) []byte{
		"refused":     func(h *[8]byte, b []byte) []byte { h[0], h[1] = 0, 4; return b },
		"short":       func(h *[8]byte, b []byte) []byte { return b[:20] },
		"no screen":   func(h *[8]byte, b []byte) []byte { b[20] = 0; return b },
		"depth 16":    func(h *[8]byte, b []byte) []byte { b[len(b)-2] = 16; return b },
		"MSB first":   func(h *[8]byte, b []byte) []byte { b[22] = 1; return b },
		"tiny maxreq": func(h *[8]byte, b []byte) []byte { b[18], b[19] = 100, 0; return b },
		"truncated":   func(h *[8]byte, b []byte) []byte { return b[:len(b)-1] },
	} {
		h, b := setupReply(640, 480, 24, 32, 0)
		if _, err := parseSetup(h, mod(&h, b)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzParseSetup(f *testing.F) {
	hdr, body := setupReply(640, 480, 24, 32, 0)
	f.Add(hdr[:], body)
	f.Add([]byte{0, 3, 0, 0, 0, 0, 1, 0}, []byte("no!!"))
	f.Fuzz(func(t *testing.T, h, b []byte) {
		var hdr [8]byte
		copy(hdr[:], h)
		x, err := parseSetup(hdr, b)
		if err == nil && (x.width < 0 || x.maxReq < 4096) {
			t.Fatalf("accepted %+v", x)
		}
	})
}

// TestSyncReportsError: an X error the server sends for a queued request
// is Sync's error, with its code and opcode, and events are skipped.
func TestSyncReportsError(t *testing.T) {
	c, s := net.Pipe()
	defer c.Close()
	hdr, body := setupReply(640, 480, 24, 32, 0)
	x, err := parseSetup(hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	x.c = c
	go func() {
		defer s.Close()
		buf := make([]byte, 4096)
		s.Read(buf)
		var ev, e, reply [32]byte
		ev[0] = 14 // NoExposure, an event
		e[0], e[1], e[10] = 0, 8, opCopyArea
		reply[0] = 1
		s.Write(ev[:])
		s.Write(e[:])
		s.Write(reply[:])
	}()
	x.CopyArea(0, 0, 1, 1, 5, 5)
	err = x.Sync()
	var xe *Error
	if !errors.As(err, &xe) || xe.Code != 8 || xe.Major != opCopyArea || !errors.Is(err, ErrX11) {
		t.Fatalf("Sync: %v, want X error 8 for CopyArea", err)
	}
	t.Log(err)
	if err := x.Sync(); err == nil {
		t.Fatal("Sync after the server closed: no error")
	}
}
