package rfbgate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// pf32 is a 32-bit true-colour pixel format (Xvnc's and noVNC's).
var pf32 = []byte{32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}

// serverFeed runs f over data as the relay does: reads of the sizes next
// gives, the unconsumed header bytes carried in front of the next read. It
// returns what the viewer would receive.
func serverFeed(f *serverFilter, data []byte, next func() int) ([]byte, error) {
	var got []byte
	var carry []byte
	for len(data) > 0 {
		n := min(next(), len(data))
		buf := append(append([]byte{}, carry...), data[:n]...)
		data = data[n:]
		out, rest, err := f.Filter(buf)
		got = append(got, out...)
		if err != nil {
			return got, err
		}
		if len(rest) > rfb.MaxServerHeader {
			return got, errors.New("rest longer than rfb.MaxServerHeader")
		}
		carry = append(carry[:0], rest...)
	}
	if len(carry) > 0 {
		return got, errors.New("stream ended inside a header")
	}
	return got, nil
}

func whole(n int) func() int { return func() int { return n } }

func newFilter(t testing.TB, holder bool) *serverFilter {
	f, err := newServerFilter(pf32, func() bool { return holder })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Server message builders.
func srvRect(x, y, w, h uint16, enc rfb.Encoding) []byte {
	b := binary.BigEndian.AppendUint16(nil, x)
	b = binary.BigEndian.AppendUint16(b, y)
	b = binary.BigEndian.AppendUint16(b, w)
	b = binary.BigEndian.AppendUint16(b, h)
	return binary.BigEndian.AppendUint32(b, uint32(enc))
}

func srvUpdate(rects ...[]byte) []byte {
	b := []byte{rfb.MsgFramebufferUpdate, 0}
	b = binary.BigEndian.AppendUint16(b, uint16(len(rects)))
	for _, r := range rects {
		b = append(b, r...)
	}
	return b
}

func srvCut(text string) []byte {
	b := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerCutText, 0, 0, 0}, uint32(len(text)))
	return append(b, text...)
}

func srvExtCut(flags uint32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerCutText, 0, 0, 0}, uint32(-int32(4+len(body))))
	b = binary.BigEndian.AppendUint32(b, flags)
	return append(b, body...)
}

func withLen(b []byte, payload []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// genServerMsg appends one random, well-formed server message (32-bit
// pixels) and reports whether it is clipboard data a watcher must not get.
func genServerMsg(r *rand.Rand, dst []byte) ([]byte, bool) {
	pay := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	w, h := uint16(r.IntN(9)), uint16(r.IntN(9))
	switch r.IntN(10) {
	case 0, 1, 2: // an update with a few rectangles of every kind
		n := r.IntN(5)
		var rects [][]byte
		for i := 0; i < n; i++ {
			var rc []byte
			switch r.IntN(13) {
			case 0:
				rc = append(srvRect(0, 0, w, h, rfb.EncodingRaw), pay(int(w)*int(h)*4)...)
			case 1:
				rc = append(srvRect(1, 2, w, h, rfb.EncodingCopyRect), 0, 3, 0, 4)
			case 2:
				rc = withLen(srvRect(0, 0, w, h, rfb.EncodingZRLE), pay(r.IntN(300)))
			case 3:
				rc = srvRect(0, 0, w, h, rfb.EncodingDesktopSize)
			case 4:
				rc = append(srvRect(0, 0, w, h, rfb.EncodingCursor), pay(int(w)*int(h)*4+(int(w)+7)/8*int(h))...)
			case 5:
				rc = append(append(srvRect(0, 0, w, h, rfb.EncodingVMwareCursor), 1, 0), pay(int(w)*int(h)*4)...)
			case 6:
				rc = append(append(srvRect(0, 0, w, h, rfb.EncodingVMwareCursor), 0, 0), pay(2*int(w)*int(h)*4)...)
			case 7:
				rc = srvRect(0, 0, 0, 0, rfb.EncodingQEMUExtendedKey)
			case 8:
				rc = append(srvRect(0, 0, 0, 0, rfb.EncodingQEMULEDState), 7)
			case 9:
				rc = withLen(srvRect(0, 0, 0, 0, rfb.EncodingDesktopName), []byte("desk"))
			case 10:
				s := r.IntN(3)
				rc = append(append(srvRect(0, 0, w, h, rfb.EncodingExtendedDesktop), byte(s), 0, 0, 0), pay(16*s)...)
			default:
				rc, _ = genTight(r, int(w), int(h), 3, 4)
			}
			rects = append(rects, rc)
		}
		if r.IntN(4) == 0 { // LastRect form: 0xFFFF rectangles, ended by LastRect
			b := append([]byte{rfb.MsgFramebufferUpdate, 0, 0xff, 0xff}, bytes.Join(rects, nil)...)
			return append(dst, append(b, srvRect(0, 0, 0, 0, rfb.EncodingLastRect)...)...), false
		}
		return append(dst, srvUpdate(rects...)...), false
	case 3:
		n := r.IntN(4)
		b := []byte{rfb.MsgSetColourMapEntries, 0, 0, 0}
		b = binary.BigEndian.AppendUint16(b, uint16(n))
		return append(dst, append(b, pay(6*n)...)...), false
	case 4:
		return append(dst, rfb.MsgBell), false
	case 5:
		return append(dst, srvCut(string(pay(r.IntN(40))))...), true
	case 6:
		flags := []uint32{1 << 24, 1 << 27, 1 << 28, 1<<28 | 1}[r.IntN(4)]
		return append(dst, srvExtCut(flags|1, pay(r.IntN(40)))...), flags&rfb.ClipboardCaps == 0
	case 7:
		return append(dst, rfb.MsgEndOfContinuousUpdates), false
	case 8:
		n := r.IntN(rfb.MaxFencePayload + 1)
		b := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerFence, 0, 0, 0}, 1<<31)
		return append(dst, append(append(b, byte(n)), pay(n)...)...), false
	default:
		return append(dst, rfb.MsgXvp, 0, 1, 0), false
	}
}

// TestServerFilterEveryMessage: the holder gets a stream of every server
// message and encoding unchanged; a watcher gets it without the clipboard
// data, whatever the read sizes.
func TestServerFilterEveryMessage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var in, watcher []byte
	cuts := 0
	for i := 0; i < 3000; i++ {
		before := len(in)
		var secret bool
		in, secret = genServerMsg(r, in)
		if secret {
			cuts++
		} else {
			watcher = append(watcher, in[before:]...)
		}
	}
	for _, chunk := range []int{1, 2, 3, 5, 16, 17, 4096, len(in)} {
		got, err := serverFeed(newFilter(t, true), in, whole(chunk))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("holder, reads of %d: %v, stream changed: %t", chunk, err, !bytes.Equal(got, in))
		}
		f := newFilter(t, false)
		got, err = serverFeed(f, in, whole(chunk))
		if err != nil || !bytes.Equal(got, watcher) {
			t.Fatalf("watcher, reads of %d: %v, stream differs: %t", chunk, err, !bytes.Equal(got, watcher))
		}
		if st := f.Stats(); st.CutTextDropped != uint64(cuts) || st.Messages == 0 || st.Rects == 0 {
			t.Fatalf("watcher stats %+v, want %d cut texts dropped", st, cuts)
		}
	}
}

// TestServerFilterCutTextOnlyToHolder: both forms of ServerCutText reach
// the holder and not a watcher; the extended clipboard's capabilities (no
// clipboard data) reach both; the verdict follows the holder flag.
func TestServerFilterCutTextOnlyToHolder(t *testing.T) {
	bell := []byte{rfb.MsgBell}
	plain := srvCut("secret text")
	notify := srvExtCut(1<<27|1, nil)
	provide := srvExtCut(1<<28|1, []byte("zlib-data"))
	caps := srvExtCut(1<<24|1, []byte{0, 0, 0x10, 0})
	in := bytes.Join([][]byte{bell, plain, notify, provide, caps, bell}, nil)
	for _, holder := range []bool{true, false} {
		want := in
		if !holder {
			want = bytes.Join([][]byte{bell, caps, bell}, nil)
		}
		for _, chunk := range []int{1, 7, 9, 11, 12, 13, len(in)} {
			got, err := serverFeed(newFilter(t, holder), in, whole(chunk))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("holder=%v reads of %d: %v\n got %x\nwant %x", holder, chunk, err, got, want)
			}
		}
	}
	// The flag is read when a cut text's header is complete.
	kbd := false
	f, _ := newServerFilter(pf32, func() bool { return kbd })
	out, _, _ := f.Filter(append([]byte{}, plain...))
	kbd = true
	out2, _, _ := f.Filter(append([]byte{}, plain...))
	if len(out) != 0 || !bytes.Equal(out2, plain) {
		t.Fatalf("after the flag changed: %x then %x", out, out2)
	}
}

// TestServerFilterLengthsNeverAllocated: a cut text claiming 2 GiB, and the
// extended form's math.MinInt32, are streamed (dropped) as they come, never
// buffered.
func TestServerFilterLengthsNeverAllocated(t *testing.T) {
	f := newFilter(t, false)
	hdr := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerCutText, 0, 0, 0}, math.MaxInt32)
	out, rest, err := f.Filter(append(hdr, make([]byte, 100)...))
	if err != nil || len(out) != 0 || len(rest) != 0 || f.skip != math.MaxInt32-100 {
		t.Fatalf("2 GiB cut text: out %d rest %d skip %d err %v", len(out), len(rest), f.skip, err)
	}
	f = newFilter(t, true)
	hdr = binary.BigEndian.AppendUint32([]byte{rfb.MsgServerCutText, 0, 0, 0}, uint32(1<<31)) // MinInt32
	hdr = binary.BigEndian.AppendUint32(hdr, 1<<28)
	if _, _, err := f.Filter(hdr); err != nil || f.skip != 1<<31-4 {
		t.Fatalf("MinInt32 extended cut text: skip %d err %v", f.skip, err)
	}
}

// TestServerFilterRefuses: what cannot be framed is an error naming the
// message and its offset; limits are checked at and past.
func TestServerFilterRefuses(t *testing.T) {
	fence := func(n int) []byte {
		b := binary.BigEndian.AppendUint32([]byte{rfb.MsgServerFence, 0, 0, 0}, 0)
		return append(append(b, byte(n)), make([]byte, n)...)
	}
	for _, c := range []struct {
		name string
		in   []byte
		ok   bool
		want string
	}{
		{"fence at 64", fence(64), true, ""},
		{"fence of 65", fence(65), false, "fence payload of 65 bytes, limit 64"},
		{"extended cut text of 4", srvExtCut(1<<28, nil), true, ""},
		{"extended cut text of 3", binary.BigEndian.AppendUint32([]byte{3, 0, 0, 0}, uint32(0xfffffffd)), false, "length 3 is shorter than its 4-byte flags"},
		{"unknown type", []byte{7}, false, "server message type 7 at server byte 1: unknown server message type 7"},
		{"QEMU server message", []byte{255, 1, 0, 0}, false, "type 255 at server byte 1: unknown"},
		{"TightPNG rectangle", srvUpdate(srvRect(0, 0, 1, 1, -260)), false, "type 0 at server byte 1: rectangle at server byte 5: encoding -260 is not one that is framed"},
		{"Hextile rectangle", srvUpdate(srvRect(0, 0, 1, 1, 5)), false, "encoding 5"},
		{"VMware cursor type 2", srvUpdate(append(srvRect(0, 0, 1, 1, rfb.EncodingVMwareCursor), 2, 0)), false, "VMware cursor type 2"},
	} {
		got, err := serverFeed(newFilter(t, true), append([]byte{rfb.MsgBell}, c.in...), whole(3))
		if c.ok {
			if err != nil || !bytes.Equal(got, append([]byte{rfb.MsgBell}, c.in...)) {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrServerStream) || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		// Before the bad message (or rectangle) everything was forwarded.
		want := []byte{rfb.MsgBell}
		if c.in[0] == rfb.MsgFramebufferUpdate {
			want = append(want, c.in[:4]...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: forwarded %x before the bad part, want %x", c.name, got, want)
		}
	}
	// An error is sticky.
	f := newFilter(t, true)
	_, _, err := f.Filter([]byte{9})
	if _, _, err2 := f.Filter([]byte{rfb.MsgBell}); err == nil || err2 != err {
		t.Fatalf("not sticky: %v then %v", err, err2)
	}
}

// TestServerFilterPixelFormat: Raw and cursor rectangles are sized by the
// client's pixel format, which the gate reports, and only before updates
// were asked for; a format the filter cannot size is refused.
func TestServerFilterPixelFormat(t *testing.T) {
	f := newFilter(t, true)
	g := NewGate(Limits{})
	g.framePixelFormat(f.SetPixelFormat)
	pf16 := []byte{rfb.MsgSetPixelFormat, 0, 0, 0, 16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0}
	if _, err := g.Feed(nil, pf16); err != nil {
		t.Fatal(err)
	}
	raw := srvUpdate(append(srvRect(0, 0, 3, 2, rfb.EncodingRaw), make([]byte, 3*2*2)...), srvRect(0, 0, 0, 0, rfb.EncodingDesktopSize))
	if got, err := serverFeed(f, raw, whole(5)); err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("16-bit Raw: %v", err)
	}
	if _, err := g.Feed(nil, fbur); err != nil {
		t.Fatal(err)
	}
	pf32msg := append([]byte{rfb.MsgSetPixelFormat, 0, 0, 0}, pf32...)
	if _, err := g.Feed(nil, pf32msg); !errors.Is(err, ErrForbiddenMessage) {
		t.Fatalf("SetPixelFormat after an update request: %v", err)
	}
	g = NewGate(Limits{})
	g.framePixelFormat(f.SetPixelFormat)
	bad := append([]byte{}, pf32msg...)
	bad[4] = 24
	if _, err := g.Feed(nil, bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("24 bits per pixel: %v", err)
	}
	// Without framePixelFormat the gate passes it as before.
	if out, err := NewGate(Limits{}).Feed(nil, append(append([]byte{}, fbur...), bad...)); err != nil || len(out) != 30 {
		t.Fatalf("unframed gate: %v %d", err, len(out))
	}
	if _, err := newServerFilter(bad[4:20], nil); err == nil {
		t.Fatal("a 24-bit ServerInit format was accepted")
	}
}

// FuzzServerFilter: any bytes, any read sizes: never a panic, never more
// than rfb.MaxServerHeader handed back, and the same output and error as one
// read. For the holder, the output is the input up to the error.
func FuzzServerFilter(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	var seed []byte
	for i := 0; i < 20; i++ {
		seed, _ = genServerMsg(r, seed)
	}
	f.Add(seed, uint64(1))
	f.Add(srvExtCut(1<<28, []byte("x")), uint64(2))
	f.Add(srvUpdate(withLen(srvRect(0, 0, 1, 1, rfb.EncodingZRLE), []byte{1, 2})), uint64(3))
	for i := 0; i < 6; i++ { // Tight, a rectangle of each kind, and hostile lengths
		rc, _ := genTight(r, 1+i*3, 5, 3, 4)
		f.Add(srvUpdate(rc), uint64(4+i))
	}
	f.Add(srvUpdate(append(srvRect(0, 0, 64, 64, rfb.EncodingTight), 0x90, 0xff, 0xff, 0xff)), uint64(10))
	f.Add(srvUpdate(append(srvRect(0, 0, 64, 64, rfb.EncodingTight), 0x40, 1, 255, 1, 2, 3)), uint64(11))
	f.Add(append(srvUpdate(append(srvRect(0, 0, 2, 2, rfb.EncodingTight), 0x40, 1, 1, 1, 2, 3, 4, 5, 6, 9, 9)), srvCut("secret")...), uint64(12))
	var g serverFilter
	watcher := func() bool { return false }
	buf := make([]byte, 0, 1<<10)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		// Memory stays bounded whatever a length claims: one Filter of the
		// whole input allocates nothing but an error.
		if !raceEnabled && len(data) <= cap(buf) {
			var err error
			a := testing.AllocsPerRun(1, func() {
				g = serverFilter{holder: watcher}
				if err = g.SetPixelFormat(pf32); err != nil {
					return
				}
				_, _, err = g.Filter(append(buf[:0], data...))
			})
			if limit := map[bool]float64{false: 0, true: 8}[err != nil]; a > limit {
				t.Fatalf("%.0f allocations framing %d bytes (error %v)", a, len(data), err)
			}
		}
		for _, holder := range []bool{true, false} {
			want, wantErr := serverFeed(newFilter(t, holder), data, whole(len(data)+1))
			r := rand.New(rand.NewPCG(seed, uint64(len(data))))
			got, err := serverFeed(newFilter(t, holder), data, func() int { return 1 + r.IntN(20) })
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("holder=%v: split reads gave %v, one read %v", holder, err, wantErr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("holder=%v: split reads forwarded %x, one read %x", holder, got, want)
			}
			if holder && !bytes.HasPrefix(data, got) {
				t.Fatalf("the holder's stream was changed")
			}
		}
	})
}

// BenchmarkServerFilter: framing updates shaped like BenchmarkRelay's (16
// ZRLE rectangles of about 4 KiB each) in 256 KiB reads, as pumpServer
// does; compare its MB/s with BenchmarkRelay's to see the framer's share.
func BenchmarkServerFilter(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	benchServerFilter(b, func(i int) []byte {
		return withLen(srvRect(uint16(i%16*64), 0, 64, 64, rfb.EncodingZRLE), make([]byte, 3000+r.IntN(2000)))
	})
}

// BenchmarkServerFilterTight: the same shape in Tight's sub-encodings, as
// Xvnc sends photos and text: JPEG, palette, zlib copy and fill rectangles
// in turn (the fill ones a few bytes, so more rectangles a MiB).
func BenchmarkServerFilterTight(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	benchServerFilter(b, func(i int) []byte {
		rc := srvRect(uint16(i%16*64), 0, 64, 64, rfb.EncodingTight)
		n := 3000 + r.IntN(2000)
		switch i % 4 {
		case 0:
			return append(append(append(rc, 0x90), compact(n)...), make([]byte, n)...)
		case 1:
			rc = append(append(rc, 0x40, rfb.TightFilterPalette, 15), make([]byte, 16*3)...)
			return append(append(rc, compact(n)...), make([]byte, n)...)
		case 2:
			return append(append(append(rc, 0x10), compact(n)...), make([]byte, n)...)
		}
		return append(rc, 0x80, 1, 2, 3)
	})
}

// benchServerFilter frames 8 MiB of updates of 16 rectangles from rect.
func benchServerFilter(b *testing.B, rect func(i int) []byte) {
	var in []byte
	for len(in) < 8<<20 {
		var rects [][]byte
		for i := 0; i < 16; i++ {
			rects = append(rects, rect(i))
		}
		in = append(in, srvUpdate(rects...)...)
	}
	f := newFilter(b, false)
	buf := make([]byte, rfb.MaxServerHeader+256<<10)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		carry := 0
		for data := in; len(data) > 0; {
			n := copy(buf[rfb.MaxServerHeader:], data)
			data = data[n:]
			_, rest, err := f.Filter(buf[rfb.MaxServerHeader-carry : rfb.MaxServerHeader+n])
			if err != nil {
				b.Fatal(err)
			}
			carry = copy(buf[rfb.MaxServerHeader-len(rest):rfb.MaxServerHeader], rest)
		}
	}
}
