package rfb

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// pf32 is noVNC's pixel format: 32 bits per pixel, depth 24, true colour
// (TPIXEL of 3 bytes); pf16 is 16 bits per pixel (TPIXEL of 2).
var (
	pf32 = []byte{32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0}
	pf16 = []byte{16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0}
)

func rectHdr(x, y, w, h uint16, e Encoding) []byte {
	b := binary.BigEndian.AppendUint16(nil, x)
	b = binary.BigEndian.AppendUint16(b, y)
	b = binary.BigEndian.AppendUint16(b, w)
	b = binary.BigEndian.AppendUint16(b, h)
	return binary.BigEndian.AppendUint32(b, uint32(e))
}

// frameAll frames in, handing the framer chunk bytes at a time (0: all),
// and returns a copy of every header; payloads are skipped by length.
func frameAll(t testing.TB, pf, in []byte, chunk int) ([]Header, error) {
	t.Helper()
	var f ServerFramer
	if err := f.SetPixelFormat(pf); err != nil {
		t.Fatal(err)
	}
	if chunk <= 0 {
		chunk = len(in) + MaxServerHeader
	}
	var hs []Header
	for off := 0; off < len(in); {
		end := min(len(in), off+chunk)
		for {
			n, h, err := f.Next(in[off:end])
			if err != nil {
				return hs, err
			}
			if n > 0 {
				hs = append(hs, *h)
				off += n + int(h.Payload)
				break
			}
			if end == len(in) {
				return hs, nil // cut short
			}
			if end-off > MaxServerHeader {
				t.Fatalf("no header in %d bytes at %d", end-off, off)
			}
			end = min(len(in), end+chunk)
		}
	}
	if f.Offset() < int64(len(in)) {
		t.Fatalf("framer at %d of %d", f.Offset(), len(in))
	}
	return hs, nil
}

// TestServerFramerEveryPart: one update with a rectangle of every framed
// encoding and Tight sub-encoding, and every message type; headers and
// payloads as the protocol says, the same whole or a byte at a time.
func TestServerFramerEveryPart(t *testing.T) {
	var in []byte
	in = append(in, MsgFramebufferUpdate, 0, 0, 12)
	in = append(append(in, rectHdr(0, 0, 2, 3, EncodingRaw)...), make([]byte, 2*3*4)...)
	in = append(in, append(rectHdr(4, 4, 2, 2, EncodingCopyRect), 0, 0, 0, 0)...)
	in = append(in, append(rectHdr(0, 0, 64, 64, EncodingZRLE), 0, 0, 0, 3, 1, 2, 3)...)
	in = append(in, append(rectHdr(0, 0, 9, 9, EncodingTight), 0x81, 1, 2, 3)...)                             // fill, reset stream 0
	in = append(in, append(rectHdr(0, 0, 9, 9, EncodingTight), 0x90, 0x82, 0x01)...)                          // JPEG, 130 bytes
	in = append(in, make([]byte, 130)...)                                                                     //
	in = append(in, append(rectHdr(0, 0, 2, 1, EncodingTight), 0x00, 1, 2, 3, 4, 5, 6)...)                    // copy, 6 bytes as they are
	in = append(in, append(rectHdr(0, 0, 8, 8, EncodingTight), 0x60, 1, 2, 9, 9, 9, 8, 8, 8, 7, 7, 7, 20)...) // palette of 3, stream 2, 64 bytes in zlib
	in = append(in, make([]byte, 20)...)                                                                      //
	in = append(in, append(rectHdr(0, 0, 8, 8, EncodingTight), 0x40, 2, 5)...)                                // gradient, 192 bytes in 5
	in = append(in, make([]byte, 5)...)                                                                       //
	in = append(in, append(rectHdr(0, 0, 2, 2, EncodingCursor), make([]byte, 2*2*4+2)...)...)
	in = append(in, append(rectHdr(0, 0, 1, 1, EncodingVMwareCursor), 1, 0, 1, 2, 3, 4)...)
	in = append(in, append(rectHdr(0, 0, 0, 0, EncodingDesktopName), 0, 0, 0, 2, 'h', 'i')...)
	in = append(in, rectHdr(0, 0, 0, 0, EncodingLastRect)...) // ends the update before its 12th
	in = append(in, MsgBell)
	in = append(in, MsgSetColourMapEntries, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6)
	in = append(in, MsgServerCutText, 0, 0, 0, 0, 0, 0, 2, 'o', 'k')
	in = append(in, MsgServerCutText, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9, 1, 0, 0, 1, 'x', 'y', 'z') // extended: -7, caps
	in = append(in, MsgServerFence, 0, 0, 0, 0, 0, 0, 0, 1, 'f')
	in = append(in, MsgEndOfContinuousUpdates, MsgXvp, 0, 1, 2)
	in = append(in, MsgFramebufferUpdate, 0, 0, 1)
	in = append(in, append(rectHdr(0, 0, 0, 0, EncodingExtendedDesktop), 1, 0, 0, 0)...)
	in = append(in, make([]byte, 16)...)

	type row struct {
		part    Part
		payload int64
		kind    Kind
	}
	want := []row{
		{PartMessage, 0, 0},
		{PartRect, 24, KindRaw}, {PartRect, 4, KindCopyRect}, {PartRect, 3, KindZRLE},
		{PartRect, 0, KindPseudo}, {PartTightControl, 3, KindTightFill},
		{PartRect, 0, KindPseudo}, {PartTightControl, 0, KindTightJPEG}, {PartTightLength, 130, KindTightJPEG},
		{PartRect, 0, KindPseudo}, {PartTightControl, 6, KindTightCopy},
		{PartRect, 0, KindPseudo}, {PartTightControl, 0, KindPseudo}, {PartTightFilter, 0, KindTightPalette}, {PartTightPalette, 9, KindTightPalette}, {PartTightLength, 20, KindTightPalette},
		{PartRect, 0, KindPseudo}, {PartTightControl, 0, KindPseudo}, {PartTightFilter, 0, KindTightGradient}, {PartTightLength, 5, KindTightGradient},
		{PartRect, 18, KindPseudo}, {PartRect, 4, KindPseudo}, {PartRect, 2, KindPseudo}, {PartRect, 0, KindPseudo},
		{PartMessage, 0, 0}, {PartMessage, 6, 0}, {PartMessage, 2, 0}, {PartMessage, 3, 0}, {PartMessage, 1, 0},
		{PartMessage, 0, 0}, {PartMessage, 0, 0},
		{PartMessage, 0, 0}, {PartRect, 16, KindPseudo},
	}
	for _, chunk := range []int{1, 3, 0} {
		hs, err := frameAll(t, pf32, in, chunk)
		if err != nil || len(hs) != len(want) {
			t.Fatalf("chunk %d: %d headers (want %d), %v", chunk, len(hs), len(want), err)
		}
		for i, h := range hs {
			w := want[i]
			if h.Part != w.part || h.Payload != w.payload || (h.Part != PartMessage && h.Kind != w.kind) {
				t.Fatalf("chunk %d, header %d: part %d payload %d kind %d; want %+v", chunk, i, h.Part, h.Payload, h.Kind, w)
			}
		}
		if h := hs[27]; !h.Extended || h.Flags != 1<<24|1 || h.Message != hs[26].Message+10 {
			t.Fatalf("extended cut text: %+v", h)
		}
		if h := hs[14]; h.Colours != 3 || h.Data != 64 || h.Rect != 6 {
			t.Fatalf("palette: %+v", h)
		}
	}
}

// TestServerFramerPixelFormats: Raw and Tight sizes follow the pixel
// format; a format whose TPIXEL size is ambiguous, or of 24 bits per
// pixel, is refused.
func TestServerFramerPixelFormats(t *testing.T) {
	if TPixelSize(pf32) != 3 || TPixelSize(pf16) != 2 {
		t.Fatalf("TPIXEL sizes %d, %d", TPixelSize(pf32), TPixelSize(pf16))
	}
	in := append([]byte{MsgFramebufferUpdate, 0, 0, 2}, rectHdr(0, 0, 3, 1, EncodingRaw)...)
	in = append(append(in, make([]byte, 6)...), append(rectHdr(0, 0, 1, 1, EncodingTight), 0x80, 1, 2)...)
	hs, err := frameAll(t, pf16, in, 0)
	if err != nil || len(hs) != 4 || hs[1].Payload != 6 || hs[3].Payload != 2 {
		t.Fatalf("16 bpp: %+v, %v", hs, err)
	}
	var f ServerFramer
	odd := append([]byte{}, pf32...)
	odd[10], odd[11], odd[12] = 4, 12, 20
	if err := f.SetPixelFormat(odd); err == nil || !strings.Contains(err.Error(), "colour shifts 4, 12, 20") {
		t.Fatalf("colours off byte boundaries: %v", err)
	}
	if err := f.SetPixelFormat(append([]byte{24}, pf32[1:]...)); err == nil {
		t.Fatal("24 bits per pixel accepted")
	}
}

// TestServerFramerErrors: what cannot be framed says what, in which
// message and where.
func TestServerFramerErrors(t *testing.T) {
	upd := []byte{MsgFramebufferUpdate, 0, 0, 1}
	tight := func(b ...byte) []byte {
		return append(append(append([]byte{}, upd...), rectHdr(0, 0, 64, 64, EncodingTight)...), b...)
	}
	cases := []struct {
		name string
		in   []byte
		max  int64
		want string
	}{
		{"unknown type", []byte{MsgBell, 9}, 0, "server message type 9 at server byte 1: unknown server message type 9"},
		{"fence", []byte{MsgServerFence, 0, 0, 0, 0, 0, 0, 0, 65}, 0, "fence payload of 65 bytes, limit 64"},
		{"short extended cut", []byte{MsgServerCutText, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe}, 0, "extended clipboard length 2 is shorter"},
		{"unknown encoding", append(append([]byte{}, upd...), rectHdr(0, 0, 1, 1, EncodingTightPNG)...), 0, "type 0 at server byte 0: rectangle at server byte 4: encoding -260 is not one that is framed"},
		{"VMware type", append(append(append([]byte{}, upd...), rectHdr(0, 0, 1, 1, EncodingVMwareCursor)...), 2, 0), 0, "VMware cursor type 2"},
		{"PNG", tight(0xa0), 0, "Tight rectangle at server byte 4: control byte 0xa0: PNG"},
		{"invalid control", tight(0xb0), 0, "compression type 11 is invalid"},
		{"filter", tight(0x40, 3), 0, "filter id 3 is invalid"},
		{"compact length", tight(0x90, 0x81, 0x80, 0x40), 0, "compact length 1048577, limit 1048576"},
		{"compact length, own limit", tight(0x90, 0xe9, 0x07), 1000, "compact length 1001, limit 1000"},
	}
	for _, c := range cases {
		var f ServerFramer
		f.SetPixelFormat(pf32)
		f.MaxCompactLen = c.max
		var err error
		for off := 0; off < len(c.in) && err == nil; {
			var n int
			var h *Header
			n, h, err = f.Next(c.in[off:])
			if n == 0 && err == nil {
				t.Fatalf("%s: cut short at %d", c.name, off)
			}
			if err == nil {
				off += n + int(h.Payload)
			}
		}
		if !errors.Is(err, ErrServerStream) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if _, _, again := f.Next([]byte{MsgBell}); again != err {
			t.Errorf("%s: after the error, %v", c.name, again)
		}
	}
	var f ServerFramer
	f.SetPixelFormat(pf16)
	in := append(append([]byte{}, upd...), rectHdr(0, 0, 8, 8, EncodingTight)...)
	pf8 := append([]byte{8, 8}, pf16[2:]...)
	f.SetPixelFormat(pf8)
	_, err := frameAll(t, pf8, append(in, 0x40, 2), 0)
	if err == nil || !strings.Contains(err.Error(), "gradient filter at 8 bits per pixel") {
		t.Errorf("gradient at 8 bpp: %v", err)
	}
}

// FuzzServerFramer: arbitrary bytes, framed in pieces of any size, give
// the headers and the error that framing them whole gives, never need
// more than MaxServerHeader bytes, and never panic.
func FuzzServerFramer(f *testing.F) {
	f.Add(append([]byte{MsgFramebufferUpdate, 0, 0, 1}, append(rectHdr(0, 0, 8, 8, EncodingTight), 0x60, 1, 2, 9, 9, 9, 8, 8, 8, 7, 7, 7, 20)...), uint8(1))
	f.Add([]byte{MsgServerCutText, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9, 1, 0, 0, 1, 'x', 'y', 'z', MsgBell}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, werr := frameAll(t, pf32, data, 0)
		hs, err := frameAll(t, pf32, data, 1+int(chunk%20))
		if len(hs) != len(whole) || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("pieces: %d headers, %v; whole: %d, %v", len(hs), err, len(whole), werr)
		}
		for i := range hs {
			if hs[i] != whole[i] {
				t.Fatalf("header %d: %+v in pieces, %+v whole", i, hs[i], whole[i])
			}
		}
	})
}
