package rfbgate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// feedAll feeds in through a holder's or watcher's gate in chunks of size
// chunk (0: all at once) and returns the server side.
func feedAll(t *testing.T, lim Limits, kbd bool, in []byte, chunk int) ([]byte, error) {
	t.Helper()
	g := NewGate(lim)
	g.SetKeyboard(kbd)
	var out []byte
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for len(in) > 0 {
		n := min(chunk, len(in))
		var err error
		out, err = g.Feed(out, in[:n])
		if err != nil {
			return out, err
		}
		in = in[n:]
	}
	return out, nil
}

func keyEvent(down bool, keysym uint32) []byte {
	b := []byte{rfb.MsgKeyEvent, 0, 0, 0}
	if down {
		b[1] = 1
	}
	return binary.BigEndian.AppendUint32(b, keysym)
}

func qemuKey(down bool, keysym, keycode uint32) []byte {
	b := []byte{rfb.MsgQEMU, 0, 0, 0}
	if down {
		b[3] = 1
	}
	b = binary.BigEndian.AppendUint32(b, keysym)
	return binary.BigEndian.AppendUint32(b, keycode)
}

func pointer(mask uint8, x, y uint16) []byte {
	b := []byte{rfb.MsgPointerEvent, mask}
	b = binary.BigEndian.AppendUint16(b, x)
	return binary.BigEndian.AppendUint16(b, y)
}

func cutText(l int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32([]byte{rfb.MsgClientCutText, 0, 0, 0}, uint32(l))
	return append(b, body...)
}

func fence(payload int) []byte {
	b := binary.BigEndian.AppendUint32([]byte{rfb.MsgClientFence, 0, 0, 0}, 1)
	b = append(b, byte(payload))
	return append(b, make([]byte, payload)...)
}

func setEncodings(encs ...rfb.Encoding) []byte {
	b := binary.BigEndian.AppendUint16([]byte{rfb.MsgSetEncodings, 0}, uint16(len(encs)))
	for _, e := range encs {
		b = binary.BigEndian.AppendUint32(b, uint32(e))
	}
	return b
}

var fbur = []byte{rfb.MsgFramebufferUpdateRequest, 1, 0, 0, 0, 0, 0, 10, 0, 10}

func TestParserEveryTypeOneByteAtATime(t *testing.T) {
	var in []byte
	in = append(in, rfb.MsgSetPixelFormat, 0, 0, 0)
	in = append(in, make([]byte, 16)...)
	in = append(in, setEncodings(16, 1, -258)...)
	in = append(in, fbur...)
	in = append(in, keyEvent(true, 0x61)...)
	in = append(in, keyEvent(false, 0x61)...)
	in = append(in, pointer(1, 3, 4)...)
	in = append(in, pointer(0, 3, 4)...)
	in = append(in, cutText(5, []byte("hello"))...)
	in = append(in, cutText(-8, []byte{0, 0, 0, 1, 'a', 'b', 'c', 'd'})...)
	in = append(in, rfb.MsgEnableContinuousUpdates, 1, 0, 0, 0, 0, 0, 10, 0, 10)
	in = append(in, fence(4)...)
	desk := []byte{rfb.MsgSetDesktopSize, 0, 3, 0, 2, 0, 1, 0}
	desk = append(desk, make([]byte, 16)...)
	in = append(in, desk...)
	in = append(in, qemuKey(true, 0x62, 48)...)
	in = append(in, qemuKey(false, 0x62, 48)...)
	for _, chunk := range []int{1, 2, 3, 7, 0} {
		out, err := feedAll(t, Limits{}, true, in, chunk)
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("chunk %d: holder stream changed:\n got %x\nwant %x", chunk, out, in)
		}
		out, err = feedAll(t, Limits{}, false, in, chunk)
		if err != nil {
			t.Fatalf("chunk %d watcher: %v", chunk, err)
		}
		var want []byte
		want = append(want, in[:20]...)
		want = append(want, setEncodings(16, 1, -258)...)
		want = append(want, fbur...)
		want = append(want, rfb.MsgEnableContinuousUpdates, 1, 0, 0, 0, 0, 0, 10, 0, 10)
		want = append(want, fence(4)...)
		if !bytes.Equal(out, want) {
			t.Fatalf("chunk %d: watcher stream:\n got %x\nwant %x", chunk, out, want)
		}
	}
}

func TestParserClosesOnForbiddenAndUnknown(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		kind error
		off  int64
	}{
		{"xvp", []byte{rfb.MsgXvp, 0, 1, 2}, ErrForbiddenMessage, 0},
		{"gii", []byte{rfb.MsgGii, 0x80, 0, 4, 0, 0, 0, 0}, ErrForbiddenMessage, 0},
		{"qemu-audio", []byte{rfb.MsgQEMU, rfb.QEMUAudio, 0, 0}, ErrForbiddenMessage, 0},
		{"qemu-unknown", []byte{rfb.MsgQEMU, 9, 0, 0}, ErrUnknownMessage, 0},
		{"type-1", []byte{1, 0, 0, 0}, ErrUnknownMessage, 0},
		{"type-7-after-fbur", append(append([]byte{}, fbur...), 7), ErrUnknownMessage, 10},
		{"type-254", []byte{254}, ErrUnknownMessage, 0},
	}
	for _, c := range cases {
		for _, kbd := range []bool{false, true} {
			_, err := feedAll(t, Limits{}, kbd, c.in, 1)
			var pe *ProtocolError
			if !errors.Is(err, c.kind) || !errors.As(err, &pe) || pe.Offset != c.off {
				t.Fatalf("%s: got %v, want kind %v at offset %d", c.name, err, c.kind, c.off)
			}
		}
	}
}

func TestParserErrorIsSticky(t *testing.T) {
	g := NewGate(Limits{})
	if _, err := g.Feed(nil, []byte{7}); err == nil {
		t.Fatal("type 7 accepted")
	}
	if _, err := g.Feed(nil, fbur); !errors.Is(err, ErrUnknownMessage) {
		t.Fatalf("after an error Feed returned %v", err)
	}
}

func TestLimitEncodings(t *testing.T) {
	lim := Limits{MaxEncodings: 5}
	at := setEncodings(0, 1, 16, -223, -224)
	if out, err := feedAll(t, lim, false, at, 1); err != nil || !bytes.Equal(out, at) {
		t.Fatalf("at the limit: %v %x", err, out)
	}
	_, err := feedAll(t, lim, false, setEncodings(1, 2, 3, 4, 5, 6), 1)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("past the limit: %v", err)
	}
	// The default limit, at and past.
	encs := make([]rfb.Encoding, defaultMaxEncodings+1)
	if _, err := feedAll(t, Limits{}, false, setEncodings(encs[:defaultMaxEncodings]...), 0); err != nil {
		t.Fatalf("default limit: %v", err)
	}
	if _, err := feedAll(t, Limits{}, false, setEncodings(encs...), 0); !errors.Is(err, ErrLimit) {
		t.Fatalf("past default limit: %v", err)
	}
}

// TestSetEncodingsKeepsFramedOnly: −316 goes, and so does every encoding the
// server stream's framer does not read (TightPNG −260, Hextile 5, xvp −309,
// an unknown one); Tight 7, which it frames, stays; noVNC 1.7's own list
// keeps its framed entries in order.
func TestSetEncodingsKeepsFramedOnly(t *testing.T) {
	in := setEncodings(16, -316, 7, -260, -258, -316, 5, -309, 0x12345)
	for _, kbd := range []bool{false, true} {
		out, err := feedAll(t, Limits{}, kbd, in, 3)
		if err != nil || !bytes.Equal(out, setEncodings(16, 7, -258)) {
			t.Fatalf("kbd=%v: %v %x", kbd, err, out)
		}
	}
}

func TestLimitCutText(t *testing.T) {
	lim := Limits{MaxCutText: 10}
	tail := keyEvent(true, 0x41)
	at := cutText(10, bytes.Repeat([]byte{'x'}, 10))
	out, err := feedAll(t, lim, true, append(append([]byte{}, at...), tail...), 3)
	if err != nil || !bytes.Equal(out, append(append([]byte{}, at...), tail...)) {
		t.Fatalf("at the cap: %v %x", err, out)
	}
	past := cutText(11, bytes.Repeat([]byte{'x'}, 11))
	out, err = feedAll(t, lim, true, append(append([]byte{}, past...), tail...), 3)
	if err != nil || !bytes.Equal(out, tail) {
		t.Fatalf("past the cap: the text must be read through and dropped, the next message kept: %v %x", err, out)
	}
	// Extended form: abs(len) counts.
	ext := cutText(-10, append([]byte{0, 0, 0, 1}, bytes.Repeat([]byte{'y'}, 6)...))
	if out, err = feedAll(t, lim, true, ext, 1); err != nil || !bytes.Equal(out, ext) {
		t.Fatalf("extended at the cap: %v %x", err, out)
	}
	ext11 := cutText(-11, append([]byte{0, 0, 0, 1}, bytes.Repeat([]byte{'y'}, 7)...))
	if out, err = feedAll(t, lim, true, append(append([]byte{}, ext11...), tail...), 1); err != nil || !bytes.Equal(out, tail) {
		t.Fatalf("extended past the cap: %v %x", err, out)
	}
	// Default cap, at and past, streamed in 4 KiB reads.
	big := cutText(DefaultMaxCutText, make([]byte, DefaultMaxCutText))
	if out, err = feedAll(t, Limits{}, true, big, 4096); err != nil || len(out) != len(big) {
		t.Fatalf("default cap: %v, %d bytes out", err, len(out))
	}
	big = cutText(DefaultMaxCutText+1, make([]byte, DefaultMaxCutText+1))
	if out, err = feedAll(t, Limits{}, true, big, 4096); err != nil || len(out) != 0 {
		t.Fatalf("past default cap: %v, %d bytes out", err, len(out))
	}
}

func TestCutTextLengthNeverAllocated(t *testing.T) {
	// A 2 GiB claim (and abs(MinInt32)) must neither allocate nor overflow:
	// the gate waits for the text, holding nothing.
	for _, l := range []int32{math.MaxInt32, math.MinInt32} {
		g := NewGate(Limits{})
		g.SetKeyboard(true)
		hdr := cutText(l, nil)
		out, err := g.Feed(nil, hdr)
		if err != nil || len(out) != 0 {
			t.Fatalf("len %d: %v %x", l, err, out)
		}
		chunk := make([]byte, 64<<10)
		a := minAllocs(50, func() {
			out, err = g.Feed(out[:0], chunk)
		})
		if err != nil || len(out) != 0 || a != 0 {
			t.Fatalf("len %d: body chunk: %v, %d bytes forwarded, %.0f allocs", l, err, len(out), a)
		}
		if g.p.BodyLen() != int64(math.Abs(float64(l))) {
			t.Fatalf("len %d: body length %d", l, g.p.BodyLen())
		}
	}
	// Extended form shorter than its flags.
	if _, err := feedAll(t, Limits{}, true, cutText(-3, []byte{0, 0, 0}), 1); !errors.Is(err, ErrMalformed) {
		t.Fatalf("extended len 3: %v", err)
	}
}

func TestLimitFence(t *testing.T) {
	at := fence(rfb.MaxFencePayload)
	if out, err := feedAll(t, Limits{}, false, at, 5); err != nil || !bytes.Equal(out, at) {
		t.Fatalf("fence at the limit: %v", err)
	}
	if _, err := feedAll(t, Limits{}, false, fence(rfb.MaxFencePayload+1), 5); !errors.Is(err, ErrLimit) {
		t.Fatalf("fence past the limit: %v", err)
	}
}

func TestLimitHeldKeys(t *testing.T) {
	lim := Limits{MaxHeldKeys: 3}
	var in []byte
	for k := uint32(0); k < 3; k++ {
		in = append(in, keyEvent(true, 0x61+k)...)
	}
	out, err := feedAll(t, lim, true, in, 1)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("at the limit: %v %x", err, out)
	}
	past := append(append([]byte{}, in...), qemuKey(true, 0x64, 32)...)
	out, err = feedAll(t, lim, true, past, 1)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("past the limit the fourth press must be dropped: %v %x", err, out)
	}
	// Repeats of a held key and releases still pass when full.
	more := append(append(append([]byte{}, in...), keyEvent(true, 0x61)...), keyEvent(false, 0x62)...)
	if out, err = feedAll(t, lim, true, more, 1); err != nil || !bytes.Equal(out, more) {
		t.Fatalf("repeat and release when full: %v %x", err, out)
	}
}

func TestReleaseOnKeyboardLoss(t *testing.T) {
	g := NewGate(Limits{})
	g.SetKeyboard(true)
	in := append(append(append(keyEvent(true, 0xffe1), qemuKey(true, 0x61, 30)...), pointer(1, 100, 200)...), keyEvent(true, 0x62)...)
	in = append(in, keyEvent(false, 0x62)...)
	out, err := g.Feed(nil, in)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("holder: %v", err)
	}
	g.SetKeyboard(false)
	rel := g.Release(nil)
	want := append(append(keyEvent(false, 0xffe1), qemuKey(false, 0x61, 30)...), pointer(0, 100, 200)...)
	if !bytes.Equal(rel, want) {
		t.Fatalf("release:\n got %x\nwant %x", rel, want)
	}
	if g.holding() {
		t.Fatal("still holding after release")
	}
	if rel = g.Release(nil); len(rel) != 0 {
		t.Fatalf("second release sent %x", rel)
	}
	// The key-up the browser sends later is input from a watcher: dropped.
	if out, _ = g.Feed(nil, keyEvent(false, 0xffe1)); len(out) != 0 {
		t.Fatalf("watcher key-up forwarded: %x", out)
	}
}

func TestReleaseWaitsForMessageInFlight(t *testing.T) {
	g := NewGate(Limits{})
	g.SetKeyboard(true)
	ct := cutText(6, []byte("abcdef"))
	out, _ := g.Feed(nil, append(keyEvent(true, 0x61), ct[:10]...))
	g.SetKeyboard(false)
	if rel := g.Release(nil); len(rel) != 0 || !g.releasePending() {
		t.Fatalf("release in the middle of a forwarded cut text: %x", rel)
	}
	out, _ = g.Feed(out, ct[10:])
	want := append(append(keyEvent(true, 0x61), ct...), keyEvent(false, 0x61)...)
	if !bytes.Equal(out, want) {
		t.Fatalf("got %x\nwant %x", out, want)
	}
	// A key press whose first byte came while holding, finished after the
	// loss: it passes (verdict at the first byte) and is released at once.
	g = NewGate(Limits{})
	g.SetKeyboard(true)
	k := qemuKey(true, 0x61, 30)
	out, _ = g.Feed(nil, k[:3])
	g.SetKeyboard(false)
	out = g.Release(out)
	out, _ = g.Feed(out, k[3:])
	if want := append(append([]byte{}, k...), qemuKey(false, 0x61, 30)...); !bytes.Equal(out, want) {
		t.Fatalf("split press: got %x want %x", out, want)
	}
}

func TestProtocolErrorText(t *testing.T) {
	_, err := feedAll(t, Limits{}, true, append(append([]byte{}, fbur...), rfb.MsgXvp, 0, 1, 2), 0)
	want := "rfb: forbidden client message: xvp at client byte 10: not relayed"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

// minAllocs is the least of several testing.AllocsPerRun: that counts every
// goroutine's allocations, and a goroutine left from an earlier test (a
// closing browser, a timer) must not fail an allocation test.
func minAllocs(runs int, f func()) float64 {
	best := testing.AllocsPerRun(runs, f)
	for i := 0; i < 5 && best > 0; i++ {
		best = min(best, testing.AllocsPerRun(runs, f))
	}
	return best
}

// TestFastPathNeverCloses: every message the gate takes whole
// (rfb.FixedLen) is one it passes or gates, never one it closes on.
func TestFastPathNeverCloses(t *testing.T) {
	for typ := 0; typ < 256; typ++ {
		in := make([]byte, 32)
		in[0] = byte(typ)
		if rfb.FixedLen(in) != 0 && classOf(byte(typ)) == classClose {
			t.Errorf("%s: taken whole, class %v", messageName(byte(typ)), classOf(byte(typ)))
		}
	}
}
