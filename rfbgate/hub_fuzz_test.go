package rfbgate

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// discardConn stands for the hub's connection to Xvnc in tests that feed
// its stream from elsewhere: what the hub writes (update requests) is
// dropped.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error)      { return len(p), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
func (discardConn) Close() error                     { return nil }

// hubLimits keeps fuzzed desktops small.
var hubLimits = framebuffer.Limits{MaxWidth: 256, MaxHeight: 256, MaxJPEG: 64 << 10}

// streamHub is a hub with one in-step viewer whose queue takes everything,
// fed a server stream by consume.
func streamHub(t testing.TB, w, h int) (*hub, *shareViewer) {
	fb, err := framebuffer.New(w, h, framebuffer.NoVNCFormat)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := framebuffer.NewEncoder(1)
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	hb := &hub{r: r, log: r.log, conn: discardConn{}, fb: fb, enc: enc, primed: make(chan struct{}), viewers: map[*shareViewer]struct{}{},
		tiles: newTileCache()}
	hb.clip = clipTap{r: r, agent: "a", limit: DefaultMaxCutText}
	hb.resetGridLocked()
	v := &viewer{r: r, gate: NewGate(Limits{})}
	sv := newShareViewer(v, hb, w, h)
	sv.private, sv.synced, sv.start, sv.want, sv.cls = false, true, true, classLossless, classLossless
	sv.fit(hb.grid.n())
	for i := range sv.has {
		sv.has[i] = hb.version
	}
	hb.viewers[sv] = struct{}{}
	return hb, sv
}

// replay decodes what the hub queued for sv into a fresh framebuffer of
// w×h, as a viewer that joined at the start would.
func replay(t testing.TB, sv *shareViewer, w, h int) *framebuffer.Framebuffer {
	fb, err := framebuffer.New(w, h, framebuffer.NoVNCFormat)
	if err != nil {
		t.Fatal(err)
	}
	var log []byte
	for _, it := range sv.q {
		log = append(log, it.b...)
	}
	d := framebuffer.NewDecoder(bytes.NewReader(log), fb, hubLimits)
	for {
		if _, err := d.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the shared log does not decode: %v", err)
		}
	}
	return fb
}

// FuzzHubLog: whatever server stream the hub is fed, it keeps at most
// captureMax bytes of it, the shared updates it published decode, and when
// the stream ends between messages a viewer that decoded them (and nothing
// of Xvnc's own stream) has the hub's framebuffer, pixel for pixel: the
// shared log carries no state from Xvnc's zlib streams.
func FuzzHubLog(f *testing.F) {
	for _, s := range hubSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		const w, h = 64, 48
		hb, sv := streamHub(t, w, h)
		sv.qbytes = -1 << 40 // takes everything: this test is about the bytes, not the bound
		err := hb.consume(bytes.NewReader(stream), func() error { return nil }, hubLimits)
		if err == nil {
			t.Fatal("consume returned without an error")
		}
		if len(hb.tee.buf) > captureMax {
			t.Fatalf("the hub keeps %d bytes of its stream, bound %d", len(hb.tee.buf), captureMax)
		}
		got := replay(t, sv, w, h) // decodes, whatever the stream was
		if err != io.EOF {
			return // the hub stops there: its last update was never published
		}
		if got.Width() != hb.fb.Width() || got.Height() != hb.fb.Height() {
			t.Fatalf("viewer's screen %dx%d, hub's %dx%d", got.Width(), got.Height(), hb.fb.Width(), hb.fb.Height())
		}
		if i := firstDiff(got, hb.fb); i >= 0 {
			t.Fatalf("the viewer's screen differs from the hub's at pixel %d", i)
		}
	})
}

// TestHubLogFromZlibStreams: an update log whose rectangles lean on
// ZRLE's and Tight's zlib streams (the second rectangle of each refers to
// the first's) decodes, shared, into the hub's framebuffer.
func TestHubLogFromZlibStreams(t *testing.T) {
	for i, s := range hubSeeds() {
		hb, sv := streamHub(t, 64, 48)
		if err := hb.consume(bytes.NewReader(s), func() error { return nil }, hubLimits); err != io.EOF {
			t.Fatalf("seed %d: %v", i, err)
		}
		if len(sv.q) == 0 {
			t.Fatalf("seed %d: nothing published", i)
		}
		got := replay(t, sv, 64, 48)
		if p := firstDiff(got, hb.fb); p >= 0 {
			t.Fatalf("seed %d: the viewer's screen differs from the hub's at pixel %d", i, p)
		}
		if bytes.Count(hb.fb.Pix(), []byte{0}) == len(hb.fb.Pix()) {
			t.Fatalf("seed %d: painted nothing", i)
		}
	}
}

// firstDiff is the index of the first pixel whose red, green or blue
// differs between a and b (of the same size), or -1 (the fourth byte is
// padding, which Raw rectangles carry as the server sent it).
func firstDiff(a, b *framebuffer.Framebuffer) int {
	pa, pb := a.Pix(), b.Pix()
	for i := 0; i+3 < 4*a.Width()*a.Height(); i += 4 {
		if pa[i] != pb[i] || pa[i+1] != pb[i+1] || pa[i+2] != pb[i+2] {
			return i / 4
		}
	}
	return -1
}

// hubSeeds are server streams (after ServerInit) that paint a 64×48
// screen: Raw, CopyRect, ZRLE on one zlib stream across two updates, and
// Tight on stream 1 across two rectangles without a reset, with a bell and
// a cut text between.
func hubSeeds() [][]byte {
	rect := func(x, y, w, h int, enc rfb.Encoding) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(x))
		b = binary.BigEndian.AppendUint16(b, uint16(y))
		b = binary.BigEndian.AppendUint16(b, uint16(w))
		b = binary.BigEndian.AppendUint16(b, uint16(h))
		return binary.BigEndian.AppendUint32(b, uint32(enc))
	}
	update := func(n int, rects ...[]byte) []byte {
		b := []byte{0, 0, byte(n >> 8), byte(n)}
		for _, r := range rects {
			b = append(b, r...)
		}
		return b
	}
	pix := func(w, h, bpp int, seed byte) []byte {
		p := make([]byte, w*h*bpp)
		for i := range p {
			p[i] = byte(i*7) ^ seed
			if bpp == 4 && i%4 == 3 {
				p[i] = 0
			}
		}
		return p
	}
	// Raw, then CopyRect.
	raw := update(2, append(rect(0, 0, 64, 48, rfb.EncodingRaw), pix(64, 48, 4, 1)...), append(rect(10, 10, 20, 20, rfb.EncodingCopyRect), 0, 0, 0, 0))
	// ZRLE: two updates of one raw tile each, on one zlib stream.
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	zrle := func(x, y, w, h int, seed byte) []byte {
		zb.Reset()
		zw.Write(append([]byte{0}, pix(w, h, 3, seed)...))
		zw.Flush()
		b := rect(x, y, w, h, rfb.EncodingZRLE)
		b = binary.BigEndian.AppendUint32(b, uint32(zb.Len()))
		return append(b, zb.Bytes()...)
	}
	z := append(update(1, zrle(0, 0, 64, 48, 3)), update(1, zrle(8, 8, 16, 16, 9))...)
	z = append(z, rfb.MsgBell)
	z = append(z, rfb.MsgServerCutText, 0, 0, 0, 0, 0, 0, 5)
	z = append(z, "hello"...)
	// Tight basic on stream 1, copy filter, no reset between the two.
	var tb bytes.Buffer
	tw := zlib.NewWriter(&tb)
	tight := func(x, y, w, h int, seed byte) []byte {
		tb.Reset()
		tw.Write(pix(w, h, 3, seed))
		tw.Flush()
		data := tb.Bytes()                                     // the second rectangle's goes on with the first's stream
		b := append(rect(x, y, w, h, rfb.EncodingTight), 1<<4) // stream 1, no reset, copy
		n := len(data)
		switch {
		case n <= 0x7f:
			b = append(b, byte(n))
		case n <= 0x3fff:
			b = append(b, byte(n)|0x80, byte(n>>7))
		default:
			b = append(b, byte(n)|0x80, byte(n>>7)|0x80, byte(n>>14))
		}
		return append(b, data...)
	}
	tt := update(2, tight(0, 0, 64, 24, 5), tight(0, 24, 64, 24, 6))
	return [][]byte{raw, z, tt}
}
