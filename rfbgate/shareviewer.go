package rfbgate

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

// shareControlMax bounds the control messages (bell, cut text) queued for
// one viewer; beyond it they are dropped for that viewer.
const shareControlMax = 2 << 20

// shareUpdate is one shared update: what one FramebufferUpdate of Xvnc's
// painted, encoded once for each class that had viewers in step, the same
// bytes for every viewer of the class, never changed once made.
type shareUpdate struct {
	version uint64
	enc     map[class]*classUpdate
	tiles   tileSet // the tiles it paints
	n       int     // the tiles of the grid
	resized bool
	raw     *classUpdate // Xvnc's own stateful bytes: the solo viewer's only (hubsolo.go)
	w, h    int          // the screen's size after it
}

// classUpdate is a shared update's bytes (a whole FramebufferUpdate) in
// one class, and the tiles it painted with JPEG.
type classUpdate struct {
	b     []byte
	kinds rectCounts
	lossy tileSet
}

// shareItem is something queued for one viewer: bytes to write, and the
// rectangles they carry (for the rectangle counters).
type shareItem struct {
	b     []byte
	kinds *rectCounts
	queue bool // taken off the queue once written
	fbu   bool // a FramebufferUpdate: the viewer acknowledges it (pacer)
	// limited: the viewer had nothing more to send after it, so its
	// link's rate measured over it is a floor (pacer).
	limited bool
	done    func() // called once written (a pull's buffer goes back)
}

// shareViewer is a viewer's place at its computer's hub. A viewer that
// keeps up is in step (synced): each shared update is queued for it as it
// is published, in its class's encoding. One whose link cannot take an
// update when it comes (its pacer's window is full), or that needs a
// lower class than it asked for, owes the tiles the update painted
// instead: it has, for each tile, the version of the pixels it holds
// (has), and when its link can take more, its writer pulls the newest
// pixels of the tiles it owes, a bounded update at a time (pull). Tiles
// it holds from JPEG are pulled again losslessly once they have stopped
// changing (refresh), so its screen ends equal to Xvnc's. Its status and
// link are sharestatus.go's; what it owes and pulls, sharepull.go's.
type shareViewer struct {
	v    *viewer
	h    *hub
	wake chan struct{} // one token: something to do
	// classed has a token when its class changed (reportLink).
	classed chan struct{}
	one     [1]shareItem // next's answer for one item (the writer's own)

	mu       sync.Mutex
	q        []shareItem
	qbytes   int
	ctl      []shareItem
	ctlbytes int
	prio     []shareItem // the keyboard holder's input's answer (hub.prioLocked)
	synced   bool        // in step: has every update so far queued or written
	start    bool        // asked for updates: its first frame is due
	has      []uint64    // by tile: the version of its pixels there (0: none)
	lossy    tileSet     // tiles it holds from JPEG
	knownW   int         // the size it knows
	knownH   int
	greeted  bool // has had its greeting (greeting)
	private  bool // cannot read the shared log (no Tight or CopyRect): gets Raw, one update per request
	asked    bool // private: an update request is outstanding
	solo     bool // gets Xvnc's own bytes (hubsolo.go)
	caps     shareCaps
	want     class // the class its SetEncodings asks for
	cls      class // the class it gets now
	clsAt    time.Time
	pace     *pacer
	soloLag  float64 // solo: how long its updates took beyond the round trip, moving average (s)
	soloAcks int
	soloSlow int       // solo: acknowledgements in a row that came over soloLagMax late
	inputAt  time.Time // when its input last reached the computer (the keyboard's holder)
	prioLeft int       // updates after that input that may still be its answer (prioLocked)
	// scratch and scratch2 are pull's lists of tiles, and owedKeys
	// owedLocked's, kept between pulls.
	scratch, scratch2 []int
	owedKeys          []uint64

	skipped atomic.Uint64 // times it fell out of step
	queued  atomic.Int64  // qbytes, for the status
	// For the status, the page and metrics: its link as its pacer
	// measured it, and its class.
	rateBps  atomic.Int64
	rttUS    atomic.Int64
	classNow atomic.Int32
}

// shareCaps is what a viewer's SetEncodings listed, of what the hub sends.
type shareCaps struct {
	tight, copyRect, extDesktop, qemuKey, extClipboard bool
}

func newShareViewer(v *viewer, h *hub, w, ht int) *shareViewer {
	// Until its SetEncodings says otherwise, a viewer reads Raw only.
	sv := &shareViewer{v: v, h: h, wake: make(chan struct{}, 1), classed: make(chan struct{}, 1), knownW: w, knownH: ht, private: true,
		want: classRaw, cls: classRaw, pace: newPacer(time.Now())}
	sv.classNow.Store(int32(classRaw))
	return sv
}

func (sv *shareViewer) poke() {
	select {
	case sv.wake <- struct{}{}:
	default:
	}
}

// fit sizes the viewer's tile versions for a grid of n tiles, owing all
// of a new grid (under sv.mu; the hub's fbMu held).
func (sv *shareViewer) fit(n int) {
	if len(sv.has) != n {
		sv.has = make([]uint64, n)
		sv.lossy = newTileSet(n)
	}
}

// owesAll makes the viewer owe the whole screen (under sv.mu).
func (sv *shareViewer) owesAll() {
	clear(sv.has)
	sv.lossy.clear()
	sv.synced = false
}

// offer queues u if the viewer is in step, in its class, and its link has
// room; else the viewer owes u's tiles (the hub's reader, under fbMu and
// the hub's mu).
func (sv *shareViewer) offer(u *shareUpdate) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if u.raw != nil { // Xvnc's own bytes are the solo viewer's only
		if sv.solo {
			sv.queueLocked(u.raw, true)
			return
		}
		sv.synced = false
		sv.poke()
		return
	}
	sv.fit(u.n)
	cu := u.enc[sv.cls]
	if sv.synced && cu != nil && !sv.private && sv.pace.fits(len(cu.b), sv.qbytes, time.Now()) {
		sv.queueLocked(cu, false)
		u.tiles.each(func(i int) {
			if i < len(sv.has) {
				sv.has[i] = u.version
			}
		})
		sv.lossy.or(cu.lossy)
		if u.resized {
			sv.knownW, sv.knownH = u.w, u.h
		}
		return
	}
	if sv.synced {
		sv.synced = false
		sv.skipped.Add(1)
	}
	sv.poke()
}

// queueLocked queues one shared update's bytes (under sv.mu).
func (sv *shareViewer) queueLocked(cu *classUpdate, solo bool) {
	// (Xvnc sends the solo viewer an update per request: what the link
	// carries of them is what the screen gave, a floor of the link's rate)
	sv.q = append(sv.q, shareItem{b: cu.b, kinds: &cu.kinds, queue: true, fbu: true, limited: solo})
	sv.qbytes += len(cu.b)
	sv.queued.Store(int64(sv.qbytes))
	sv.poke()
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

// next returns what the writer sends next, waiting for it: a control
// message, the keyboard holder's input's answer, the head of the queue,
// or, when the link has room, the newest pixels of what the viewer owes
// (pull). done is closed when the viewer ends.
func (sv *shareViewer) next(done <-chan struct{}) ([]shareItem, bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
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
		if sv.start && !sv.greeted { // (before its first frame, or the solo viewer's first of Xvnc's)
			sv.greeted = true
			caps := sv.caps
			sv.mu.Unlock()
			if items := sv.greeting(caps); len(items) > 0 {
				return items, true
			}
			continue
		}
		if len(sv.prio) > 0 {
			it := sv.prio[0]
			sv.prio[0] = shareItem{}
			sv.prio = sv.prio[1:]
			sv.mu.Unlock()
			sv.one[0] = it
			return sv.one[:], true
		}
		if len(sv.q) > 0 {
			sv.one[0] = sv.q[0]
			sv.mu.Unlock()
			return sv.one[:], true
		}
		start, solo, private, asked := sv.start, sv.solo, sv.private, sv.asked
		stuck := sv.pace.stuck()
		sv.mu.Unlock()
		if start && !solo && !stuck && (!private || asked) {
			select {
			case <-sv.h.primed:
			case <-done:
				return nil, false
			}
			items, wait := sv.pull()
			if len(items) > 0 {
				return items, true
			}
			if wait > 0 { // a lossy tile settles then
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				select {
				case <-sv.wake:
				case <-timer.C:
				case <-done:
					return nil, false
				}
				continue
			}
		}
		select {
		case <-sv.wake:
		case <-done:
			return nil, false
		}
	}
}

// sending records, before the writer writes it, an update it is about to
// send (the pacer counts it from then: the viewer's acknowledgement may
// come back before the write returns), and returns its number.
func (sv *shareViewer) sending(it shareItem) uint64 {
	if !it.fbu {
		return 0
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.pace.onSend(len(it.b), time.Now(), it.limited || (it.queue && len(sv.q) <= 1 && sv.synced))
}

// written takes a written queue item off the queue; seq is sending's
// number for it.
func (sv *shareViewer) written(it shareItem, seq uint64) {
	if it.done != nil {
		it.done()
	}
	if !it.queue && !it.fbu {
		return
	}
	sv.mu.Lock()
	if it.fbu {
		sv.pace.sentAt(seq, time.Now())
	}
	drained := false
	if it.queue {
		sv.q[0] = shareItem{}
		sv.q = sv.q[1:]
		if len(sv.q) == 0 {
			sv.q = nil
		}
		sv.qbytes -= len(it.b)
		sv.queued.Store(int64(sv.qbytes))
		drained = sv.solo && sv.qbytes == 0
	}
	sv.mu.Unlock()
	if drained {
		sv.h.soloPoke()
	}
}

// ack is the viewer's request for the next update, which acknowledges
// the oldest it had not: its pacer learns the link, and the writer may
// send more. A solo viewer's are also how glass sees that its link
// does not keep up with Xvnc (soloSlow).
func (sv *shareViewer) ack() {
	now := time.Now()
	sv.mu.Lock()
	var lagging bool
	if len(sv.pace.sent) > 0 {
		took := now.Sub(sv.pace.sent[0].at)
		sv.pace.onAck(now)
		if sv.solo {
			lagging = sv.soloLaggingLocked(took)
		}
	}
	rate, rtt := sv.pace.link()
	sv.rateBps.Store(int64(rate))
	sv.rttUS.Store(rtt.Microseconds())
	sv.mu.Unlock()
	if lagging {
		sv.h.endSoloOf(sv, "the solo viewer's link does not keep up with the computer")
	}
	sv.poke()
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
	b := []byte{rfb.MsgFramebufferUpdate, 0, 0, 0}
	n := 0
	if caps.extDesktop && len(h.screens) > 0 {
		b = append(b, h.screens...)
		n++
	}
	if caps.qemuKey {
		b = appendRect(b, 0, 0, 0, 0, rfb.EncodingQEMUExtendedKey)
		n++
	}
	if n > 0 {
		putCount(b, n)
		items = append(items, shareItem{b: b, fbu: true})
	}
	if caps.extClipboard && len(h.clipCaps) > 0 {
		items = append(items, shareItem{b: append([]byte(nil), h.clipCaps...)})
	}
	return items
}

// putCount sets a FramebufferUpdate header's rectangle count (with more
// than 65534, the count says "until LastRect" and the caller must end it
// with one; the hub's pulls stay far below).
func putCount(hdr []byte, n int) {
	n = min(n, 0xfffe)
	hdr[2], hdr[3] = byte(n>>8), byte(n)
}

func appendInt32(b []byte, v int32) []byte {
	return append(b, byte(uint32(v)>>24), byte(uint32(v)>>16), byte(uint32(v)>>8), byte(v))
}
