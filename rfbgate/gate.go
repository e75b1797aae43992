package rfbgate

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/wirebench/wirebench/internal/rfb"
)

// heldKey is one key a viewer pressed and has not released, in the form it
// pressed it: a plain KeyEvent (qemu false) or a QEMU extended key event.
type heldKey struct {
	keysym  uint32
	keycode uint32
	qemu    bool
}

// GateStats counts what a gate did. Read it with Gate.Stats.
type GateStats struct {
	Messages      uint64 // client messages read
	Passed        uint64 // messages forwarded (the sum of PassedByType)
	DroppedInput  uint64 // input messages dropped: no keyboard, over a limit
	ReleasesSent  uint64 // times key-ups and a buttonless pointer event were injected
	BytesIn       uint64 // client bytes read
	BytesForward  uint64 // bytes written towards the server
	EncodingsDrop uint64 // entries removed from SetEncodings (see encodingKept)
	// DroppedByType counts dropped messages by message type.
	DroppedByType [256]uint64
	// PassedByType counts forwarded messages by message type.
	PassedByType [256]uint64
}

// Gate decides, message by message, which client bytes reach the server.
//
// A message's verdict is taken at its first byte from the keyboard flag and
// holds for all of it. Messages needed to see the screen always pass
// (SetEncodings keeps only the encodings the relay frames, never −316);
// input (keys, pointer, clipboard, desktop size) passes only while the flag
// is set; xvp, gii, QEMU audio and unknown types end the stream with a
// *ProtocolError.
//
// SetKeyboard and HasKeyboard are safe to call from any goroutine (the flag
// is an atomic); Feed and Release must not run concurrently with each other.
type Gate struct {
	kbd atomic.Bool
	p   *rfb.ClientParser
	lim Limits

	fwd     bool // verdict of the current message
	mid     bool // part of the current message was already forwarded
	pending bool // key-ups are owed once the current message ends

	held      []heldKey
	buttons   uint8
	px, py    uint16
	pointerOn bool // a pointer event was forwarded since the last release

	// onPixelFormat, when set (framePixelFormat), hears every forwarded
	// SetPixelFormat; updated is set once updates were asked for.
	onPixelFormat func(pf []byte) error
	updated       bool

	stats GateStats
}

// framePixelFormat makes the gate tell fn the pixel format of every
// SetPixelFormat it forwards (a serverFilter sizes Raw and cursor
// rectangles by it), and refuse a SetPixelFormat once updates were asked
// for (SetEncodings, FramebufferUpdateRequest, EnableContinuousUpdates):
// rectangles already on their way would be in the old format and the
// server stream could no longer be framed. noVNC sends it once, first.
// An error from fn (an unframable format) closes the stream.
func (g *Gate) framePixelFormat(fn func(pf []byte) error) { g.onPixelFormat = fn }

// pixelFormat applies framePixelFormat's rule to a complete SetPixelFormat.
func (g *Gate) pixelFormat(h []byte) error {
	if g.onPixelFormat == nil {
		return nil
	}
	if g.updated {
		return g.p.Fail(ErrForbiddenMessage, "SetPixelFormat after updates were requested: the relay frames the server's updates by pixel format")
	}
	if err := g.onPixelFormat(h[4:20]); err != nil {
		return g.p.Fail(ErrMalformed, err.Error())
	}
	return nil
}

// NewGate returns a gate for one viewer's stream, without the keyboard.
func NewGate(lim Limits) *Gate {
	lim = lim.withDefaults()
	return &Gate{p: rfb.NewClientParser(lim.MaxEncodings), lim: lim, held: make([]heldKey, 0, lim.MaxHeldKeys)}
}

// SetKeyboard records whether this viewer's surface holds the keyboard. It
// takes effect at the next message's first byte. When the keyboard is taken
// away, call Release (under the same lock as Feed) so keys still held are let go.
func (g *Gate) SetKeyboard(has bool) { g.kbd.Store(has) }

// HasKeyboard reports the keyboard flag.
func (g *Gate) HasKeyboard() bool { return g.kbd.Load() }

// Stats returns the counters. Call it under the lock that serialises Feed.
func (g *Gate) Stats() GateStats {
	st := g.stats
	for _, n := range st.PassedByType {
		st.Passed += n
	}
	return st
}

// Feed parses a chunk of client bytes and appends to dst what may reach the
// server: the passing messages (rewritten where the gate rewrites) and, when
// the keyboard has gone, key-ups for keys this viewer still holds. On error
// dst holds everything forwarded before the bad message; close the stream.
func (g *Gate) Feed(dst, in []byte) ([]byte, error) {
	g.stats.BytesIn += uint64(len(in))
	before := len(dst)
	for {
		if g.p.AtBoundary() {
			var n int
			dst, n = g.whole(dst, in)
			in = in[n:]
		}
		n, ev, body, err := g.p.Step(in)
		in = in[n:]
		if err != nil {
			g.stats.BytesForward += uint64(len(dst) - before)
			return dst, err
		}
		switch ev {
		case rfb.EvNeedMore:
			g.stats.BytesForward += uint64(len(dst) - before)
			return dst, nil
		case rfb.EvStart:
			g.stats.Messages++
			g.fwd = classOf(g.p.Type()) == classPass || g.kbd.Load()
		case rfb.EvHeader:
			if g.p.Type() == rfb.MsgSetPixelFormat {
				if err := g.pixelFormat(g.p.Header()); err != nil {
					g.stats.BytesForward += uint64(len(dst) - before)
					return dst, err
				}
			}
			if g.fwd {
				dst = g.header(dst, g.p.Header(), g.p.BodyLen())
			}
		case rfb.EvBody:
			if g.fwd {
				dst = append(dst, body...)
			}
		case rfb.EvEnd:
			if g.fwd {
				g.stats.PassedByType[g.p.Type()]++
			} else {
				g.stats.DroppedInput++
				g.stats.DroppedByType[g.p.Type()]++
			}
			g.mid = false
			if g.pending || !g.kbd.Load() {
				dst = g.appendRelease(dst)
			}
		}
	}
}

// whole is the fast path, for a parser between messages: while the input
// starts with a whole fixed-size message (rfb.FixedLen), it decides that
// message in one go (the same decisions as Step's events), tells the parser
// (TookWhole) and returns the bytes consumed.
func (g *Gate) whole(dst, in []byte) ([]byte, int) {
	used := 0
	for len(in) > 0 {
		n := rfb.FixedLen(in)
		if n == 0 || len(in) < n {
			break
		}
		t := in[0]
		g.p.TookWhole(t, n)
		g.stats.Messages++
		g.fwd = classOf(t) == classPass || g.kbd.Load()
		if g.fwd {
			dst = g.header(dst, in[:n], 0)
		}
		if g.fwd {
			g.stats.PassedByType[t]++
		} else {
			g.stats.DroppedInput++
			g.stats.DroppedByType[t]++
		}
		if g.pending || !g.kbd.Load() {
			dst = g.appendRelease(dst)
		}
		in = in[n:]
		used += n
	}
	return dst, used
}

// header handles a complete fixed part whose verdict is "forward".
func (g *Gate) header(dst, h []byte, bodyLen int64) []byte {
	switch h[0] {
	case rfb.MsgSetEncodings:
		g.updated = true
		return g.rewriteEncodings(dst, h)
	case rfb.MsgFramebufferUpdateRequest, rfb.MsgEnableContinuousUpdates:
		g.updated = true
	case rfb.MsgClientCutText:
		if bodyLen > int64(g.lim.MaxCutText) {
			g.fwd = false // over the cap: read through and dropped
			return dst
		}
	case rfb.MsgKeyEvent:
		if !g.trackKey(h[1] != 0, heldKey{keysym: binary.BigEndian.Uint32(h[4:8])}) {
			g.fwd = false
			return dst
		}
	case rfb.MsgQEMU: // only the extended key event gets this far
		down := binary.BigEndian.Uint16(h[2:4]) != 0
		k := heldKey{keysym: binary.BigEndian.Uint32(h[4:8]), keycode: binary.BigEndian.Uint32(h[8:12]), qemu: true}
		if !g.trackKey(down, k) {
			g.fwd = false
			return dst
		}
	case rfb.MsgPointerEvent:
		g.buttons = h[1]
		g.px = binary.BigEndian.Uint16(h[2:4])
		g.py = binary.BigEndian.Uint16(h[4:6])
		g.pointerOn = true
	}
	if bodyLen > 0 {
		g.mid = true
	}
	return append(dst, h...)
}

// rewriteEncodings appends SetEncodings with only the entries encodingKept
// allows: no −316, and only encodings the server stream's framer reads.
func (g *Gate) rewriteEncodings(dst, h []byte) []byte {
	at := len(dst)
	dst = append(dst, h[:4]...)
	n := 0
	for i := 4; i+4 <= len(h); i += 4 {
		if !encodingKept(rfb.Encoding(binary.BigEndian.Uint32(h[i : i+4]))) {
			g.stats.EncodingsDrop++
			continue
		}
		dst = append(dst, h[i:i+4]...)
		n++
	}
	binary.BigEndian.PutUint16(dst[at+2:at+4], uint16(n))
	return dst
}

// trackKey records a press or release; it reports false when a press would
// exceed MaxHeldKeys (the press is then dropped).
func (g *Gate) trackKey(down bool, k heldKey) bool {
	for i, h := range g.held {
		if h.qemu == k.qemu && h.sameKey(k) {
			if !down {
				g.held = append(g.held[:i], g.held[i+1:]...)
			}
			return true
		}
	}
	if !down {
		return true
	}
	if len(g.held) >= g.lim.MaxHeldKeys {
		return false
	}
	g.held = append(g.held, k)
	return true
}

// sameKey: a QEMU key is named by its keycode (keysym when keycode is 0), a
// plain key by its keysym.
func (h heldKey) sameKey(k heldKey) bool {
	if h.qemu && h.keycode != 0 {
		return h.keycode == k.keycode
	}
	return h.keysym == k.keysym
}

// Release appends key-ups for every key this viewer still holds and a
// pointer event with no buttons, if the keyboard flag is off. When part of
// a message is already forwarded, the release waits for that message's end
// (the next Feed appends it), so the server stream never splits a message.
func (g *Gate) Release(dst []byte) []byte {
	if g.kbd.Load() {
		return dst
	}
	if g.mid {
		g.pending = true
		return dst
	}
	return g.appendRelease(dst)
}

// holding reports whether the gate tracks keys or buttons down.
func (g *Gate) holding() bool { return len(g.held) > 0 || g.buttons != 0 }

// releasePending reports whether a release waits for the current message's end.
func (g *Gate) releasePending() bool { return g.pending }

func (g *Gate) appendRelease(dst []byte) []byte {
	g.pending = false
	if len(g.held) == 0 && !g.pointerOn {
		return dst
	}
	for _, k := range g.held {
		if k.qemu {
			dst = append(dst, rfb.MsgQEMU, rfb.QEMUExtendedKeyEvent, 0, 0)
			dst = binary.BigEndian.AppendUint32(dst, k.keysym)
			dst = binary.BigEndian.AppendUint32(dst, k.keycode)
		} else {
			dst = append(dst, rfb.MsgKeyEvent, 0, 0, 0)
			dst = binary.BigEndian.AppendUint32(dst, k.keysym)
		}
	}
	if g.pointerOn {
		dst = append(dst, rfb.MsgPointerEvent, 0)
		dst = binary.BigEndian.AppendUint16(dst, g.px)
		dst = binary.BigEndian.AppendUint16(dst, g.py)
	}
	g.held = g.held[:0]
	g.buttons = 0
	g.pointerOn = false
	g.stats.ReleasesSent++
	return dst
}
