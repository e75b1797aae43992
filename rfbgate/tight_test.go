package rfbgate

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Pixel formats of every TPIXEL size (pf32, 3 bytes, is in serverstream_test.go).
var (
	pf16    = []byte{16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0}     // TPIXEL 2
	pf8     = []byte{8, 8, 0, 1, 0, 7, 0, 7, 0, 3, 0, 3, 6, 0, 0, 0}           // TPIXEL 1
	pf32x10 = []byte{32, 30, 0, 1, 3, 255, 3, 255, 3, 255, 20, 10, 0, 0, 0, 0} // 10 bits a colour: TPIXEL 4
	pf32map = []byte{32, 24, 0, 0, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}  // colour map: TPIXEL 4
	pf32odd = []byte{32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 4, 12, 20, 0, 0, 0} // 8-bit colours off byte boundaries
	pf32bgr = []byte{32, 24, 1, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0}  // big endian, BGR: TPIXEL 3
	pf16x   = []byte{16, 15, 0, 1, 0, 31, 0, 31, 0, 31, 10, 5, 0, 0, 0, 0}     // 555: TPIXEL 2
	pfSizes = []struct {
		name      string
		pf        []byte
		bpp, tpix int
	}{{"32/24 888", pf32, 4, 3}, {"32/24 BGR big endian", pf32bgr, 4, 3}, {"32/30", pf32x10, 4, 4}, {"32 colour map", pf32map, 4, 4},
		{"16/16", pf16, 2, 2}, {"16/15", pf16x, 2, 2}, {"8/8", pf8, 1, 1}}
)

// compact is Tight's compact length of n (1 to 3 bytes).
func compact(n int) []byte {
	switch {
	case n < 1<<7:
		return []byte{byte(n)}
	case n < 1<<14:
		return []byte{byte(n) | 0x80, byte(n >> 7)}
	}
	return []byte{byte(n) | 0x80, byte(n>>7) | 0x80, byte(n >> 14)}
}

// tightSize is the size of a basic rectangle's data before compression,
// spelled out from the spec as a reference for the filter's rule.
func tightSize(w, h, tpixel, colours int) int {
	switch {
	case colours == 0:
		return w * h * tpixel
	case colours <= 2:
		return (w + 7) / 8 * h
	}
	return w * h
}

// tightPixels appends the pixel data of a basic rectangle of n bytes
// before compression: as they are under 12 bytes, else a compact length
// and clen bytes.
func tightPixels(b []byte, n, clen int) []byte {
	if n < 12 {
		return append(b, bytes.Repeat([]byte{0x85}, n)...) // 0x85 would read as a 2-byte length
	}
	return append(append(b, compact(clen)...), bytes.Repeat([]byte{0xc3}, clen)...)
}

// genTight returns a random well-formed Tight rectangle of w×h for a pixel
// format of TPIXEL size tpix and bpp bytes per pixel, and its kind.
func genTight(r *rand.Rand, w, h, tpix, bpp int) ([]byte, rfb.Kind) {
	b := srvRect(uint16(r.IntN(100)), 0, uint16(w), uint16(h), rfb.EncodingTight)
	reset := byte(r.IntN(16))
	stream := byte(r.IntN(4)) << 4
	clen := r.IntN(300)
	if r.IntN(25) == 0 {
		clen = 1<<14 + r.IntN(100) // a 3-byte length
	}
	pay := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		return p
	}
	switch r.IntN(6) {
	case 0:
		return append(append(b, 0x80|reset), pay(tpix)...), rfb.KindTightFill
	case 1:
		return append(append(append(b, 0x90|reset), compact(clen)...), pay(clen)...), rfb.KindTightJPEG
	case 2: // copy, implicit
		return tightPixels(append(b, stream|reset), tightSize(w, h, tpix, 0), clen), rfb.KindTightCopy
	case 3:
		return tightPixels(append(b, 0x40|stream|reset, rfb.TightFilterCopy), tightSize(w, h, tpix, 0), clen), rfb.KindTightCopy
	case 4:
		colours := 1 + r.IntN(4)
		if r.IntN(4) == 0 {
			colours = 1 + r.IntN(256)
		}
		b = append(append(b, 0x40|stream|reset, rfb.TightFilterPalette, byte(colours-1)), pay(colours*tpix)...)
		return tightPixels(b, tightSize(w, h, tpix, colours), clen), rfb.KindTightPalette
	}
	if bpp == 1 { // no gradient at 8 bits per pixel
		return tightPixels(append(b, 0x40|stream|reset, rfb.TightFilterCopy), tightSize(w, h, tpix, 0), clen), rfb.KindTightCopy
	}
	return tightPixels(append(b, 0x40|stream|reset, rfb.TightFilterGradient), tightSize(w, h, tpix, 0), clen), rfb.KindTightGradient
}

func newFilterPF(t testing.TB, pf []byte, holder bool) *serverFilter {
	f, err := newServerFilter(pf, func() bool { return holder })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// everySplit feeds in to a fresh filter in two reads split at every byte,
// and one byte at a time, and checks the output is want each time.
func everySplit(t *testing.T, pf []byte, holder bool, in, want []byte) {
	t.Helper()
	for at := 0; at <= len(in); at++ {
		f := newFilterPF(t, pf, holder)
		reads := []int{at, len(in) - at}
		got, err := serverFeed(f, in, func() int { n := reads[0]; reads = append(reads[1:], len(in)); return max(n, 1) })
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("holder=%v, split at %d of %d: %v\n got %x\nwant %x", holder, at, len(in), err, got, want)
		}
	}
	if got, err := serverFeed(newFilterPF(t, pf, holder), in, whole(1)); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("holder=%v, a byte a read: %v", holder, err)
	}
}

// TestTightSubEncodings: one rectangle of every sub-encoding, in every
// pixel format's TPIXEL size, framed whatever the read sizes: the holder
// gets it unchanged, a watcher too, without the cut text after it (so the
// rectangle ended exactly where the spec says), and it is counted by kind.
func TestTightSubEncodings(t *testing.T) {
	for _, p := range pfSizes {
		tp := p.tpix
		for _, c := range []struct {
			name string
			rect []byte
			kind rfb.Kind
		}{
			{"fill", append(append(srvRect(0, 0, 300, 200, rfb.EncodingTight), 0x80), bytes.Repeat([]byte{7}, tp)...), rfb.KindTightFill},
			{"fill resetting all streams", append(append(srvRect(0, 0, 1, 1, rfb.EncodingTight), 0x8f), bytes.Repeat([]byte{7}, tp)...), rfb.KindTightFill},
			{"JPEG", append(append(srvRect(0, 0, 64, 64, rfb.EncodingTight), 0x90), append(compact(200), bytes.Repeat([]byte{0xff}, 200)...)...), rfb.KindTightJPEG},
			{"JPEG of nothing", append(srvRect(0, 0, 0, 0, rfb.EncodingTight), 0x90, 0), rfb.KindTightJPEG},
			{"copy, implicit, stream 3", tightPixels(append(srvRect(0, 0, 16, 4, rfb.EncodingTight), 0x30), 16*4*tp, 99), rfb.KindTightCopy},
			{"copy, explicit, stream 2, reset 1", tightPixels(append(srvRect(0, 0, 16, 4, rfb.EncodingTight), 0x62, 0), 16*4*tp, 99), rfb.KindTightCopy},
			{"copy of 1 pixel", tightPixels(append(srvRect(0, 0, 1, 1, rfb.EncodingTight), 0x00), tp, 0), rfb.KindTightCopy},
			{"copy of nothing", append(srvRect(0, 0, 0, 5, rfb.EncodingTight), 0x00), rfb.KindTightCopy},
			{"palette of 1", tightPixels(append(append(srvRect(0, 0, 9, 9, rfb.EncodingTight), 0x40, 1, 0), make([]byte, tp)...), 2*9, 5), rfb.KindTightPalette},
			{"palette of 2", tightPixels(append(append(srvRect(0, 0, 17, 5, rfb.EncodingTight), 0x50, 1, 1), make([]byte, 2*tp)...), 3*5, 5), rfb.KindTightPalette},
			{"palette of 3", tightPixels(append(append(srvRect(0, 0, 17, 5, rfb.EncodingTight), 0x40, 1, 2), make([]byte, 3*tp)...), 17*5, 40), rfb.KindTightPalette},
			{"palette of 256", tightPixels(append(append(srvRect(0, 0, 64, 64, rfb.EncodingTight), 0x40, 1, 255), bytes.Repeat([]byte{1}, 256*tp)...), 64*64, 3000), rfb.KindTightPalette},
			{"gradient", tightPixels(append(srvRect(0, 0, 16, 16, rfb.EncodingTight), 0x70, 2), 16*16*tp, 700), rfb.KindTightGradient},
		} {
			if c.kind == rfb.KindTightGradient && p.bpp == 1 {
				continue
			}
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				in := bytes.Join([][]byte{{rfb.MsgBell}, srvUpdate(c.rect, srvRect(0, 0, 0, 0, rfb.EncodingDesktopSize)), srvCut("secret"), {rfb.MsgBell}}, nil)
				watcher := in[:len(in)-len(srvCut("secret"))-1]
				watcher = append(append([]byte{}, watcher...), rfb.MsgBell)
				everySplit(t, p.pf, true, in, in)
				everySplit(t, p.pf, false, in, watcher)
				f := newFilterPF(t, p.pf, false)
				if _, err := serverFeed(f, in, whole(len(in))); err != nil {
					t.Fatal(err)
				}
				kinds := f.kinds.Load()
				if st := f.Stats(); st.Rects != 2 || st.Messages != 4 || st.CutTextDropped != 1 || kinds[c.kind] != 1 || kinds[rfb.KindPseudo] != 1 {
					t.Fatalf("stats %+v, kinds %v: want 2 rectangles, one %v", st, kinds, rectKindLabels[c.kind])
				}
			})
		}
	}
}

// TestTightDataUnder12: pixel data under 12 bytes before compression come
// without a length, from 12 on with one: at 11 and 12 bytes for each
// filter (and at the TPIXEL sizes that reach them), the next message is
// where the spec puts it.
func TestTightDataUnder12(t *testing.T) {
	for _, c := range []struct {
		name    string
		pf      []byte
		w, h    int
		prefix  []byte // after the control byte
		control byte
		palette int // TPIXELs of palette
	}{
		{"palette of 2, 8×11", pf32, 8, 11, []byte{1, 1}, 0x40, 2},
		{"palette of 2, 8×12", pf32, 8, 12, []byte{1, 1}, 0x40, 2},
		{"palette of 2, 81×1", pf32, 81, 1, []byte{1, 1}, 0x40, 2}, // 11 bytes: rows padded
		{"palette of 2, 89×1", pf32, 89, 1, []byte{1, 1}, 0x40, 2}, // 12 bytes
		{"palette of 3, 11×1", pf32, 11, 1, []byte{1, 2}, 0x40, 3},
		{"palette of 3, 12×1", pf32, 12, 1, []byte{1, 2}, 0x40, 3},
		{"copy 8 bpp, 11×1", pf8, 11, 1, nil, 0x00, 0},
		{"copy 8 bpp, 12×1", pf8, 12, 1, nil, 0x00, 0},
		{"copy 24 bit, 3×1 (9 bytes)", pf32, 3, 1, nil, 0x00, 0},
		{"copy 24 bit, 4×1 (12 bytes)", pf32, 4, 1, nil, 0x00, 0},
		{"gradient 16 bpp, 5×1 (10 bytes)", pf16, 5, 1, []byte{2}, 0x40, 0},
		{"gradient 16 bpp, 6×1 (12 bytes)", pf16, 6, 1, []byte{2}, 0x40, 0},
		{"copy 32/30, 2×1 (8 bytes)", pf32x10, 2, 1, nil, 0x00, 0},
		{"copy 32/30, 3×1 (12 bytes)", pf32x10, 3, 1, nil, 0x00, 0},
	} {
		tp := rfb.TPixelSize(c.pf)
		colours := 0
		if len(c.prefix) == 2 {
			colours = int(c.prefix[1]) + 1
		}
		n := tightSize(c.w, c.h, tp, colours)
		rect := append(append(srvRect(0, 0, uint16(c.w), uint16(c.h), rfb.EncodingTight), c.control), c.prefix...)
		rect = tightPixels(append(rect, make([]byte, c.palette*tp)...), n, 20)
		in := bytes.Join([][]byte{srvUpdate(rect), srvCut("x"), {rfb.MsgBell}}, nil)
		want := append(append([]byte{}, srvUpdate(rect)...), rfb.MsgBell)
		t.Run(c.name, func(t *testing.T) {
			if lenField := n >= 12; lenField != bytes.Contains(rect, []byte{20, 0xc3}) {
				t.Fatalf("the test built %d bytes of data with a length: %v", n, !lenField)
			}
			everySplit(t, c.pf, false, in, want)
		})
	}
}

// TestTightCompactLength: lengths of 1, 2 and 3 bytes, at each form's
// limit, the longest encodable, and rfb.DefaultMaxCompactLen and one past it.
func TestTightCompactLength(t *testing.T) {
	jpeg := func(l []byte, n int) []byte {
		rect := append(append(srvRect(0, 0, 256, 256, rfb.EncodingTight), 0x90), l...)
		return srvUpdate(append(rect, make([]byte, n)...))
	}
	for _, c := range []struct {
		name string
		l    []byte
		n    int
		ok   bool
	}{
		{"0", []byte{0}, 0, true},
		{"127, 1 byte", []byte{0x7f}, 127, true},
		{"128, 2 bytes", []byte{0x80, 0x01}, 128, true},
		{"5 in 2 bytes", []byte{0x85, 0x00}, 5, true},
		{"16383, 2 bytes", []byte{0xff, 0x7f}, 16383, true},
		{"16384, 3 bytes", []byte{0x80, 0x80, 0x01}, 16384, true},
		{"7 in 3 bytes", []byte{0x87, 0x80, 0x00}, 7, true},
		{"rfb.DefaultMaxCompactLen", compact(rfb.DefaultMaxCompactLen), rfb.DefaultMaxCompactLen, true},
		{"rfb.DefaultMaxCompactLen+1", compact(rfb.DefaultMaxCompactLen + 1), 0, false},
		{"4 MiB - 1, the longest encodable", []byte{0xff, 0xff, 0xff}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append(jpeg(c.l, c.n), rfb.MsgBell)
			for _, chunk := range []int{1, 2, 3, 17, len(in)} {
				f := newFilter(t, true)
				got, err := serverFeed(f, in, whole(chunk))
				if c.ok {
					if err != nil || !bytes.Equal(got, in) {
						t.Fatalf("reads of %d: %v", chunk, err)
					}
					continue
				}
				want := fmt.Sprintf("type 0 at server byte 0: Tight rectangle at server byte 4: compact length %d, limit %d", int(c.l[0]&0x7f)|int(c.l[1]&0x7f)<<7|int(c.l[2])<<14, rfb.DefaultMaxCompactLen)
				if !errors.Is(err, ErrServerStream) || !strings.Contains(err.Error(), want) {
					t.Fatalf("reads of %d: %v, want %q", chunk, err, want)
				}
				if !bytes.Equal(got, in[:4+12+1]) { // the update's and rectangle's headers, the control byte
					t.Fatalf("reads of %d: forwarded %x before the bad length", chunk, got)
				}
			}
		})
	}
}

// TestTightRefuses: what is not Tight is an error naming the rectangle and
// what is wrong; the bytes before the bad field were forwarded, none after.
func TestTightRefuses(t *testing.T) {
	rect := func(b ...byte) []byte { return append(srvRect(0, 0, 4, 4, rfb.EncodingTight), b...) }
	for _, c := range []struct {
		name string
		pf   []byte
		rect []byte
		sent int // bytes of rect forwarded
		want string
	}{
		{"PNG", pf32, rect(0xa0, 0), 12, "control byte 0xa0: PNG, which only TightPNG has"},
		{"control 11", pf32, rect(0xb3), 12, "control byte 0xb3: compression type 11 is invalid"},
		{"control 15", pf32, rect(0xff), 12, "control byte 0xff: compression type 15 is invalid"},
		{"filter 3", pf32, rect(0x40, 3), 13, "filter id 3 is invalid"},
		{"filter 255", pf32, rect(0x70, 255), 13, "filter id 255 is invalid"},
		{"gradient at 8 bpp", pf8, rect(0x40, 2), 13, "gradient filter at 8 bits per pixel"},
		{"copy length past the limit", pf32, rect(0x00, 0x81, 0x80, 0x40), 13, "compact length 1048577"},
		{"palette data length past the limit", pf32, append(rect(0x40, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9), compact(rfb.DefaultMaxCompactLen+1)...), 12 + 12, "compact length 1048577"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append([]byte{rfb.MsgBell}, srvUpdate(c.rect)...)
			for _, chunk := range []int{1, 2, 5, len(in)} {
				got, err := serverFeed(newFilterPF(t, c.pf, true), in, whole(chunk))
				var se *ServerStreamError
				if !errors.As(err, &se) || se.Type != rfb.MsgFramebufferUpdate || se.Offset != 1 ||
					!strings.Contains(err.Error(), "Tight rectangle at server byte 5: "+c.want) {
					t.Fatalf("reads of %d: %v, want %q", chunk, err, c.want)
				}
				if !bytes.Equal(got, in[:1+4+c.sent]) {
					t.Fatalf("reads of %d: forwarded %d bytes, want %d", chunk, len(got), 1+4+c.sent)
				}
			}
		})
	}
}

// TestTightPixelFormats: TPIXEL sizes by format, and the format whose
// TPIXEL size the spec and TigerVNC would read differently is refused.
func TestTightPixelFormats(t *testing.T) {
	for _, p := range pfSizes {
		if got := rfb.TPixelSize(p.pf); got != p.tpix {
			t.Errorf("%s: TPIXEL %d, want %d", p.name, got, p.tpix)
		}
		newFilterPF(t, p.pf, true)
	}
	if _, err := newServerFilter(pf32odd, nil); err == nil || !strings.Contains(err.Error(), "colour shifts 4, 12, 20") {
		t.Fatalf("colours off byte boundaries: %v", err)
	}
	g := NewGate(Limits{})
	g.framePixelFormat(newFilter(t, true).SetPixelFormat)
	if _, err := g.Feed(nil, append([]byte{rfb.MsgSetPixelFormat, 0, 0, 0}, pf32odd...)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("the gate forwarded an ambiguous format: %v", err)
	}
}

// TestTightStreamWithCutText: random Tight rectangles of every kind, in
// every TPIXEL size, between clipboard messages: the holder's stream is
// unchanged, a watcher's loses exactly the clipboard data, at any read
// size; every rectangle is counted by its kind.
func TestTightStreamWithCutText(t *testing.T) {
	for _, p := range pfSizes {
		r := rand.New(rand.NewPCG(11, uint64(p.tpix)))
		var in, watcher []byte
		var want [rfb.NumKinds]uint64
		for i := 0; i < 300; i++ {
			var rects [][]byte
			for j := r.IntN(4); j >= 0; j-- {
				rc, k := genTight(r, r.IntN(40), r.IntN(40), p.tpix, p.bpp)
				rects = append(rects, rc)
				want[k]++
			}
			u := srvUpdate(rects...)
			cut := srvCut(strings.Repeat("s", r.IntN(30)))
			in = append(append(in, u...), cut...)
			watcher = append(watcher, u...)
		}
		for _, chunk := range []int{1, 2, 3, 7, 16, 1000, len(in)} {
			if got, err := serverFeed(newFilterPF(t, p.pf, true), in, whole(chunk)); err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s, holder, reads of %d: %v", p.name, chunk, err)
			}
			f := newFilterPF(t, p.pf, false)
			if got, err := serverFeed(f, in, whole(chunk)); err != nil || !bytes.Equal(got, watcher) {
				t.Fatalf("%s, watcher, reads of %d: %v", p.name, chunk, err)
			}
			if got := f.kinds.Load(); got != want {
				t.Fatalf("%s: counted %v, want %v", p.name, got, want)
			}
		}
	}
}

// TestTightMalformedClosesViewer: a Tight rectangle that cannot be framed
// (here compression type 11) closes the viewer with 1011 and a reason,
// after the Tight rectangle before it and the bad one's header, and the
// log says what was wrong and where.
func TestTightMalformedClosesViewer(t *testing.T) {
	good := append(append(srvRect(0, 0, 8, 8, rfb.EncodingTight), 0x80), 1, 2, 3)
	bad := append(srvRect(0, 0, 8, 8, rfb.EncodingTight), 0xb0, 0, 0, 0, 0)
	addr := scriptedVNC(t, testPassword, srvUpdate(good, bad))
	tr := newTestRelay(t, Config{PerViewerUpstream: true, Computers: []Computer{{Name: "a", Addr: addr, Password: NewSecret(testPassword)}}})
	c := watchClose(t, tr, "a", "s", true)
	c.closedWith(t, "viewer", websocket.StatusInternalError, reasonServerUnframe)
	if n := c.received(); n != int64(4+len(good)+12) {
		t.Fatalf("received %d bytes before the close, want the update's header, the fill rectangle and the bad one's header (%d)", n, 4+len(good)+12)
	}
	if l := tr.logs.String(); !strings.Contains(l, "Tight rectangle at server byte 20: control byte 0xb0: compression type 11 is invalid") {
		t.Fatalf("the log does not say what could not be framed:\n%s", l)
	}
	waitViewers(t, tr, "a", 0, 5*time.Second)
}
