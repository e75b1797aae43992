package rfbgate

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// The hub's update log: it decodes Xvnc's stream into its framebuffer,
// records which tiles each update painted (tiles.go), and makes each
// update a shared update for the viewers in step, encoded once for each
// class they are in (classBuild): the same bytes for every viewer of a
// class, decodable from any update boundary (no zlib state carries from
// one rectangle to the next). The viewers that are not in step owe the
// tiles and pull them (sharepull.go); the keyboard holder's among them
// also gets what its own input changed at once (prioLocked).

// classBuild is the update being built in one class.
type classBuild struct {
	c     class
	b     []byte
	rects int
	kinds rectCounts
	lossy tileSet
}

// consume decodes src, after wait says it has something (unless the
// decoder has bytes buffered), applying each message under fbMu and
// publishing what it gives, and asks Xvnc for the next update after each
// one; it returns why it stopped.
func (h *hub) consume(src io.Reader, wait func() error, lim framebuffer.Limits) error {
	h.tee = &captureReader{src: src}
	dec := framebuffer.NewDecoder(h.tee, h.fb, lim)
	h.dec = dec
	dec.OnRect = h.onRect
	dec.OnPseudo = h.onPseudo
	for {
		if dec.Buffered() == 0 {
			if err := wait(); err != nil {
				return err
			}
		}
		h.fbMu.Lock()
		m, err := dec.Next()
		if err == nil {
			h.message(m, dec.Offset())
		}
		h.fbMu.Unlock()
		if err != nil {
			return err
		}
		if m.Type == rfb.MsgFramebufferUpdate {
			if err := h.send(h.request(true)); err != nil {
				return err
			}
		}
	}
}

// startLocked begins building an update in each class a viewer in step is
// in (under fbMu, at the update's first rectangle).
func (h *hub) startLocked() {
	if h.building {
		return
	}
	h.building = true
	var seen [16]bool
	h.mu.Lock()
	for sv := range h.viewers {
		sv.mu.Lock()
		c := sv.cls
		in := sv.synced && !sv.private && !sv.solo && c >= classLossless
		sv.mu.Unlock()
		if in && !seen[c+1] {
			seen[c+1] = true
			h.builds = append(h.builds, h.newBuild(c))
		}
	}
	h.mu.Unlock()
}

// newBuild returns a build for class c, reusing an old one's memory.
func (h *hub) newBuild(c class) *classBuild {
	b := &classBuild{c: c, lossy: newTileSet(h.grid.n())}
	b.b = append(make([]byte, 0, 4<<10), rfb.MsgFramebufferUpdate, 0, 0, 0)
	return b
}

// onRect adds a decoded rectangle to the update being built in each
// class: as Xvnc sent it if it is stateless and still captured (CopyRect,
// fill), Xvnc's filtered pixels compressed again on their own when the
// class takes them losslessly, else encoded again from the framebuffer
// (which holds exactly the state after this rectangle, so a later
// CopyRect in the same update copies what it should).
func (h *hub) onRect(rc framebuffer.Rect) {
	defer h.tee.release(rc.End)
	h.startLocked()
	h.curDmg = append(h.curDmg, shareRect{rc.X, rc.Y, rc.W, rc.H})
	if !h.isPrimed {
		h.painted += rc.W * rc.H
		if h.painted >= h.fb.Width()*h.fb.Height() {
			h.primeLocked()
		}
	}
	for _, b := range h.builds {
		h.buildRect(b, rc)
	}
}

// buildRect adds rc to the update being built in b's class.
func (h *hub) buildRect(b *classBuild, rc framebuffer.Rect) {
	switch rc.Kind {
	case rfb.KindCopyRect, rfb.KindTightFill:
		if raw, ok := h.tee.bytes(rc.Start, rc.End); ok {
			b.b = append(b.b, raw...)
			b.rects++
			b.kinds.count(rc.Kind)
			return
		}
	case rfb.KindTightPalette:
		if out, err := h.enc.AppendTightBasic(b.b, rc.X, rc.Y, rc.W, rc.H, h.dec.TightBasic()); err == nil {
			b.b = out
			b.rects++
			b.kinds.count(rc.Kind)
			return
		}
	case rfb.KindTightCopy:
		if b.c.jpegQ() == 0 {
			if out, err := h.enc.AppendTightBasic(b.b, rc.X, rc.Y, rc.W, rc.H, h.dec.TightBasic()); err == nil {
				b.b = out
				b.rects++
				b.kinds.count(rc.Kind)
				return
			}
		}
	}
	before := h.enc.Counts()
	// Xvnc looked for a palette already: its copy and gradient rectangles
	// have too many colours for one.
	h.enc.SetManyColours(rc.Kind == rfb.KindTightCopy || rc.Kind == rfb.KindTightGradient)
	h.enc.SetJPEG(b.c.jpegQ())
	out, n, err := h.enc.AppendTight(b.b, h.fb, rc.X, rc.Y, rc.W, rc.H)
	h.enc.SetJPEG(0)
	h.enc.SetManyColours(false)
	if err != nil { // the decoder checked the rectangle is inside
		h.log.Error("rfbgate: re-encoding a rectangle", "err", err)
		return
	}
	b.b = out
	b.rects += n
	after := h.enc.Counts()
	for k := range after {
		b.kinds[k] += after[k] - before[k]
	}
	if after[rfb.KindTightJPEG] > before[rfb.KindTightJPEG] {
		h.grid.each(shareRect{rc.X, rc.Y, rc.W, rc.H}, b.lossy.add)
	}
}

// onPseudo passes a resize on to the viewers, as DesktopSize (which every
// viewer of the shared log must take), and keeps the screen layout of an
// ExtendedDesktopSize for viewers that list it.
func (h *hub) onPseudo(rc framebuffer.Rect) {
	defer h.tee.release(rc.End)
	switch rc.Encoding {
	case rfb.EncodingDesktopSize, rfb.EncodingExtendedDesktop:
	default:
		return
	}
	if rc.Encoding == rfb.EncodingExtendedDesktop {
		if b, ok := h.tee.bytes(rc.Start, rc.End); ok {
			h.screens = append(h.screens[:0], b...)
			binary.BigEndian.PutUint16(h.screens[0:2], 0) // reason: the server's own change, status 0
			binary.BigEndian.PutUint16(h.screens[2:4], 0)
		}
	}
	if rc.Encoding == rfb.EncodingExtendedDesktop && rc.X == 1 && rc.Y != 0 {
		return // Xvnc refused a viewer's resize: nothing changed
	}
	h.startLocked()
	h.resized = true
	h.curDmg = append(h.curDmg[:0], shareRect{0, 0, h.fb.Width(), h.fb.Height()})
	for _, b := range h.builds {
		b.b = appendDesktopSize(b.b, h.fb.Width(), h.fb.Height())
		b.rects++
	}
}

// appendDesktopSize appends a DesktopSize pseudo-rectangle.
func appendDesktopSize(b []byte, w, h int) []byte {
	return appendRect(b, 0, 0, w, h, rfb.EncodingDesktopSize)
}

// appendRect appends a rectangle's 12-byte header.
func appendRect(b []byte, x, y, w, h int, enc rfb.Encoding) []byte {
	b = append(b, byte(x>>8), byte(x), byte(y>>8), byte(y), byte(w>>8), byte(w), byte(h>>8), byte(h))
	return appendInt32(b, int32(enc))
}

// message publishes what a decoded server message gives the viewers.
func (h *hub) message(m framebuffer.Message, end int64) {
	b, captured := h.tee.bytes(m.Offset, end)
	defer h.tee.release(end)
	h.otherMessage(m, end, b, captured)
}

// otherMessage publishes what a server message, ending at stream offset
// end, gives the viewers, given its bytes (captured: all of them): a
// FramebufferUpdate's shared update (built by onRect and onPseudo), a
// bell, a cut text (under fbMu).
func (h *hub) otherMessage(m framebuffer.Message, end int64, b []byte, captured bool) {
	switch m.Type {
	case rfb.MsgFramebufferUpdate:
		if len(h.curDmg) > 0 || h.resized {
			h.publish()
		}
		h.builds, h.building, h.curDmg, h.resized = h.builds[:0], false, h.curDmg[:0], false
	case rfb.MsgBell:
		h.broadcast([]byte{rfb.MsgBell}, func(*shareViewer) bool { return true })
	case rfb.MsgServerCutText:
		if !captured {
			h.log.Warn("rfbgate: server cut text too large to pass on; dropped", "bytes", end-m.Offset)
			h.clip.r.clips.forget(h.comp.Name)
			return
		}
		h.cutText(b)
	}
}

// publish makes the update built so far the next shared update: the
// tiles it painted change version (every viewer not in step now owes
// them), and each viewer in step is offered its class's bytes.
func (h *hub) publish() {
	now := time.Now()
	h.version++
	if h.resized {
		h.resetGridLocked()
	}
	u := &shareUpdate{version: h.version, enc: make(map[class]*classUpdate, len(h.builds)), tiles: newTileSet(h.grid.n()),
		n: h.grid.n(), resized: h.resized, w: h.fb.Width(), h: h.fb.Height()}
	for _, r := range h.curDmg {
		h.grid.mark(r, h.version, now, u.tiles)
	}
	h.countFrameLocked(u.tiles, now)
	if now.Sub(h.prunedAt) >= tileClassIdle { // classes no viewer pulls any more
		h.tiles.prune(now)
		h.prunedAt = now
	}
	for _, b := range h.builds {
		if h.resized { // its lossy tiles were of the old grid
			b.lossy = newTileSet(h.grid.n())
			if b.kinds[rfb.KindTightJPEG] > 0 {
				b.lossy.fill(h.grid.n())
			}
		}
		putCount(b.b, b.rects)
		if b.rects >= 0xffff { // too many for the count: end with LastRect
			b.b[2], b.b[3] = 0xff, 0xff
			b.b = appendRect(b.b, 0, 0, 0, 0, rfb.EncodingLastRect)
		}
		u.enc[b.c] = &classUpdate{b: b.b, kinds: b.kinds, lossy: b.lossy}
	}
	h.mu.Lock()
	for sv := range h.viewers {
		sv.offer(u)
		h.prioLocked(sv, u, now)
	}
	h.mu.Unlock()
}

// resetGridLocked sizes the tile grid for the framebuffer: every tile
// changed now, every viewer owes all of it, and no encoding of the old
// grid is kept (under fbMu).
func (h *hub) resetGridLocked() {
	h.grid.reset(h.fb.Width(), h.fb.Height(), h.version, time.Now())
	h.tiles.reset(h.grid.n())
	h.frame = newTileSet(h.grid.n())
	h.mu.Lock()
	for sv := range h.viewers {
		sv.mu.Lock()
		sv.fit(h.grid.n())
		clear(sv.has)
		sv.lossy.clear()
		sv.mu.Unlock()
		sv.poke()
	}
	h.mu.Unlock()
}

// countFrameLocked adds an update's tiles to the frame, and once a frame
// (classBudget) has passed, folds its pixels into framePx, the size of a
// frame of the screen's changes that a viewer's class must fit its link.
func (h *hub) countFrameLocked(tiles tileSet, now time.Time) {
	if h.frameAt.IsZero() {
		h.frameAt = now
	}
	h.frame.or(tiles)
	if d := now.Sub(h.frameAt); d >= classBudget {
		const alpha = 0.2
		px := float64(h.frame.count() * tileSize * tileSize)
		h.framePx += alpha * (px - h.framePx)
		for range min(int(d/classBudget)-1, 50) { // frames with no change
			h.framePx -= alpha * h.framePx
		}
		h.frame.clear()
		h.frameAt = now
	}
}

// Bounds of the keyboard holder's own answers (prioLocked).
const (
	prioAfterInput = 500 * time.Millisecond // how long after its input a change may be its answer
	prioUpdates    = 3                      // how many updates after its input may be (the answer may take a frame or two)
	prioMaxBytes   = 64 << 10               // the most an answer may carry, encoded
	prioMaxQueued  = 4
)

// prioLocked sends the keyboard holder, when it is not in step, what an
// update that followed its input changed in tiles that had been calm
// (tileGrid.event: a key's echo, the field it types in, a menu it opened;
// not the page scrolling beside it, which changes without a pause),
// exactly where it changed, ahead of the tiles it owes: the answer to
// the one who typed reaches it within a round trip, whatever the rest of
// the screen does (under fbMu and the hub's mu, after the update's tiles
// are marked). The tiles stay owed.
func (h *hub) prioLocked(sv *shareViewer, u *shareUpdate, now time.Time) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.synced || sv.private || sv.solo || !sv.start || sv.prioLeft == 0 || now.Sub(sv.inputAt) > prioAfterInput ||
		len(sv.prio) >= prioMaxQueued || sv.knownW != h.fb.Width() || sv.knownH != h.fb.Height() {
		return
	}
	b := []byte{rfb.MsgFramebufferUpdate, 0, 0, 0}
	n := 0
	var kinds rectCounts
	before := h.enc.Counts()
	h.enc.SetJPEG(sv.cls.jpegQ())
	u.tiles.each(func(i int) {
		if !h.grid.event[i] || len(b) > prioMaxBytes {
			return
		}
		t := h.grid.rect(i)
		for _, r := range h.curDmg {
			x0, y0 := max(r.x, t.x), max(r.y, t.y)
			x1, y1 := min(r.x+r.w, t.x+t.w), min(r.y+r.h, t.y+t.h)
			if x0 >= x1 || y0 >= y1 {
				continue
			}
			var k int
			b, k, _ = h.enc.AppendTight(b, h.fb, x0, y0, x1-x0, y1-y0)
			n += k
		}
	})
	h.enc.SetJPEG(0)
	if n == 0 {
		return
	}
	sv.prioLeft--
	after := h.enc.Counts()
	for k := range after {
		kinds[k] = after[k] - before[k]
	}
	putCount(b, n)
	sv.prio = append(sv.prio, shareItem{b: b, kinds: &kinds, fbu: true})
	sv.poke()
}

// broadcast queues a control message (bell, cut text) for the viewers
// want allows, ahead of their updates; the others count it withheld.
func (h *hub) broadcast(msg []byte, want func(*shareViewer) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sv := range h.viewers {
		if want(sv) {
			sv.control(msg)
		} else {
			sv.v.withheld.Add(1)
		}
	}
}

// cutText passes a ServerCutText on: the extended clipboard's capabilities
// to every viewer that uses it (and later to each joining one), anything
// else only to the keyboard's holder (to its viewers that read that form);
// glass's clipboard keeper sees every one.
func (h *hub) cutText(msg []byte) {
	l := int64(int32(binary.BigEndian.Uint32(msg[4:8])))
	ext := l < 0
	var flags uint32
	payload := msg[8:]
	if ext {
		if len(payload) < 4 {
			return
		}
		flags = binary.BigEndian.Uint32(payload[:4])
		payload = payload[4:]
	}
	if ext && flags&rfb.ClipboardCaps != 0 {
		h.clipCaps = append(h.clipCaps[:0], msg...)
		cp := append([]byte(nil), msg...)
		h.broadcast(cp, func(sv *shareViewer) bool { return sv.extClip() && sv.started() })
		return
	}
	holder := false
	want := func(sv *shareViewer) bool {
		ok := sv.v.gate.HasKeyboard() && (!ext || sv.extClip())
		holder = holder || ok
		return ok
	}
	h.broadcast(append([]byte(nil), msg...), want)
	h.clip.cutBegin(ext, flags, int64(len(payload)), holder)
	h.clip.cutData(payload)
	h.clip.cutEnd()
}
