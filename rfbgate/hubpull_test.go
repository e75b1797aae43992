package rfbgate

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// updateReader hands a decoder one server message per Read, so that the
// hub's wait runs between messages.
type updateReader struct {
	msgs [][]byte
	cur  []byte
}

func (r *updateReader) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		if len(r.msgs) == 0 {
			return 0, io.EOF
		}
		r.cur, r.msgs = r.msgs[0], r.msgs[1:]
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// randomUpdates is a seeded server stream on a w×h screen: a first Raw
// update of the whole screen, then updates of Raw rectangles and
// CopyRects (as a scrolling page makes), one message each.
func randomUpdates(seed uint64, w, h, n int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	rect := func(x, y, rw, rh int, enc rfb.Encoding) []byte {
		return appendRect(nil, x, y, rw, rh, enc)
	}
	raw := func(x, y, rw, rh int) []byte {
		b := rect(x, y, rw, rh, rfb.EncodingRaw)
		c := byte(rng.IntN(256))
		for i := range rw * rh {
			b = append(b, c+byte(i%7), byte(i/rw)^c, byte(rng.IntN(4)), 0)
		}
		return b
	}
	var msgs [][]byte
	msgs = append(msgs, append([]byte{rfb.MsgFramebufferUpdate, 0, 0, 1}, raw(0, 0, w, h)...))
	for range n {
		k := 1 + rng.IntN(3)
		b := []byte{rfb.MsgFramebufferUpdate, 0, 0, byte(k)}
		for range k {
			rw, rh := 1+rng.IntN(w/2), 1+rng.IntN(h/2)
			x, y := rng.IntN(w-rw+1), rng.IntN(h-rh+1)
			if rng.IntN(3) == 0 {
				sx, sy := rng.IntN(w-rw+1), rng.IntN(h-rh+1)
				b = append(rect(x, y, rw, rh, rfb.EncodingCopyRect), byte(sx>>8), byte(sx), byte(sy>>8), byte(sy))
				b = append([]byte{rfb.MsgFramebufferUpdate, 0, 0, 1}, b...)
				break
			}
			b = append(b, raw(x, y, rw, rh)...)
		}
		msgs = append(msgs, b)
	}
	return msgs
}

// drainViewer takes at most max items of what sv's writer would send now,
// in its order (the queue, then what it pulls), acknowledging each update
// as a viewer that keeps up does, and appends the bytes to out.
func drainViewer(sv *shareViewer, out *[]byte, max int) {
	for range max {
		sv.mu.Lock()
		var it shareItem
		if len(sv.q) > 0 {
			it = sv.q[0]
		}
		sv.mu.Unlock()
		if it.b == nil {
			items, _ := sv.pull()
			if len(items) == 0 {
				sv.mu.Lock()
				more := len(sv.q) > 0
				sv.mu.Unlock()
				if more {
					continue
				}
				return
			}
			it = items[0]
		}
		*out = append(*out, it.b...)
		sv.written(it, sv.sending(it))
		if it.fbu {
			sv.ack()
		}
	}
}

// TestPullFollowsHub: whatever updates the hub is fed, a viewer in step
// from the start and one that owes the screen and pulls it in small
// pieces between updates (joining the shared updates once caught up) both
// decode what they were sent into the hub's screen, pixel for pixel.
func TestPullFollowsHub(t *testing.T) {
	for _, c := range []class{classLossless, 6} {
		t.Run(c.String(), func(t *testing.T) { pullFollowsHub(t, c) })
	}
}

func pullFollowsHub(t *testing.T, c class) {
	for seed := range uint64(20) {
		const w, h = 300, 200 // 3×2 tiles, the last ones partial
		hb, inStep := streamHub(t, w, h)
		inStep.qbytes = -1 << 40 // takes everything
		inStep.want, inStep.cls = c, c
		v := &viewer{r: hb.r, gate: NewGate(Limits{})}
		late := newShareViewer(v, hb, w, h)
		late.private, late.start, late.want, late.cls = false, true, c, c
		late.pace.rate.update(late.pace.lastAck, pacerRateWindow, 1e5) // a slow link: small pulls
		late.pace.rtt, late.pace.rttAt = 10*time.Millisecond, late.pace.lastAck
		hb.viewers[late] = struct{}{}
		var got []byte
		r := &updateReader{msgs: randomUpdates(seed, w, h, 40)}
		between := func() error { // the late viewer's turn, between two messages
			if hb.version > 1 {
				drainViewer(late, &got, 1+int(seed%3)) // a few items: it lags, and pulls between updates
			}
			return nil
		}
		if err := hb.consume(r, between, framebuffer.Limits{}); err != io.EOF {
			t.Fatalf("seed %d: %v", seed, err)
		}
		drainViewer(late, &got, 1000)
		for name, b := range map[string][]byte{"in step": queued(inStep), "late": got} {
			fb := decodeAll(t, b, w, h)
			if c.jpegQ() > 0 {
				continue // JPEG: decodes; equality comes with the refresh (TestShareConverges)
			}
			if p := firstDiff(fb, hb.fb); p >= 0 {
				t.Fatalf("seed %d: the %s viewer's screen differs from the hub's at (%d,%d)", seed, name, p%w, p/w)
			}
		}
		if !late.synced {
			t.Errorf("seed %d: the late viewer never got in step", seed)
		}
	}
}

// queued is every byte queued for sv.
func queued(sv *shareViewer) []byte {
	var b []byte
	for _, it := range sv.q {
		b = append(b, it.b...)
	}
	return b
}

// decodeAll decodes a viewer's stream into a new w×h framebuffer.
func decodeAll(t *testing.T, b []byte, w, h int) *framebuffer.Framebuffer {
	fb, err := framebuffer.New(w, h, framebuffer.NoVNCFormat)
	if err != nil {
		t.Fatal(err)
	}
	d := framebuffer.NewDecoder(bytes.NewReader(b), fb, framebuffer.Limits{})
	for {
		if _, err := d.Next(); err == io.EOF {
			return fb
		} else if err != nil {
			t.Fatalf("the viewer's stream does not decode: %v", err)
		}
	}
}
