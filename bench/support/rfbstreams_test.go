package support

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/klauspost/compress/zlib"
	"github.com/wirebench/wirebench/rfbgate"
)

func TestRFBClientStreams(t *testing.T) {
	for _, kind := range RFBStreamKinds {
		a, err := RFBClientStream(kind, 1, 5000)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := RFBClientStream(kind, 1, 5000)
		c, _ := RFBClientStream(kind, 2, 5000)
		if !bytes.Equal(a.Bytes, b.Bytes) || bytes.Equal(a.Bytes, c.Bytes) && kind != "typing" {
			t.Fatalf("%s: not seeded", kind)
		}
		sum := 0
		for _, n := range a.Chunks {
			sum += n
		}
		if sum != len(a.Bytes) || a.Messages != 5000 {
			t.Fatalf("%s: chunks sum to %d of %d bytes; %d messages", kind, sum, len(a.Bytes), a.Messages)
		}
		// Every stream is valid for the gate, for a holder and for a watcher.
		for _, kbd := range []bool{true, false} {
			g := rfbgate.NewGate(rfbgate.Limits{})
			g.SetKeyboard(kbd)
			var out []byte
			off := 0
			for _, n := range a.Chunks {
				if out, err = g.Feed(out[:0], a.Bytes[off:off+n]); err != nil {
					t.Fatalf("%s kbd=%v: %v", kind, kbd, err)
				}
				off += n
			}
			if st := g.Stats(); st.Messages != 5000 {
				t.Fatalf("%s: gate read %d messages", kind, st.Messages)
			}
		}
	}
	if _, err := RFBClientStream("nope", 1, 1); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestRFBFramebufferUpdates(t *testing.T) {
	b := RFBFramebufferUpdates(3, 1<<20)
	if len(b) < 1<<20 || !bytes.Equal(b, RFBFramebufferUpdates(3, 1<<20)) {
		t.Fatalf("%d bytes, or not seeded", len(b))
	}
	// Parse it as a client would: FramebufferUpdate, ZRLE rectangles, one
	// zlib stream across them.
	var zdata bytes.Buffer
	var zr io.ReadCloser
	rects := 0
	for off := 0; off < len(b); {
		if b[off] != 0 {
			t.Fatalf("byte %d: message type %d", off, b[off])
		}
		n := int(binary.BigEndian.Uint16(b[off+2:]))
		off += 4
		for i := 0; i < n; i++ {
			if enc := int32(binary.BigEndian.Uint32(b[off+8:])); enc != 16 {
				t.Fatalf("encoding %d", enc)
			}
			l := int(binary.BigEndian.Uint32(b[off+12:]))
			off += 16
			zdata.Write(b[off : off+l])
			off += l
			if zr == nil {
				var err error
				if zr, err = zlib.NewReader(&zdata); err != nil {
					t.Fatal(err)
				}
			}
			var sub [1]byte
			if _, err := io.ReadFull(zr, sub[:]); err != nil {
				t.Fatalf("rect %d: %v", rects, err)
			}
			want := map[byte]int{1: 3, 4: 12 + 1024, 0: 64 * 64 * 3}[sub[0]]
			if _, err := io.ReadFull(zr, make([]byte, want)); err != nil {
				t.Fatalf("rect %d (subencoding %d): %v", rects, sub[0], err)
			}
			rects++
		}
	}
	if rects < 100 {
		t.Fatalf("%d rectangles", rects)
	}
}

func TestRFBServer(t *testing.T) {
	payload := RFBFramebufferUpdates(1, 200<<10)
	s, err := NewRFBServer("pw", payload)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	init, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret("pw"))
	if err != nil || init.Name != "synthetic" || init.Width != 1440 {
		t.Fatalf("%+v %v", init, err)
	}
	got := make([]byte, 2*len(payload))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got[:len(payload)], payload) || !bytes.Equal(got[len(payload):], payload) {
		t.Fatalf("payload twice: %v", err)
	}
	c.Close()

	c, _ = net.Dial("tcp", s.Addr())
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret("wrong")); !errors.Is(err, rfbgate.ErrAuthFailed) {
		t.Fatalf("wrong password: %v", err)
	}
}
