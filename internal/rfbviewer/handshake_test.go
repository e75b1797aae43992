package rfbviewer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/framebuffer"
)

// script is a server's side of a handshake: what it sends, and what the
// client wrote to it.
type script struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (s *script) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s *script) Write(p []byte) (int, error) { return s.out.Write(p) }

func serverInit(w, h int, name string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(w))
	b = binary.BigEndian.AppendUint16(b, uint16(h))
	pf := framebuffer.PixelFormat{BitsPerPixel: 32, Depth: 24, TrueColour: true, RedMax: 255, GreenMax: 255, BlueMax: 255, RedShift: 16, GreenShift: 8}.Bytes()
	b = append(b, pf[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	return append(b, name...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestHandshake(t *testing.T) {
	ok38 := cat([]byte("RFB 003.008\n"), []byte{2, 2, 1}, []byte{0, 0, 0, 0}, serverInit(640, 480, "glass"))
	for _, c := range []struct {
		name, server string
		in           []byte
		wantOut      []byte
		err          string
	}{
		{name: "3.8", in: ok38, wantOut: []byte("RFB 003.008\n\x01\x01")},
		{name: "3.889 answered 3.8", in: cat([]byte("RFB 003.889\n"), ok38[12:]), wantOut: []byte("RFB 003.008\n\x01\x01")},
		{name: "3.7", in: cat([]byte("RFB 003.007\n"), []byte{1, 1}, serverInit(640, 480, "glass")), wantOut: []byte("RFB 003.007\n\x01\x01")},
		{name: "3.3", in: cat([]byte("RFB 003.003\n"), []byte{0, 0, 0, 1}, serverInit(640, 480, "glass")), wantOut: []byte("RFB 003.003\n\x01")},
		{name: "not RFB", in: []byte("HTTP/1.1 200\n"), err: "want RFB"},
		{name: "version 4", in: []byte("RFB 004.000\n"), err: "want RFB"},
		{name: "refused 3.8", in: cat([]byte("RFB 003.008\n\x00\x00\x00\x00\x07go away")), err: `"go away"`},
		{name: "refused 3.3", in: cat([]byte("RFB 003.003\n\x00\x00\x00\x00\x00\x00\x00\x03bye")), err: `"bye"`},
		{name: "3.3 VNC auth", in: cat([]byte("RFB 003.003\n\x00\x00\x00\x02")), err: "only None"},
		{name: "no None", in: cat([]byte("RFB 003.008\n\x01\x02")), err: "not None"},
		{name: "security failed", in: cat([]byte("RFB 003.008\n\x01\x01\x00\x00\x00\x01\x00\x00\x00\x02no")), err: `"no"`},
		{name: "cut in ServerInit", in: ok38[:len(ok38)-3], err: "unexpected EOF"},
		{name: "name too long", in: cat([]byte("RFB 003.008\n"), []byte{1, 1}, []byte{0, 0, 0, 0}, serverInit(640, 480, strings.Repeat("n", MaxNameLen+1))), err: "at most 4096"},
		{name: "name at the limit", in: cat([]byte("RFB 003.008\n"), []byte{1, 1}, []byte{0, 0, 0, 0}, serverInit(640, 480, strings.Repeat("n", MaxNameLen))), wantOut: []byte("RFB 003.008\n\x01\x01")},
		{name: "empty", in: nil, err: "unexpected EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &script{in: bytes.NewReader(c.in)}
			si, err := Handshake(s)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrHandshake) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if si.Width != 640 || si.Height != 480 || si.Format.RedShift != 16 || (si.Name != "glass" && len(si.Name) != MaxNameLen) {
				t.Fatalf("ServerInit %+v", si)
			}
			if !bytes.Equal(s.out.Bytes(), c.wantOut) {
				t.Fatalf("client sent %q, want %q", s.out.Bytes(), c.wantOut)
			}
		})
	}
}

// FuzzHandshake: any server bytes give a ServerInit or an error, never a
// panic, and a name of at most MaxNameLen bytes; a long reason is read
// only as far as it is quoted.
func FuzzHandshake(f *testing.F) {
	f.Add(cat([]byte("RFB 003.008\n"), []byte{2, 2, 1}, []byte{0, 0, 0, 0}, serverInit(640, 480, "glass")))
	f.Add(cat([]byte("RFB 003.003\n"), []byte{0, 0, 0, 1}, serverInit(1, 1, "")))
	f.Add([]byte("RFB 003.008\n\x00\xff\xff\xff\xffx"))
	f.Fuzz(func(t *testing.T, in []byte) {
		si, err := Handshake(&script{in: bytes.NewReader(in)})
		if err == nil && len(si.Name) > MaxNameLen {
			t.Fatalf("name of %d bytes", len(si.Name))
		}
	})
}

func TestCovers(t *testing.T) {
	v := &Viewer{}
	add := func(x, y, w, h int) {
		v.rects = append(v.rects, framebuffer.Rect{X: x, Y: y, W: w, H: h})
		v.area += int64(w * h)
	}
	reset := func() { v.rects, v.area = nil, 0 }
	add(0, 0, 13, 7)
	if !v.covers(13, 7) {
		t.Fatal("one full rectangle does not cover")
	}
	reset()
	add(0, 0, 13, 3)
	add(0, 3, 6, 4)
	add(6, 3, 7, 4)
	if !v.covers(13, 7) {
		t.Fatal("three tiling rectangles do not cover")
	}
	reset()
	add(0, 0, 13, 4)
	add(0, 3, 13, 3) // overlaps: area enough, the last row missing
	if v.covers(13, 7) {
		t.Fatal("overlapping rectangles that miss a row cover")
	}
	reset()
	add(0, 0, 64, 1)
	add(1, 1, 10, 1) // 190 of 128 pixels counted, (0,1) missing
	add(11, 1, 53, 1)
	add(1, 1, 63, 1)
	if v.covers(64, 2) {
		t.Fatal("a missing first pixel of a row is covered")
	}
}
