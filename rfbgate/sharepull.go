package rfbgate

import (
	"slices"
	"sync"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

// pullPool holds the buffers of pulled updates while they are written.
var pullPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// pull builds the viewer's next update from the tiles it owes, newest
// pixels first in its class, as much as its link can take now (its
// pacer's room, at most a chunk: about one round trip of the link); with
// room to spare, tiles it holds from JPEG that have settled go too,
// losslessly. It returns the update, or nothing and how long until a
// lossy tile settles (0: nothing to wait for but a change, or room).
//
// Tiles are encoded outside the framebuffer's lock, from copies taken
// under it, and shared by the viewers of a class (tileCache). A viewer in
// step (it gets the shared updates, and pulls only refreshes) has its
// refresh encoded under the lock and queued behind the updates queued
// before it, so that no later update is overtaken by older pixels.
func (sv *shareViewer) pull() ([]shareItem, time.Duration) {
	h := sv.h
	now := time.Now()
	h.fbMu.Lock()
	g := &h.grid
	if g.n() == 0 {
		h.fbMu.Unlock()
		return nil, 0
	}
	sv.mu.Lock()
	sv.fit(g.n())
	sv.pickClassLocked(now)
	budget := min(sv.pace.room(sv.qbytes, now), sv.pace.chunk())
	if sv.private {
		budget = 1 << 30 // one update per request, of all it owes
	}
	resize := sv.knownW != g.w || sv.knownH != g.h
	owed := sv.owedLocked(g, sv.scratch[:0])
	settled, wait := sv.refreshLocked(g, now, sv.scratch2[:0])
	sv.scratch, sv.scratch2 = owed, settled
	if len(owed) == 0 && len(settled) == 0 && !resize {
		if !sv.synced && sv.cls == sv.want && !sv.private {
			sv.synced = true // caught up: the shared updates from here on
		}
		sv.mu.Unlock()
		h.fbMu.Unlock()
		return nil, wait
	}
	if budget <= 0 || budget < sv.pace.chunk()/2 && sv.pace.inflight > 0 {
		// The link is full, or has room for a sliver only: an
		// acknowledgement wakes the writer (updates of a few bytes each
		// would cost the viewer, and glass, more than they carry).
		sv.mu.Unlock()
		h.fbMu.Unlock()
		return nil, 0
	}
	inStep := sv.synced
	p := pullBuild{sv: sv, budget: budget, now: now}
	if resize {
		p.hdr = appendDesktopSize(p.hdr, g.w, g.h)
		p.n++
		sv.knownW, sv.knownH = g.w, g.h
	}
	p.limited = true
	for _, i := range owed {
		if !p.add(i, sv.cls, false) {
			p.limited = false
			break
		}
	}
	for _, i := range settled {
		if sv.has[i] < g.ver[i] {
			continue // owed, and not taken above
		}
		if !p.add(i, classLossless, true) {
			break
		}
	}
	if sv.private {
		sv.asked = false
	}
	if !sv.synced && !sv.private && sv.cls == sv.want && sv.caughtUpLocked(g) {
		sv.synced = true
	}
	if inStep { // encoded now, queued behind what is queued
		sv.mu.Unlock()
		p.encode()
		sv.mu.Lock()
		p.settle()
		it := p.item()
		it.queue = true
		sv.q = append(sv.q, it)
		sv.qbytes += len(it.b)
		sv.queued.Store(int64(sv.qbytes))
		sv.mu.Unlock()
		h.fbMu.Unlock()
		sv.poke()
		return nil, 0
	}
	sv.mu.Unlock()
	h.fbMu.Unlock()
	p.encode()
	sv.mu.Lock()
	p.settle()
	sv.mu.Unlock()
	it := p.item()
	sv.one[0] = it
	return sv.one[:], 0
}

// pullBuild is one pulled update being made.
type pullBuild struct {
	sv     *shareViewer
	budget int
	now    time.Time
	hdr    []byte // pseudo-rectangles first (DesktopSize)
	n      int    // rectangles
	size   int    // bytes so far (estimated for tiles not yet encoded)
	tiles  []pullTile
	jobs   []*tileJob
	// limited: it took every tile owed (the link was not what bounded it).
	limited bool
}

// pullTile is one tile of a pulled update: its encoding (ready once
// encode has run), and the class it was taken in.
type pullTile struct {
	i int
	e *tileEnc
	c class
}

// add takes tile i in class c (exact: its current version only) if the
// budget has room (the first tile always goes); false when full (under
// fbMu and sv.mu).
func (p *pullBuild) add(i int, c class, exact bool) bool {
	sv, h := p.sv, p.sv.h
	g := &h.grid
	r := g.rect(i)
	est := int(float64(r.w*r.h)*h.tiles.costs().cost(c)) + 16
	if len(p.tiles) > 0 && p.size+est > p.budget {
		return false
	}
	// (an event's tile, a key's echo, goes fresh: shared only at its
	// newest version)
	e, mine := h.tiles.get(c, i, g.ver[i], sv.has[i], p.now, exact || sv.synced || g.event[i])
	if mine {
		s := tilePool.Get().(*tileScratch)
		copyTile(s.fb, h.fb, r)
		p.jobs = append(p.jobs, &tileJob{e: e, c: c, r: r, fb: s.fb, scratch: s})
	} else {
		select {
		case <-e.ready:
			est = len(e.b)
		default:
		}
	}
	p.size += est
	p.tiles = append(p.tiles, pullTile{i: i, e: e, c: c})
	p.n++
	sv.has[i] = e.ver
	if c.jpegQ() > 0 {
		sv.lossy.add(i) // until its encoding says otherwise (settle)
	} else {
		sv.lossy.del(i)
	}
	return true
}

// encode encodes the tiles that were this pull's to encode, and waits for
// those other viewers were encoding.
func (p *pullBuild) encode() {
	h := p.sv.h
	for _, j := range p.jobs {
		encodeTile(j, j.scratch)
		tilePool.Put(j.scratch)
		h.tiles.learn(j.c, len(j.e.b), j.r.w*j.r.h)
	}
	for _, t := range p.tiles {
		<-t.e.ready
	}
}

// settle clears the lossy mark of tiles whose encoding had no JPEG in it,
// if the viewer still holds that version (under sv.mu).
func (p *pullBuild) settle() {
	sv := p.sv
	for _, t := range p.tiles {
		if !t.e.lossy && t.i < len(sv.has) && sv.has[t.i] == t.e.ver {
			sv.lossy.del(t.i)
		}
	}
}

// item is the pulled update, in a pooled buffer that goes back once it is
// written.
func (p *pullBuild) item() shareItem {
	bp := pullPool.Get().(*[]byte)
	b := append((*bp)[:0], rfb.MsgFramebufferUpdate, 0, 0, 0)
	b = append(b, p.hdr...)
	kinds := new(rectCounts)
	for _, t := range p.tiles {
		b = append(b, t.e.b...)
		for k, n := range t.e.kinds {
			kinds[k] += n
		}
	}
	putCount(b, p.n)
	*bp = b
	return shareItem{b: b, kinds: kinds, fbu: true, limited: p.limited, done: func() { pullPool.Put(bp) }}
}

// pickClassLocked moves the viewer to the best class its link carries
// (under fbMu and sv.mu): down at once, up after classHold.
func (sv *shareViewer) pickClassLocked(now time.Time) {
	if sv.want < 0 {
		sv.cls = sv.want
		sv.classNow.Store(int32(sv.cls))
		return
	}
	rate, _ := sv.pace.link()
	if rate <= 0 || sv.pace.keepsUp(now) && sv.cls == sv.want {
		return // its link has not been what bounded it: the rate is a floor
	}
	costs := sv.h.tiles.costs()
	frame := sv.h.framePx
	was := sv.cls
	switch down := pickClass(sv.want, rate, frame, 1, &costs); {
	case sv.cls < 0 || sv.cls > sv.want:
		sv.cls, sv.clsAt = min(down, sv.want), now
	case down < sv.cls:
		sv.cls, sv.clsAt = down, now
	case now.Sub(sv.clsAt) >= classHold:
		if up := pickClass(sv.want, rate, frame, 0.7, &costs); up > sv.cls {
			sv.cls, sv.clsAt = up, now
		}
	}
	if sv.cls != was {
		sv.synced = false // the shared updates of its old class are not its own now
		select {
		case sv.classed <- struct{}{}:
		default:
		}
	}
	sv.classNow.Store(int32(sv.cls))
}

// owedLocked lists the tiles the viewer owes (under fbMu and sv.mu):
// events first (a change after a calm: a key's echo, a click's answer),
// then small changes (a cursor, a spinner, a clock), then the stalest:
// those whose pixels the viewer has held longest, so that on a link that
// cannot carry every change each area still gets its turn.
func (sv *shareViewer) owedLocked(g *tileGrid, dst []int) []int {
	// Sorted as keys: the order's bits, then the tile (a grid has at
	// most 65536 tiles: 65535x65535 pixels in 128-pixel tiles).
	keys := sv.owedKeys[:0]
	for i, v := range g.ver {
		if v <= sv.has[i] {
			continue
		}
		k := uint64(min(sv.has[i], 1<<40-1)) << 16
		if !g.event[i] {
			k |= 1 << 58
		}
		if !g.small[i] {
			k |= 1 << 57
		}
		keys = append(keys, k|uint64(i))
	}
	slices.Sort(keys)
	dst = dst[:0]
	for _, k := range keys {
		dst = append(dst, int(k&0xffff))
	}
	sv.owedKeys = keys
	return dst
}

// refreshDelay is how long a tile the viewer holds from JPEG must not
// have changed before it is sent again losslessly.
const refreshDelay = 250 * time.Millisecond

// refreshLocked lists the tiles the viewer holds from JPEG that have
// settled (under fbMu and sv.mu), and how long until the next settles
// when none has (0: none to wait for).
func (sv *shareViewer) refreshLocked(g *tileGrid, now time.Time, dst []int) ([]int, time.Duration) {
	dst = dst[:0]
	var wait time.Duration
	sv.lossy.each(func(i int) {
		if i >= len(g.at) {
			return
		}
		if d := refreshDelay - now.Sub(g.at[i]); d <= 0 {
			dst = append(dst, i)
		} else if wait == 0 || d < wait {
			wait = d
		}
	})
	return dst, wait
}

// caughtUpLocked reports whether the viewer holds every tile's newest
// version (under fbMu and sv.mu).
func (sv *shareViewer) caughtUpLocked(g *tileGrid) bool {
	for i, v := range g.ver {
		if v > sv.has[i] {
			return false
		}
	}
	return true
}
