package rfbgate

import (
	"math/bits"
	"time"
)

// The hub cuts the screen into square tiles, the unit in which a viewer
// owes pixels and in which encodings are shared: a viewer that cannot take
// every update owes the tiles they painted, and when its link can take
// more it pulls the newest pixels of those tiles (shareviewer.go), encoded
// once per quality class for every viewer that needs that tile at that
// version (tilecache.go).

// tileSize is a tile's side in pixels. A 128×128 tile is 16384 pixels:
// one Tight rectangle (at most 65536 pixels), large enough that a JPEG's
// headers (some 600 bytes) are a small part of it, small enough that a
// key's echo costs one tile.
const tileSize = 128

// tileGrid is the hub's record of when each tile last changed (under the
// hub's fbMu).
type tileGrid struct {
	w, h       int
	cols, rows int
	ver        []uint64    // the hub's version (updates published) when it last changed
	at         []time.Time // when it last changed
	small      []bool      // the last change to it was small (a key's echo, a cursor)
	// event: its last change came after it had been calm for tileCalm
	// (a key's echo, a click's answer, a field filled), where the tiles
	// that change without a pause are an animation (a page scrolling, a
	// spinner, a video).
	event []bool
}

// tileCalm is how long a tile must not have changed for its next change
// to be an event.
const tileCalm = 250 * time.Millisecond

// reset sizes the grid for a w×h screen, every tile changed at version v.
func (g *tileGrid) reset(w, h int, v uint64, now time.Time) {
	g.w, g.h = w, h
	g.cols, g.rows = (w+tileSize-1)/tileSize, (h+tileSize-1)/tileSize
	n := g.cols * g.rows
	g.ver = make([]uint64, n)
	g.at = make([]time.Time, n)
	g.small = make([]bool, n)
	g.event = make([]bool, n)
	for i := range n {
		g.ver[i], g.at[i] = v, now
	}
}

// n is the number of tiles.
func (g *tileGrid) n() int { return g.cols * g.rows }

// rect is tile i's area (clipped to the screen).
func (g *tileGrid) rect(i int) shareRect {
	x, y := i%g.cols*tileSize, i/g.cols*tileSize
	return shareRect{x, y, min(tileSize, g.w-x), min(tileSize, g.h-y)}
}

// mark records that r changed at version v, adding the tiles it touches
// to set (if not nil).
func (g *tileGrid) mark(r shareRect, v uint64, now time.Time, set tileSet) {
	small := r.w*r.h <= smallOwed
	g.each(r, func(i int) {
		if g.ver[i] != v { // (its first rectangle of this update)
			g.event[i] = now.Sub(g.at[i]) >= tileCalm
		}
		g.ver[i], g.at[i], g.small[i] = v, now, small
		if set != nil {
			set.add(i)
		}
	})
}

// each calls fn with every tile r touches.
func (g *tileGrid) each(r shareRect, fn func(i int)) {
	if r.w <= 0 || r.h <= 0 || g.cols == 0 {
		return
	}
	x0, y0 := max(r.x, 0)/tileSize, max(r.y, 0)/tileSize
	x1, y1 := min((r.x+r.w-1)/tileSize, g.cols-1), min((r.y+r.h-1)/tileSize, g.rows-1)
	for ty := y0; ty <= y1; ty++ {
		for tx := x0; tx <= x1; tx++ {
			fn(ty*g.cols + tx)
		}
	}
}

// smallOwed is the largest change (in pixels) counted as small: a key's
// echo, a cursor, a spinner, whose tile a viewer gets before the large
// areas it owes (a change within one tile).
const smallOwed = tileSize * tileSize

// tileSet is a set of tiles, a bit each.
type tileSet []uint64

// newTileSet returns an empty set for n tiles.
func newTileSet(n int) tileSet { return make(tileSet, (n+63)/64) }

func (s tileSet) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s tileSet) del(i int)      { s[i/64] &^= 1 << (i % 64) }
func (s tileSet) has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

// fill adds the first n tiles.
func (s tileSet) fill(n int) {
	for i := range s {
		s[i] = 0
	}
	for i := range n {
		s.add(i)
	}
}

// clear empties the set.
func (s tileSet) clear() {
	for i := range s {
		s[i] = 0
	}
}

// or adds every tile of o.
func (s tileSet) or(o tileSet) {
	for i := range min(len(s), len(o)) {
		s[i] |= o[i]
	}
}

// empty reports whether the set has no tile.
func (s tileSet) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// count is the number of tiles in the set.
func (s tileSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// each calls fn with every tile in the set, in order.
func (s tileSet) each(fn func(i int)) {
	for k, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			fn(k*64 + b)
			w &^= 1 << b
		}
	}
}
