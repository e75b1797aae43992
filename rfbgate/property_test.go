package rfbgate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// refMsg is one generated message with its place in the stream.
type refMsg struct {
	start, hdrEnd, end int // byte offsets: first byte, end of fixed part, end
	typ                uint8
}

// refGate is a whole-message reference for Gate: it sees every message at
// once and the keyboard flag as a function of the byte offset, and computes
// what the streaming gate must forward. It shares no code with gate.go.
type refGate struct {
	lim     Limits
	held    []heldKey
	px, py  uint16
	pointer bool
	pending bool
	out     []byte
}

func (r *refGate) release() {
	r.pending = false
	if len(r.held) == 0 && !r.pointer {
		return
	}
	for _, k := range r.held {
		if k.qemu {
			r.out = append(r.out, 255, 0, 0, 0)
			r.out = binary.BigEndian.AppendUint32(r.out, k.keysym)
			r.out = binary.BigEndian.AppendUint32(r.out, k.keycode)
		} else {
			r.out = append(r.out, 4, 0, 0, 0)
			r.out = binary.BigEndian.AppendUint32(r.out, k.keysym)
		}
	}
	if r.pointer {
		r.out = append(r.out, 5, 0)
		r.out = binary.BigEndian.AppendUint16(r.out, r.px)
		r.out = binary.BigEndian.AppendUint16(r.out, r.py)
	}
	r.held, r.pointer = nil, false
}

// key reports whether a key message may be forwarded (false: too many held).
func (r *refGate) key(down bool, k heldKey) bool {
	idx := -1
	for i, h := range r.held {
		same := h.keysym == k.keysym
		if k.qemu {
			same = h.keycode == k.keycode
		}
		if h.qemu == k.qemu && same {
			idx = i
		}
	}
	switch {
	case idx >= 0 && !down:
		r.held = append(r.held[:idx], r.held[idx+1:]...)
	case idx < 0 && down:
		if len(r.held) == r.lim.MaxHeldKeys {
			return false
		}
		r.held = append(r.held, k)
	}
	return true
}

// forward appends message m (already known to pass its first-byte verdict)
// the way the gate rewrites it, or nothing when a limit drops it.
func (r *refGate) forward(stream []byte, m refMsg) bool {
	b := stream[m.start:m.end]
	switch m.typ {
	case rfb.MsgSetEncodings:
		var keep []byte
		for i := 4; i < len(b); i += 4 {
			if encodingKept(rfb.Encoding(binary.BigEndian.Uint32(b[i:]))) {
				keep = append(keep, b[i:i+4]...)
			}
		}
		r.out = append(r.out, 2, b[1])
		r.out = binary.BigEndian.AppendUint16(r.out, uint16(len(keep)/4))
		r.out = append(r.out, keep...)
		return true
	case rfb.MsgClientCutText:
		if len(b)-8 > r.lim.MaxCutText {
			return false
		}
	case rfb.MsgKeyEvent:
		if !r.key(b[1] != 0, heldKey{keysym: binary.BigEndian.Uint32(b[4:])}) {
			return false
		}
	case rfb.MsgQEMU:
		k := heldKey{keysym: binary.BigEndian.Uint32(b[4:]), keycode: binary.BigEndian.Uint32(b[8:]), qemu: true}
		if !r.key(binary.BigEndian.Uint16(b[2:]) != 0, k) {
			return false
		}
	case rfb.MsgPointerEvent:
		r.px, r.py, r.pointer = binary.BigEndian.Uint16(b[2:]), binary.BigEndian.Uint16(b[4:]), true
	}
	r.out = append(r.out, b...)
	return true
}

// flip is a keyboard change before the byte at off.
type flip struct {
	off int
	kbd bool
}

// runReference computes the expected server-side bytes.
func runReference(stream []byte, msgs []refMsg, flips []flip, lim Limits) []byte {
	r := &refGate{lim: lim}
	kbd := false
	fi := 0
	// flagAt applies the flips at offsets <= off and returns the flag; flips
	// to false call release as the relay does (Gate.Release).
	var cur *refMsg
	var curFwd bool
	applyFlips := func(upto int) {
		for fi < len(flips) && flips[fi].off <= upto {
			f := flips[fi]
			fi++
			kbd = f.kbd
			if kbd {
				continue
			}
			// The gate is "mid" when the current message is forwarded, its
			// fixed part is out and its payload is not finished.
			if cur != nil && curFwd && cur.hdrEnd <= f.off && f.off < cur.end && cur.hdrEnd < cur.end {
				r.pending = true
			} else {
				r.release()
			}
		}
	}
	for i := range msgs {
		m := &msgs[i]
		cur = nil
		applyFlips(m.start)
		cur = m
		curFwd = classOf(m.typ) == classPass || kbd
		// Flips between the first byte and the end of the fixed part do not
		// change the verdict, but they may release before this message's output.
		applyFlips(m.hdrEnd - 1)
		if curFwd {
			curFwd = r.forward(stream, *m)
		}
		applyFlips(m.end - 1)
		if r.pending || !kbd {
			r.release()
		}
	}
	return r.out
}

func refFixedLen(b []byte) int {
	switch b[0] {
	case rfb.MsgSetEncodings:
		return len(b)
	case rfb.MsgClientCutText:
		return 8
	case rfb.MsgClientFence:
		return 9
	case rfb.MsgSetDesktopSize:
		return 8
	}
	return len(b)
}

// TestGateProperty: 10^6 random messages of every gated type, cut into random
// chunks, with the keyboard flipping at random chunk boundaries. The server
// side must get exactly what the reference computes: no byte of input from a
// viewer without the keyboard, the holder's stream byte for byte (less −316),
// and key-ups for keys held when the keyboard went.
func TestGateProperty(t *testing.T) {
	total := 1_000_000
	if testing.Short() {
		total = 100_000
	}
	lim := Limits{MaxCutText: 300, MaxEncodings: 24, MaxHeldKeys: 6}
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
			var stream []byte
			msgs := make([]refMsg, 0, total/4)
			for i := 0; i < total/4; i++ {
				s := len(stream)
				var typ uint8
				stream, typ = genMsg(r, stream, lim)
				msgs = append(msgs, refMsg{start: s, hdrEnd: s + refFixedLen(stream[s:]), end: len(stream), typ: typ})
			}
			// Chunk and flip.
			g := NewGate(lim)
			var out []byte
			var flips []flip
			kbd := false
			for off := 0; off < len(stream); {
				if r.IntN(6) == 0 {
					kbd = !kbd
					flips = append(flips, flip{off, kbd})
					g.SetKeyboard(kbd)
					if !kbd {
						out = g.Release(out)
					}
				}
				n := 1 + r.IntN(24)
				if r.IntN(10) == 0 {
					n = 1 + r.IntN(2000)
				}
				if off+n > len(stream) {
					n = len(stream) - off
				}
				var err error
				out, err = g.Feed(out, stream[off:off+n])
				if err != nil {
					t.Fatalf("feed at %d: %v", off, err)
				}
				off += n
			}
			want := runReference(stream, msgs, flips, lim)
			if !bytes.Equal(out, want) {
				i := 0
				for i < len(out) && i < len(want) && out[i] == want[i] {
					i++
				}
				t.Fatalf("server side differs from the reference at byte %d (got %d bytes, want %d)", i, len(out), len(want))
			}
			st := g.Stats()
			if st.Messages != uint64(len(msgs)) || st.DroppedInput == 0 || st.ReleasesSent == 0 {
				t.Fatalf("stats %+v for %d messages: the run did not exercise drops and releases", st, len(msgs))
			}
		})
	}
}

// TestGateWatcherNeverForwardsInput: with the keyboard never held, the server
// side parses as only classPass messages.
func TestGateWatcherNeverForwardsInput(t *testing.T) {
	lim := Limits{MaxCutText: 300, MaxEncodings: 24, MaxHeldKeys: 6}
	r := rand.New(rand.NewPCG(7, 7))
	var stream []byte
	for i := 0; i < 50_000; i++ {
		stream, _ = genMsg(r, stream, lim)
	}
	g := NewGate(lim)
	var out []byte
	for off := 0; off < len(stream); {
		n := min(1+r.IntN(40), len(stream)-off)
		var err error
		if out, err = g.Feed(out, stream[off:off+n]); err != nil {
			t.Fatal(err)
		}
		off += n
	}
	p := rfb.NewClientParser(lim.MaxEncodings)
	counts := map[msgClass]int{}
	for in := out; ; {
		n, ev, _, err := p.Step(in)
		in = in[n:]
		if err != nil {
			t.Fatal(err)
		}
		if ev == rfb.EvStart {
			counts[classOf(p.Type())]++
		}
		if ev == rfb.EvNeedMore && len(in) == 0 {
			break
		}
	}
	if counts[classInput] != 0 || counts[classPass] == 0 {
		t.Fatalf("watcher's server side has %d input and %d pass messages", counts[classInput], counts[classPass])
	}
}
