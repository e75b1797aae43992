package rfbgate

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// tileCache holds, for each class, the last encoding of each tile: a
// viewer that pulls a tile another viewer of its class pulled at the same
// version takes its bytes, so a crowd of phones costs the encodes one
// costs. An encoding may also be taken a little after the tile changed
// again (tileShareAge): the viewer still owes the tile and pulls it again
// next time, but viewers that pull at nearby moments share one encode
// where each would otherwise encode a version of its own.
//
// Encoding happens outside the hub's framebuffer lock, from a copy of the
// tile's pixels taken under it (tileJob): the hub's reader waits a copy,
// not an encode. One viewer encodes a given tile, version and class;
// others that want it meanwhile wait for it (tileEnc.ready).
type tileCache struct {
	mu   sync.Mutex
	by   map[class][]*tileEnc
	n    int                 // tiles in the grid the entries are for
	cost bytesPerPixel       // learnt from every encode
	used map[class]time.Time // when a class was last asked for
}

// tileEnc is one tile's encoding at one version in one class: one
// rectangle, header included (so it can be placed in any update).
type tileEnc struct {
	ver   uint64
	made  time.Time
	b     []byte
	kinds rectCounts
	lossy bool // it has JPEG in it
	ready chan struct{}
}

// tileShareAge is how old an encoding of an earlier version of a tile may
// be and still be sent to a viewer that has an older one: a few of a
// phone's pulls, so that phones pulling at different moments share most
// encodes (an event's tile, a key's echo, is always sent at its newest:
// sharepull.go). BenchmarkPhoneCrowd: ten phones cost glass 1.35x one at
// 250 ms, 1.67-1.9x at 100 ms.
const tileShareAge = 250 * time.Millisecond

// tileClassIdle is how long a class's encodings are kept after no viewer
// asked for one.
const tileClassIdle = 10 * time.Second

func newTileCache() *tileCache {
	return &tileCache{by: map[class][]*tileEnc{}, cost: classCostStart, used: map[class]time.Time{}}
}

// reset forgets every encoding: the screen's grid is now n tiles.
func (tc *tileCache) reset(n int) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.n = n
	clear(tc.by)
}

// get returns the encoding of tile i in class c that a viewer which has
// version has of it should get, when the tile is at version cur: one of
// version cur, or one newer than has made within tileShareAge (exact:
// version cur only). When there is none, it returns a new entry for the
// caller to encode (mine), which other viewers wait for meanwhile.
func (tc *tileCache) get(c class, i int, cur, has uint64, now time.Time, exact bool) (e *tileEnc, mine bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.used[c] = now
	l := tc.by[c]
	if len(l) != tc.n {
		l = make([]*tileEnc, tc.n)
		tc.by[c] = l
	}
	if old := l[i]; old != nil && old.ver > has && (old.ver == cur || !exact && now.Sub(old.made) < tileShareAge) {
		return old, false
	}
	e = &tileEnc{ver: cur, made: now, ready: make(chan struct{})}
	l[i] = e
	return e, true
}

// prune drops the encodings of classes no viewer asked for lately.
func (tc *tileCache) prune(now time.Time) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for c, at := range tc.used {
		if now.Sub(at) > tileClassIdle {
			delete(tc.by, c)
			delete(tc.used, c)
		}
	}
}

// learn records an encode's cost.
func (tc *tileCache) learn(c class, n, px int) {
	tc.mu.Lock()
	tc.cost.learn(c, n, px)
	tc.mu.Unlock()
}

// costs is what the classes cost on this screen.
func (tc *tileCache) costs() bytesPerPixel {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.cost
}

// tileJob is a tile to encode: its pixels, copied under the hub's lock,
// and where it goes on the screen.
type tileJob struct {
	e       *tileEnc
	c       class
	r       shareRect
	fb      *framebuffer.Framebuffer // the tile's pixels alone (the scratch's)
	scratch *tileScratch
}

// tileScratch is a tile's pixels and an encoder, pooled: a pull holds them
// only while it encodes.
type tileScratch struct {
	fb  *framebuffer.Framebuffer
	enc *framebuffer.Encoder
}

var tilePool = sync.Pool{New: func() any {
	fb, _ := framebuffer.New(tileSize, tileSize, framebuffer.NoVNCFormat)
	enc, _ := framebuffer.NewEncoder(1)
	return &tileScratch{fb: fb, enc: enc}
}}

// copyTile copies r of src into dst, sized to r (under the hub's lock).
func copyTile(dst, src *framebuffer.Framebuffer, r shareRect) {
	dst.Resize(r.w, r.h)
	d, s := dst.Pix(), src.Pix()
	sw := src.Width() * framebuffer.BytesPerPixel
	rw := r.w * framebuffer.BytesPerPixel
	for y := range r.h {
		o := (r.y+y)*sw + r.x*framebuffer.BytesPerPixel
		copy(d[y*rw:(y+1)*rw], s[o:o+rw])
	}
}

// encodeTile encodes job's pixels into its entry (one rectangle placed at
// the tile's place on the screen), with the scratch's encoder, and marks
// the entry ready.
func encodeTile(job *tileJob, s *tileScratch) {
	e, r := job.e, job.r
	var b []byte
	if job.c == classRaw {
		b = appendRect(make([]byte, 0, 12+r.w*r.h*framebuffer.BytesPerPixel), r.x, r.y, r.w, r.h, rfb.EncodingRaw)
		b = append(b, job.fb.Pix()[:r.w*r.h*framebuffer.BytesPerPixel]...)
		e.kinds[rfb.KindRaw]++
	} else {
		before := s.enc.Counts()
		s.enc.SetJPEG(job.c.jpegQ())
		b, _, _ = s.enc.AppendTight(nil, job.fb, 0, 0, r.w, r.h) // the tile is one rectangle: 16384 pixels at most
		s.enc.SetJPEG(0)
		// Its header names (0, 0) of the tile's copy: the screen's place.
		binary.BigEndian.PutUint16(b[0:], uint16(r.x))
		binary.BigEndian.PutUint16(b[2:], uint16(r.y))
		after := s.enc.Counts()
		for k := range after {
			e.kinds[k] += after[k] - before[k]
		}
		e.lossy = after[rfb.KindTightJPEG] > before[rfb.KindTightJPEG]
	}
	e.b = b
	close(e.ready)
}
