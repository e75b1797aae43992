package rfbgate

import "github.com/wirebench/wirebench/internal/framebuffer"

// Solo: while a hub has had one viewer only (the usual case: one person
// watching, from a phone say), that viewer gets Xvnc's own bytes, as a
// viewer with its own connection would, and at its pace:
//
//   - Xvnc compresses at the viewer's levels, and glass passes Xvnc's
//     rectangles on as they are instead of compressing them again (its
//     zlib streams are state only a viewer that has had every byte of
//     them can follow: the solo viewer, from its first update on). Glass
//     still decodes them, to keep the framebuffer a later joiner starts
//     from.
//   - The hub asks Xvnc for the next update only once the viewer's queue
//     has drained, so a slow link gets the newest screen when it can take
//     one, as it would straight from Xvnc.
//
// The hub's first whole-screen request waits for the solo viewer's first
// request, so that the first update it gets is Xvnc's first.
//
// Solo ends for good when a second viewer is added, when the solo viewer
// leaves, or when it cannot take an update whole (its queue is full, it
// asked for a whole new screen, it reads Raw only, or a rectangle was too
// large to keep). The hub then asks Xvnc for compression level 0 and
// compresses every update itself, as the shared log. The viewer that was
// solo goes on in step: the shared log's compressed rectangles reset the
// one zlib stream they use, and Xvnc's own bytes are never passed on
// again. An update that carries Xvnc's own bytes (shareUpdate.raw) is
// queued for the solo viewer only: any other viewer owes its area, and
// the joiners' log starts again after it.

// addSoloLocked makes sv solo if it is the hub's first viewer, and ends
// solo if it is a second one (under fbMu and mu).
func (h *hub) addSoloLocked(sv *shareViewer) {
	switch {
	case h.soloOK && len(h.viewers) == 1:
		h.soloOK, h.solo = false, sv
		sv.mu.Lock()
		sv.solo, sv.synced, sv.owedAll = true, true, false // its first update is Xvnc's first
		sv.mu.Unlock()
		h.log.Debug("rfbgate: solo viewer: it gets Xvnc's own bytes", "surface", sv.v.surface)
	case h.solo != nil || h.soloOK:
		if old := h.endSoloLocked("a second viewer"); old != nil {
			old.mu.Lock()
			old.solo = false
			old.mu.Unlock()
		}
	}
}

// endSoloLocked ends solo for good (under fbMu) and returns the viewer
// that was solo, if any, for the caller to tell (its sv.solo). The shared
// encodings and the next request are sent by enterSharedIfDue, which the
// caller (or the hub's reader) calls once it holds no lock.
func (h *hub) endSoloLocked(why string) *shareViewer {
	sv := h.solo
	if sv == nil && !h.soloOK {
		return nil
	}
	h.solo, h.soloOK = nil, false
	h.soloWhy = why
	h.shareNow.Store(true)
	return sv
}

// enterSharedIfDue, once solo has ended, asks Xvnc for the shared
// encodings (compression level 0) and for what the solo viewer's pace
// held back: the whole screen if it was never asked for, else the next
// update.
func (h *hub) enterSharedIfDue() {
	if !h.shareNow.Swap(false) {
		return
	}
	h.fbMu.Lock()
	why := h.soloWhy
	h.fbMu.Unlock()
	h.log.Info("rfbgate: solo ended: glass compresses every update, once for every viewer", "why", why)
	h.setEncodings(nil)
	if !h.asked.Load() {
		h.askWhole()
		return
	}
	h.mu.Lock()
	want := h.soloWant
	h.soloWant = false
	h.mu.Unlock()
	if want {
		if err := h.send(h.request(true)); err != nil {
			h.log.Info("rfbgate: writing to the VNC server", "err", err)
		}
	}
}

// soloRectLocked adds a rectangle to the solo viewer's update as Xvnc
// sent it; false when the rectangle is not one that needs Xvnc's state
// (the shared path passes it on as it is anyway) or was not kept, in
// which case solo ends and it is encoded again, as is every later one
// (under fbMu).
func (h *hub) soloRectLocked(rc framebuffer.Rect) bool {
	switch rc.Kind {
	case framebuffer.KindRaw, framebuffer.KindZRLE, framebuffer.KindTightCopy, framebuffer.KindTightPalette, framebuffer.KindTightGradient:
	default:
		return false
	}
	if b, ok := h.tee.bytes(rc.Start, rc.End); ok {
		h.cur = append(h.cur, b...)
		h.curRects++
		h.curKinds.count(rectKind(rc.Kind))
		h.curRaw = true
		return true
	}
	if old := h.endSoloLocked("a rectangle too large to keep"); old != nil {
		old.mu.Lock()
		old.solo = false
		old.mu.Unlock()
	}
	return false
}

// paceSoloLocked, after an update, reports whether the solo viewer's pace
// holds the next request back: its queue has not drained yet, and its
// drain will send it (soloDrained). Under fbMu.
func (h *hub) paceSoloLocked() bool {
	sv := h.solo
	if sv == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sv.mu.Lock()
	busy := sv.qbytes > 0
	sv.mu.Unlock()
	if busy {
		h.soloWant = true
	}
	return busy
}

// soloDrained sends the request the solo viewer's pace held back, now
// that its queue has drained.
func (h *hub) soloDrained() {
	h.mu.Lock()
	want := h.soloWant
	h.soloWant = false
	h.mu.Unlock()
	if want {
		if err := h.send(h.request(true)); err != nil {
			h.log.Info("rfbgate: writing to the VNC server", "err", err)
		}
	}
}
