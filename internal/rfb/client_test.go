package rfb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// parse steps p through in, handing it chunk bytes at a time (0: all at
// once), and returns the events (a payload's EvBody pieces as one), the
// payload bytes and the error.
func parse(p *ClientParser, in []byte, chunk int) (evs []Event, body []byte, err error) {
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for len(in) > 0 {
		piece := in[:min(chunk, len(in))]
		in = in[len(piece):]
		for {
			n, ev, b, err := p.Step(piece)
			if err != nil {
				return evs, body, err
			}
			piece = piece[n:]
			if ev == EvNeedMore {
				break
			}
			if ev != EvBody || len(evs) == 0 || evs[len(evs)-1] != EvBody { // a payload's pieces count once
				evs = append(evs, ev)
			}
			body = append(body, b...)
		}
	}
	return evs, body, nil
}

// TestClientParserEveryType: every framed message, one byte at a time and
// whole, gives start, header, its payload, end, and the right offsets.
func TestClientParserEveryType(t *testing.T) {
	cut := binary.BigEndian.AppendUint32([]byte{MsgClientCutText, 0, 0, 0}, 5)
	ext := binary.BigEndian.AppendUint32([]byte{MsgClientCutText, 0, 0, 0}, uint32(0xfffffff8)) // -8: extended
	msgs := []struct {
		in   []byte
		body int
	}{
		{append([]byte{MsgSetPixelFormat, 0, 0, 0}, make([]byte, 16)...), 0},
		{[]byte{MsgSetEncodings, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xfe, 0xfe}, 0},
		{[]byte{MsgFramebufferUpdateRequest, 1, 0, 0, 0, 0, 0, 10, 0, 10}, 0},
		{[]byte{MsgKeyEvent, 1, 0, 0, 0, 0, 0, 0x61}, 0},
		{[]byte{MsgPointerEvent, 1, 0, 3, 0, 4}, 0},
		{append(cut, "hello"...), 5},
		{append(ext, 0, 0, 0, 1, 'a', 'b', 'c', 'd'), 8},
		{[]byte{MsgEnableContinuousUpdates, 1, 0, 0, 0, 0, 0, 10, 0, 10}, 0},
		{[]byte{MsgClientFence, 0, 0, 0, 0, 0, 0, 1, 2, 'x', 'y'}, 2},
		{append([]byte{MsgSetDesktopSize, 0, 3, 0, 2, 0, 1, 0}, make([]byte, 16)...), 16},
		{[]byte{MsgQEMU, QEMUExtendedKeyEvent, 0, 1, 0, 0, 0, 0x62, 0, 0, 0, 48}, 0},
	}
	for _, chunk := range []int{1, 2, 5, 0} {
		p := NewClientParser(8)
		var off int64
		for _, m := range msgs {
			evs, body, err := parse(p, m.in, chunk)
			if err != nil {
				t.Fatalf("chunk %d, %s: %v", chunk, MessageName(m.in[0]), err)
			}
			want := []Event{EvStart, EvHeader, EvEnd}
			if m.body > 0 {
				want = []Event{EvStart, EvHeader, EvBody, EvEnd}
			}
			if evs[0] != want[0] || evs[1] != want[1] || evs[len(evs)-1] != EvEnd || len(body) != m.body ||
				!bytes.Equal(body, m.in[len(m.in)-m.body:]) || p.Type() != m.in[0] || p.MessageOffset() != off || p.BodyLen() != int64(m.body) {
				t.Fatalf("chunk %d, %s: events %v, body %q, type %d at %d", chunk, MessageName(m.in[0]), evs, body, p.Type(), p.MessageOffset())
			}
			off += int64(len(m.in))
			if p.Offset() != off || !p.AtBoundary() {
				t.Fatalf("chunk %d, %s: offset %d, want %d", chunk, MessageName(m.in[0]), p.Offset(), off)
			}
		}
	}
}

// TestClientParserErrors: unknown and unframed types, the limits, a
// contradiction, the text, and the error stays.
func TestClientParserErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		kind error
	}{
		{"xvp", []byte{MsgXvp, 0, 1, 2}, ErrForbiddenMessage},
		{"gii", []byte{MsgGii, 0x80, 0, 4}, ErrForbiddenMessage},
		{"qemu-audio", []byte{MsgQEMU, QEMUAudio, 0, 0}, ErrForbiddenMessage},
		{"qemu-unknown", []byte{MsgQEMU, 9, 0, 0}, ErrUnknownMessage},
		{"type-1", []byte{1}, ErrUnknownMessage},
		{"encodings", []byte{MsgSetEncodings, 0, 0, 9}, ErrLimit},
		{"fence", []byte{MsgClientFence, 0, 0, 0, 0, 0, 0, 0, MaxFencePayload + 1}, ErrLimit},
		{"extended-cut", []byte{MsgClientCutText, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe}, ErrMalformed},
	}
	for _, c := range cases {
		p := NewClientParser(8)
		_, _, err := parse(p, append([]byte{MsgFramebufferUpdateRequest, 1, 0, 0, 0, 0, 0, 10, 0, 10}, c.in...), 1)
		var pe *ProtocolError
		if !errors.Is(err, c.kind) || !errors.As(err, &pe) || pe.Offset != 10 || pe.Type != c.in[0] {
			t.Errorf("%s: %v, want %v at byte 10", c.name, err, c.kind)
		}
		if _, _, again := parse(p, []byte{MsgKeyEvent}, 0); again != err {
			t.Errorf("%s: after the error, %v", c.name, again)
		}
	}
	_, _, err := parse(NewClientParser(8), []byte{MsgXvp}, 0)
	if want := "rfb: forbidden client message: xvp at client byte 0: not relayed"; err == nil || err.Error() != want {
		t.Errorf("text %q, want %q", err, want)
	}
}

// FuzzClientParser: arbitrary bytes in arbitrary pieces never panic, give
// the same events, payload and error as one piece, and never hold more
// than a message's fixed part.
func FuzzClientParser(f *testing.F) {
	f.Add([]byte{MsgKeyEvent, 1, 0, 0, 0, 0, 0, 0x61, MsgClientFence, 0, 0, 0, 0, 0, 0, 1, 2, 'x', 'y'}, uint8(3))
	f.Add([]byte{MsgSetEncodings, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xfe, 0xfe}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		p := NewClientParser(16)
		evs, body, err := parse(p, data, int(chunk%16))
		if cap(p.hdr) != 4+4*16 {
			t.Fatalf("header grew to %d", cap(p.hdr))
		}
		wantEvs, wantBody, wantErr := parse(NewClientParser(16), data, 0)
		if len(evs) != len(wantEvs) || !bytes.Equal(body, wantBody) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("pieces of %d: %v %q %v; whole: %v %q %v", chunk%16, evs, body, err, wantEvs, wantBody, wantErr)
		}
	})
}

// TestFixedLenTable: FixedLen's lengths are the table's. Every type
// FixedLen takes whole has a fixed size in msgTable equal to its
// length (the QEMU extended key event extends its 2-byte first stage to
// QEMUKeyEventLen, as Step's extend does), and Step reads a message of that
// length the same way: one start, one header, one end, every byte used.
func TestFixedLenTable(t *testing.T) {
	taken := 0
	for typ := 0; typ < 256; typ++ {
		in := make([]byte, 32)
		in[0] = byte(typ)
		n := FixedLen(in)
		if n == 0 {
			continue
		}
		taken++
		want := msgTable[typ].base
		if typ == MsgQEMU {
			want = QEMUKeyEventLen
		}
		if n != want {
			t.Errorf("%s: FixedLen %d, table %d", MessageName(byte(typ)), n, want)
		}
		p := NewClientParser(128)
		used := 0
		var evs []Event
		for {
			k, ev, _, err := p.Step(in[used:n])
			if err != nil {
				t.Fatalf("%s: %v", MessageName(byte(typ)), err)
			}
			used += k
			if ev == EvNeedMore {
				break
			}
			evs = append(evs, ev)
		}
		if used != n || len(evs) != 3 || evs[2] != EvEnd {
			t.Errorf("%s: Step used %d of %d bytes, events %v", MessageName(byte(typ)), used, n, evs)
		}
		// TookWhole leaves the parser as Step did.
		q := NewClientParser(128)
		q.TookWhole(byte(typ), n)
		if q.Offset() != p.Offset() || q.Type() != p.Type() || q.MessageOffset() != p.MessageOffset() || q.BodyLen() != 0 || !q.AtBoundary() || !p.AtBoundary() {
			t.Errorf("%s: tookWhole gives offset %d, type %d, start %d; Step %d, %d, %d", MessageName(byte(typ)), q.Offset(), q.Type(), q.MessageOffset(), p.Offset(), p.Type(), p.MessageOffset())
		}
	}
	if taken != 5 {
		t.Errorf("%d types taken whole, want 5 (key, pointer, the two update requests, QEMU key)", taken)
	}
	in := []byte{MsgQEMU, QEMUAudio, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if n := FixedLen(in); n != 0 {
		t.Errorf("QEMU audio taken whole (%d)", n)
	}
}
