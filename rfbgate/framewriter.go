package rfbgate

import (
	"encoding/binary"
	"io"
	"math"
	"net"
)

// frameWriter is what coder/websocket's buffered writer writes to: it
// hands the connection each WebSocket frame in one write(v), where the
// buffered writer would make two of a frame larger than its buffer (the
// buffer's worth, header and the payload's first bytes, then the rest).
// For a viewer that keeps up, a write is mostly its fixed cost (the
// system call, and on loopback the receiver's wake-up), so this halves
// what each update costs glass in system calls.
//
// It holds the start of a frame not yet complete (at most frameHoldMax
// bytes: the bytes of a frame larger than that, not yet complete, are
// written as they come) and writes it with the write that completes the
// frame. Bytes go out in the order they came. coder/websocket writes a
// whole frame before it flushes, so nothing is held once the buffered
// writer's Flush has returned.
type frameWriter struct {
	w    io.Writer
	hold []byte // the start of a frame not yet complete; starts at a frame's start
	pass int    // bytes still to come of a frame written as they come (hold is empty)
	bufs net.Buffers
	arr  [2][]byte
	// calls counts the writes it made (each write(v) one), for tests.
	calls int
}

// frameHoldMax bounds the bytes a frameWriter holds: the buffered
// writer's buffer, plus a frame header.
const frameHoldMax = 4<<10 + maxFrameHeader

// maxFrameHeader is the longest WebSocket frame header: 2 bytes, a 64-bit
// length, a masking key.
const maxFrameHeader = 14

// frameSize returns the size of the frame that b starts with (header and
// payload), or false when b is too short to tell (shorter than
// maxFrameHeader).
func frameSize(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	n, hdr := uint64(b[1]&0x7f), 2
	switch n {
	case 126:
		if len(b) < 4 {
			return 0, false
		}
		n, hdr = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return 0, false
		}
		n, hdr = binary.BigEndian.Uint64(b[2:]), 10
	}
	if b[1]&0x80 != 0 {
		hdr += 4
	}
	return int(min(n, uint64(math.MaxInt-maxFrameHeader))) + hdr, true
}

// Write writes p, holding the end of it that starts a frame not yet
// complete.
func (f *frameWriter) Write(p []byte) (int, error) {
	n := len(p)
	if f.pass > 0 {
		k := min(f.pass, len(p))
		f.calls++
		if _, err := f.w.Write(p[:k]); err != nil {
			return 0, err
		}
		f.pass -= k
		p = p[k:]
	}
	// Walk the frames of hold+p from hold's start: cut is where the last
	// complete one ends; size, the size of the one after it, if known.
	cut, size, total := 0, 0, len(f.hold)+len(p)
	for cut < total {
		var hdr [maxFrameHeader]byte
		k := 0
		if cut < len(f.hold) {
			k = copy(hdr[:], f.hold[cut:])
		}
		k += copy(hdr[k:], p[max(cut-len(f.hold), 0):])
		s, ok := frameSize(hdr[:k])
		if !ok {
			size = 0
			break
		}
		if size = s; s > total-cut { // (cut+s may overflow)
			break
		}
		cut += s
	}
	if cut == 0 && total <= frameHoldMax {
		f.hold = append(f.hold, p...) // no frame complete yet
		return n, nil
	}
	inP := cut - len(f.hold) // 0 when cut is 0: hold and all of p go out
	if cut == 0 {
		inP = len(p)
	}
	f.calls++
	f.bufs = append(f.arr[:0], f.hold, p[:inP])
	_, err := f.bufs.WriteTo(f.w)
	f.bufs, f.arr = nil, [2][]byte{}
	if cut == 0 { // a frame too large to hold: the rest of it passes
		f.pass = size - total
	}
	f.hold = f.hold[:0]
	if err != nil {
		return 0, err
	}
	rest := p[inP:]
	if len(rest) <= frameHoldMax {
		f.hold = append(f.hold, rest...)
		return n, nil
	}
	f.calls++
	if _, err := f.w.Write(rest); err != nil { // the start of a frame too large to hold
		return n - len(rest), err
	}
	f.pass = size - len(rest)
	return n, nil
}
