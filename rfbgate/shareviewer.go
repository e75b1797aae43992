package rfbgate

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
)

// shareQueueMax bounds the bytes of shared updates queued for one viewer
// (and being written to it). An update that would pass it is skipped (its
// area owed), unless the queue is empty: a single update larger than the
// bound still goes to a viewer that keeps up.
const shareQueueMax = 512 << 10

// shareSlowQueueMax bounds the queue of a viewer whose link lagged lately
// (bytes waited unsent in its socket: a phone): a queue of seconds of
// screen would be seconds of latency, so such a viewer skips sooner and
// its catch-ups carry the newest pixels.
const shareSlowQueueMax = 0

// shareControlMax bounds the control messages (bell, cut text) queued for
// one viewer; beyond it they are dropped for that viewer.
const shareControlMax = 2 << 20

// maxOwedRects is how many areas a viewer's owed region keeps apart
// before they are merged into their bounding box.
const maxOwedRects = 16

// shareUpdate is one shared update: its bytes (a whole FramebufferUpdate)
// are the same for every viewer and never change.
type shareUpdate struct {
	b       []byte
	dmg     []shareRect // the areas it paints
	kinds   rectCounts
	resized bool
	raw     bool // carries Xvnc's own stateful bytes: the solo viewer's only (hubsolo.go)
	w, h    int  // the screen's size after it
}

// shareItem is something queued for one viewer: bytes to write, and the
// rectangles they carry (for the rectangle counters).
type shareItem struct {
	b     []byte
	kinds *rectCounts
	queue bool // counted in the queue's bytes
}

// shareViewer is a viewer's place at its computer's hub: its queue, the
// area it owes, and what it asked for. The hub's reader offers updates
// (offer); the viewer's writer (pumpShared) takes them.
type shareViewer struct {
	v    *viewer
	h    *hub
	wake chan struct{} // one token: something to do
	one  [1]shareItem  // next's answer for one item (the writer's own)

	mu       sync.Mutex
	q        []shareItem
	qbytes   int
	ctl      []shareItem
	ctlbytes int
	synced   bool // has every update so far queued or written: new ones may be queued
	start    bool // asked for updates: its first frame is due
	owed     []shareRect
	owedAll  bool
	knownW   int // the size it knows
	knownH   int
	greeted  bool // has had its greeting (greeting)
	private  bool // cannot read the shared log (no Tight or CopyRect): gets Raw catch-ups, one per request
	asked    bool // private: an update request is outstanding
	solo     bool // gets Xvnc's own bytes (hubsolo.go)
	caps     shareCaps

	skipped atomic.Uint64 // updates skipped (queue full)
	queued  atomic.Int64  // qbytes, for the status
	slow    atomic.Bool   // its link lagged lately (the writer's downstream says)
}

// shareCaps is what a viewer's SetEncodings listed, of what the hub sends.
type shareCaps struct {
	tight, copyRect, extDesktop, qemuKey, extClipboard bool
}

func newShareViewer(v *viewer, h *hub, w, ht int) *shareViewer {
	// Until its SetEncodings says otherwise, a viewer reads Raw only.
	return &shareViewer{v: v, h: h, wake: make(chan struct{}, 1), owedAll: true, knownW: w, knownH: ht, private: true}
}

func (sv *shareViewer) poke() {
	select {
	case sv.wake <- struct{}{}:
	default:
	}
}

// offer queues u if the viewer is in step and its queue has room; else the
// viewer owes u's area (the hub's reader, under the hub's locks).
func (sv *shareViewer) offer(u *shareUpdate) {
	sv.mu.Lock()
	if sv.private || (u.raw && !sv.solo) {
		// Xvnc's own bytes are the solo viewer's only: another viewer
		// owes their area, and queues nothing until it has caught up.
		sv.synced = false
		sv.owe(u)
		sv.endSoloLocked("the solo viewer reads Raw only")
		sv.mu.Unlock()
		sv.poke()
		return
	}
	limit := shareQueueMax
	if sv.slow.Load() {
		limit = shareSlowQueueMax
	}
	if sv.synced && (sv.qbytes == 0 || sv.qbytes+len(u.b) <= limit) {
		sv.q = append(sv.q, shareItem{b: u.b, kinds: &u.kinds, queue: true})
		sv.qbytes += len(u.b)
		sv.queued.Store(int64(sv.qbytes))
		sv.mu.Unlock()
		sv.poke()
		return
	}
	if sv.synced {
		sv.synced = false
		sv.skipped.Add(1)
	} else if sv.start {
		sv.skipped.Add(1)
	}
	sv.owe(u)
	sv.endSoloLocked("the solo viewer skipped an update")
	sv.mu.Unlock()
	sv.poke()
}

// endSoloLocked: a solo viewer that cannot take an update whole stops
// being solo, and so does its hub (under the hub's fbMu and sv.mu: the
// hub's reader offering an update).
func (sv *shareViewer) endSoloLocked(why string) {
	if sv.solo {
		sv.h.endSoloLocked(why)
		sv.leaveSoloLocked()
	}
}

// owe adds u's area to what the viewer owes (under sv.mu).
func (sv *shareViewer) owe(u *shareUpdate) {
	if u.resized {
		sv.owedAll = true
	}
	if !sv.owedAll {
		sv.owed = append(sv.owed, u.dmg...)
		if len(sv.owed) > maxOwedRects {
			sv.owed = mergeOwed(sv.owed)
		}
	}
}

// control queues a control message, whatever the viewer's updates do.
func (sv *shareViewer) control(msg []byte) {
	sv.mu.Lock()
	if sv.ctlbytes+len(msg) > shareControlMax {
		sv.mu.Unlock()
		sv.v.withheld.Add(1)
		return
	}
	sv.ctl = append(sv.ctl, shareItem{b: msg})
	sv.ctlbytes += len(msg)
	sv.mu.Unlock()
	sv.poke()
}

func (sv *shareViewer) extClip() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.caps.extClipboard
}

func (sv *shareViewer) started() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.start
}

// smallOwed is the largest area (in pixels) an owed region keeps apart
// when it merges: small areas (a key's echo, a cursor) stay small, so that
// their catch-up goes first and costs little.
const smallOwed = 64 * 64

// mergeOwed merges the large areas of rs into their bounding box, keeping
// the small ones apart; if that leaves too many, all of them.
func mergeOwed(rs []shareRect) []shareRect {
	var big []shareRect
	out := rs[:0:0]
	for _, r := range rs {
		if r.w*r.h > smallOwed {
			big = append(big, r)
		} else {
			out = append(out, r)
		}
	}
	if len(big) > 0 {
		out = append(out, bounds(big))
	}
	if len(out) > maxOwedRects {
		return append(rs[:0], bounds(rs))
	}
	return append(rs[:0], out...)
}

// bounds is the bounding box of rs.
func bounds(rs []shareRect) shareRect {
	x0, y0, x1, y1 := rs[0].x, rs[0].y, rs[0].x+rs[0].w, rs[0].y+rs[0].h
	for _, r := range rs[1:] {
		x0, y0 = min(x0, r.x), min(y0, r.y)
		x1, y1 = max(x1, r.x+r.w), max(y1, r.y+r.h)
	}
	return shareRect{x0, y0, x1 - x0, y1 - y0}
}

// next returns what the writer sends next, waiting for it: a control
// message, the head of the queue, or, once the queue has drained, a
// catch-up of what the viewer owes. done is closed when the viewer ends.
func (sv *shareViewer) next(done <-chan struct{}) ([]shareItem, bool) {
	for {
		sv.mu.Lock()
		if len(sv.ctl) > 0 {
			it := sv.ctl[0]
			sv.ctl[0] = shareItem{}
			sv.ctl = sv.ctl[1:]
			sv.ctlbytes -= len(it.b)
			sv.mu.Unlock()
			sv.one[0] = it
			return sv.one[:], true
		}
		if len(sv.q) > 0 {
			sv.one[0] = sv.q[0]
			sv.mu.Unlock()
			return sv.one[:], true
		}
		due := sv.start && !sv.synced
		if sv.start && !sv.greeted { // (before its first frame, or the solo viewer's first of Xvnc's)
			sv.greeted = true
			caps := sv.caps
			sv.mu.Unlock()
			if items := sv.greeting(caps); len(items) > 0 {
				return items, true
			}
			continue
		}
		if sv.private {
			due = sv.start && sv.asked && (sv.owedAll || len(sv.owed) > 0)
		}
		sv.mu.Unlock()
		if due {
			select {
			case <-sv.h.primed:
				if items, ok := sv.h.joinFromLog(sv); ok {
					return items, true
				}
				return sv.catchUp(), true
			case <-done:
				return nil, false
			}
		}
		select {
		case <-sv.wake:
		case <-done:
			return nil, false
		}
	}
}

// written takes a written queue item off the queue.
func (sv *shareViewer) written(it shareItem) {
	if !it.queue {
		return
	}
	sv.mu.Lock()
	sv.q[0] = shareItem{}
	sv.q = sv.q[1:]
	if len(sv.q) == 0 {
		sv.q = nil
	}
	sv.qbytes -= len(it.b)
	sv.queued.Store(int64(sv.qbytes))
	drained := sv.solo && sv.qbytes == 0
	sv.mu.Unlock()
	if drained {
		sv.h.soloPoke()
	}
}

// catchUp builds the update that brings the viewer level with the
// framebuffer: the whole screen (shared by every viewer that needs it at
// this version) when it owes all or most of it, else the areas it owes;
// from then on it is in step.
func (sv *shareViewer) catchUp() []shareItem {
	h := sv.h
	h.fbMu.Lock()
	defer h.fbMu.Unlock()
	sv.mu.Lock()
	owedAll, owed := sv.owedAll, sv.owed
	sv.owedAll, sv.owed, sv.synced = false, nil, !sv.private
	sv.asked = false
	private := sv.private
	resize := sv.knownW != h.fb.Width() || sv.knownH != h.fb.Height()
	sv.knownW, sv.knownH = h.fb.Width(), h.fb.Height()
	sv.mu.Unlock()

	area := 0
	for _, r := range owed {
		area += r.w * r.h
	}
	whole := owedAll || resize || 2*area >= h.fb.Width()*h.fb.Height()
	var extra []byte
	n := 0
	if resize {
		extra = appendDesktopSize(extra, h.fb.Width(), h.fb.Height())
		n++
	}
	var items []shareItem
	switch {
	case private:
		if whole {
			owed = []shareRect{{0, 0, h.fb.Width(), h.fb.Height()}}
		}
		b := append([]byte{srvFramebufferUpdate, 0, 0, 0}, extra...)
		var kinds rectCounts
		for _, r := range owed {
			r.w, r.h = min(r.w, h.fb.Width()-r.x), min(r.h, h.fb.Height()-r.y)
			b = appendRect(b, r.x, r.y, r.w, r.h, encodingRaw)
			b, _ = h.fb.Region(b, r.x, r.y, r.w, r.h)
			kinds[kindRaw]++
			n++
		}
		putCount(b, n)
		items = append(items, shareItem{b: b, kinds: &kinds})
	case whole:
		f := h.fullFrameLocked()
		if owedAll {
			h.joined()
		}
		hdr := append([]byte{srvFramebufferUpdate, 0, 0, 0}, extra...)
		putCount(hdr, n+f.rects)
		items = append(items, shareItem{b: hdr}, shareItem{b: f.b, kinds: &f.kinds})
	default:
		// One update an area, the smallest first: a key's echo or a
		// cursor is drawn before the large areas of the same catch-up
		// arrive (noVNC draws an update only once all of it has come).
		slices.SortFunc(owed, func(a, b shareRect) int { return cmp.Compare(a.w*a.h, b.w*b.h) })
		h.enc.SetJPEG(h.jpegQ)
		defer h.enc.SetJPEG(0)
		for i, r := range owed {
			var kinds rectCounts
			b := []byte{srvFramebufferUpdate, 0, 0, 0}
			k := 0
			if i == 0 {
				b, k = append(b, extra...), n
			}
			before := h.enc.Counts()
			var m int
			b, m, _ = h.enc.AppendTight(b, h.fb, r.x, r.y, min(r.w, h.fb.Width()-r.x), min(r.h, h.fb.Height()-r.y))
			after := h.enc.Counts()
			for j := range after {
				kinds[j] = after[j] - before[j]
			}
			putCount(b, k+m)
			items = append(items, shareItem{b: b, kinds: &kinds})
		}
	}
	return items
}

// greeting is what a viewer gets the moment it first asks for updates,
// before its first frame (which may wait for the hub's first screen and
// takes its encoding): the screen's layout and QEMU key events, if it
// listed them (noVNC sends its keys as QEMU key events only once told),
// as an update of pseudo-rectangles, and the clipboard's capabilities.
func (sv *shareViewer) greeting(caps shareCaps) []shareItem {
	h := sv.h
	h.fbMu.Lock()
	defer h.fbMu.Unlock()
	var items []shareItem
	b := []byte{srvFramebufferUpdate, 0, 0, 0}
	n := 0
	if caps.extDesktop && len(h.screens) > 0 {
		b = append(b, h.screens...)
		n++
	}
	if caps.qemuKey {
		b = appendRect(b, 0, 0, 0, 0, encodingQEMUExtendedKey)
		n++
	}
	if n > 0 {
		putCount(b, n)
		items = append(items, shareItem{b: b})
	}
	if caps.extClipboard && len(h.clipCaps) > 0 {
		items = append(items, shareItem{b: append([]byte(nil), h.clipCaps...)})
	}
	return items
}

// putCount sets a FramebufferUpdate header's rectangle count (with more
// than 65534, the count says "until LastRect" and the caller must end it
// with one; the hub's catch-ups stay far below).
func putCount(hdr []byte, n int) {
	n = min(n, 0xfffe)
	hdr[2], hdr[3] = byte(n>>8), byte(n)
}

func appendInt32(b []byte, v int32) []byte {
	return append(b, byte(uint32(v)>>24), byte(uint32(v)>>16), byte(uint32(v)>>8), byte(v))
}
