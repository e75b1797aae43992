package support

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/klauspost/compress/zlib"
	"github.com/wirebench/wirebench/internal/rfb"
	"github.com/wirebench/wirebench/rfbgate"
)

// RFB client-to-server streams for the gate benchmarks, and a synthetic RFB
// server for the relay benchmarks. Everything is seeded: the same seed gives
// the same bytes.

// RFBStreamKinds names the client streams RFBClientStream makes.
var RFBStreamKinds = []string{"typing", "pointer_drag", "mixed"}

// RFBStream is a client-to-server byte stream and how it is cut into the
// chunks a WebSocket delivers (noVNC flushes per message, sometimes several).
type RFBStream struct {
	Kind     string
	Bytes    []byte
	Chunks   []int // chunk lengths, summing to len(Bytes)
	Messages int
}

// noVNCEncodings is the SetEncodings list noVNC 1.7 sends to a TigerVNC
// server (Tight, TightPNG, ZRLE, JPEG, Hextile, RRE, Zlib, Raw, quality,
// compression, DesktopSize, LastRect, QEMU key, QEMU LED, ExtendedDesktopSize,
// xvp, fence, continuous updates, desktop name, extended clipboard,
// extended mouse buttons, VMware cursor, cursor).
var noVNCEncodings = []int32{1, 7, -260, 16, 21, 5, 2, 6, 0, -26, -247, -223, -224, -258, -261, -308, -309, -312, -313, -307, int32(-0x3F5E1A32), -316, 0x574d5664, -239}

// RFBClientStream returns n seeded client messages of the given kind:
// "typing" (QEMU extended key events with some Shift and requests),
// "pointer_drag" (pointer events with a button held, requests), or "mixed"
// (every message type the gate relays).
func RFBClientStream(kind string, seed uint64, n int) (RFBStream, error) {
	r := rand.New(rand.NewPCG(seed, 0x7262))
	s := RFBStream{Kind: kind}
	var b []byte
	x, y := uint16(400), uint16(300)
	for i := 0; i < n; i++ {
		switch kind {
		case "typing":
			switch {
			case i%10 == 9:
				b = rfbFBUR(b, r)
			case i%2 == 0:
				b = rfbQEMUKey(b, true, 0x61+uint32(i/2%26), 30+uint32(i/2%26))
			default:
				b = rfbQEMUKey(b, false, 0x61+uint32(i/2%26), 30+uint32(i/2%26))
			}
		case "pointer_drag":
			if i%8 == 7 {
				b = rfbFBUR(b, r)
				break
			}
			x += uint16(r.IntN(7)) - 3
			y += uint16(r.IntN(7)) - 3
			mask := byte(1)
			if i%64 == 63 {
				mask = 0
			}
			b = append(b, rfb.MsgPointerEvent, mask)
			b = binary.BigEndian.AppendUint16(b, x)
			b = binary.BigEndian.AppendUint16(b, y)
		case "mixed":
			b = rfbMixed(b, r, i)
		default:
			return RFBStream{}, fmt.Errorf("support: unknown RFB stream kind %q (want one of %v)", kind, RFBStreamKinds)
		}
		s.Messages++
	}
	s.Bytes = b
	// Chunks: mostly one message's worth, sometimes a few bytes, sometimes
	// several messages together, as noVNC's send queue flushes.
	for left := len(b); left > 0; {
		c := 8 + r.IntN(8)
		switch r.IntN(8) {
		case 0:
			c = 1 + r.IntN(4)
		case 1:
			c = 32 + r.IntN(256)
		}
		c = min(c, left)
		s.Chunks = append(s.Chunks, c)
		left -= c
	}
	return s, nil
}

func rfbFBUR(b []byte, r *rand.Rand) []byte {
	b = append(b, rfb.MsgFramebufferUpdateRequest, 1)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint16(b, 1440)
	return binary.BigEndian.AppendUint16(b, 900)
}

func rfbQEMUKey(b []byte, down bool, keysym, keycode uint32) []byte {
	d := uint16(0)
	if down {
		d = 1
	}
	b = append(b, rfb.MsgQEMU, rfb.QEMUExtendedKeyEvent)
	b = binary.BigEndian.AppendUint16(b, d)
	b = binary.BigEndian.AppendUint32(b, keysym)
	return binary.BigEndian.AppendUint32(b, keycode)
}

func rfbMixed(b []byte, r *rand.Rand, i int) []byte {
	switch r.IntN(16) {
	case 0:
		b = append(b, rfb.MsgSetEncodings, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(len(noVNCEncodings)))
		for _, e := range noVNCEncodings {
			b = binary.BigEndian.AppendUint32(b, uint32(e))
		}
	case 1:
		b = append(b, rfb.MsgSetPixelFormat, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0)
	case 2, 3:
		b = rfbFBUR(b, r)
	case 4, 5, 6:
		b = rfbQEMUKey(b, i%2 == 0, 0x61, 30)
	case 7:
		b = append(b, rfb.MsgKeyEvent, byte(i%2), 0, 0)
		b = binary.BigEndian.AppendUint32(b, 0xffe1)
	case 8, 9, 10:
		b = append(b, rfb.MsgPointerEvent, byte(r.IntN(2)))
		b = binary.BigEndian.AppendUint32(b, r.Uint32())
	case 11: // extended clipboard: caps or a short provide
		l := 4 + r.IntN(60)
		b = append(b, rfb.MsgClientCutText, 0, 0, 0)
		b = binary.BigEndian.AppendUint32(b, uint32(-int32(l)))
		b = binary.BigEndian.AppendUint32(b, 1<<24|1)
		for j := 4; j < l; j++ {
			b = append(b, byte('a'+j%26))
		}
	case 12:
		b = append(b, rfb.MsgEnableContinuousUpdates, 1, 0, 0, 0, 0, 5, 160, 3, 132)
	case 13, 14:
		b = append(b, rfb.MsgClientFence, 0, 0, 0)
		b = binary.BigEndian.AppendUint32(b, 0x80000007)
		b = append(b, 4, 1, 2, 3, 4)
	default:
		b = append(b, rfb.MsgSetDesktopSize, 0, 5, 160, 3, 132, 1, 0)
		b = binary.BigEndian.AppendUint32(b, 0)
		b = append(b, 0, 0, 0, 0, 5, 160, 3, 132)
		b = binary.BigEndian.AppendUint32(b, 0)
	}
	return b
}

// RFBFramebufferUpdates returns at least size bytes of seeded server-to-
// client FramebufferUpdate messages for a 32-bpp depth-24 client: 64x64
// rectangles in ZRLE (one zlib stream, flushed per rectangle as a server
// does), their tiles a mix of solid, packed-palette and raw.
func RFBFramebufferUpdates(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x7a726c65))
	var out, raw bytes.Buffer
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	for out.Len() < size {
		const rects = 16
		out.Write([]byte{0, 0, 0, rects})
		for i := 0; i < rects; i++ {
			raw.Reset()
			switch r.IntN(3) {
			case 0: // solid tile
				raw.Write([]byte{1, byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32())})
			case 1: // packed palette of 4 colours, 2 bits a pixel
				raw.WriteByte(4)
				for c := 0; c < 4*3; c++ {
					raw.WriteByte(byte(r.Uint32()))
				}
				for p := 0; p < 64*64/4; p++ {
					raw.WriteByte(byte(r.Uint32() & r.Uint32()))
				}
			default: // raw CPIXELs: a gradient with noise, like text on a page
				raw.WriteByte(0)
				for p := 0; p < 64*64; p++ {
					v := byte(p/64*4) ^ byte(r.IntN(4))
					raw.Write([]byte{v, v, v})
				}
			}
			z.Reset()
			zw.Write(raw.Bytes())
			zw.Flush()
			var h [16]byte
			binary.BigEndian.PutUint16(h[0:], uint16(i%16*64))
			binary.BigEndian.PutUint16(h[2:], uint16(i/16*64))
			binary.BigEndian.PutUint16(h[4:], 64)
			binary.BigEndian.PutUint16(h[6:], 64)
			binary.BigEndian.PutUint32(h[8:], 16) // ZRLE
			binary.BigEndian.PutUint32(h[12:], uint32(z.Len()))
			out.Write(h[:])
			out.Write(z.Bytes())
		}
	}
	return out.Bytes()
}

// RFBServer is a synthetic RFB 3.8 server on loopback: it offers security
// types [19, 2], checks VNC authentication, sends ServerInit and then the
// payload over and over in 64 KiB writes until the client goes.
type RFBServer struct {
	ln      net.Listener
	pw      rfbgate.Secret
	payload []byte
	wg      sync.WaitGroup
}

// NewRFBServer listens on 127.0.0.1 and serves every connection.
func NewRFBServer(password string, payload []byte) (*RFBServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &RFBServer{ln: ln, pw: rfbgate.NewSecret(password), payload: payload}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the server's host:port.
func (s *RFBServer) Addr() string { return s.ln.Addr().String() }

// Close stops listening and waits for open connections to end.
func (s *RFBServer) Close() {
	s.ln.Close()
	s.wg.Wait()
}

func (s *RFBServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.serve(c)
		}()
	}
}

func (s *RFBServer) serve(c net.Conn) {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("RFB 003.008\n"))
	if _, err := io.ReadFull(c, make([]byte, 12)); err != nil {
		return
	}
	c.Write([]byte{2, 19, rfb.SecurityVNCAuth})
	var t [1]byte
	if _, err := io.ReadFull(c, t[:]); err != nil || t[0] != rfb.SecurityVNCAuth {
		return
	}
	ch := [16]byte{'w', 'i', 'r', 'e', 'b', 'e', 'n', 'c', 'h', '-', 'r', 'f', 'b', '-', '0', '1'}
	c.Write(ch[:])
	var resp [16]byte
	if _, err := io.ReadFull(c, resp[:]); err != nil {
		return
	}
	if resp != rfbgate.VNCAuthResponse(s.pw, ch) {
		c.Write([]byte{0, 0, 0, 1, 0, 0, 0, 22})
		c.Write([]byte("Authentication failure"))
		return
	}
	c.Write([]byte{0, 0, 0, 0})
	if _, err := io.ReadFull(c, t[:]); err != nil { // ClientInit
		return
	}
	init := []byte{5, 160, 3, 132, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0, 0, 0, 0, 9}
	c.Write(append(init, "synthetic"...))
	c.SetDeadline(time.Time{})
	go io.Copy(io.Discard, c) // client messages; ends when c closes
	for {
		for off := 0; off < len(s.payload); off += 64 << 10 {
			end := min(off+64<<10, len(s.payload))
			if _, err := c.Write(s.payload[off:end]); err != nil {
				return
			}
		}
	}
}
