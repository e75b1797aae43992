package rfbgate

import (
	"io"
	"net"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Solo: until a hub has a second viewer (the usual case: one person
// watching, from a phone say), its one viewer is served as a viewer with
// its own connection would be, on the hub's first connection:
//
//   - Xvnc compresses at the viewer's levels, and glass passes each
//     update on as Xvnc sent it, framing it without decoding it
//     (framebuffer.Decoder's Skip mode): Xvnc's zlib streams are state only
//     a viewer that has had every byte of them can follow, the solo
//     viewer from its first update on.
//   - The viewer's own update requests go to Xvnc, and the hub sends none:
//     Xvnc answers each as it would the viewer straight, so the viewer
//     (noVNC asks for the next update once it has drawn the last) sets the
//     pace, and its first update is Xvnc's first.
//   - Glass reads Xvnc's next update only once the viewer's queue has
//     drained into its socket (soloWaitDrained), so a slow link holds
//     Xvnc back where Xvnc's own congestion control sees it.
//
// Solo ends for good when a second viewer is added, when the solo viewer
// leaves, or when it cannot take an update whole (it reads Raw only, its
// queue is full, or an update was too large to keep). Glass then has no framebuffer to share (it never
// decoded Xvnc's bytes, and cannot start now: its zlib streams are
// midway): it opens a new connection, asks it for compression level 0 and
// the whole screen, decodes it into the framebuffer, and serves every
// viewer from the shared log (hub.go); the first connection is closed.
// The viewer that was solo owes the whole screen and catches up from the
// framebuffer, which the shared log's compressed rectangles (each
// resetting the one zlib stream it uses) let it do. An update with Xvnc's
// own bytes (shareUpdate.raw) is queued for the solo viewer only: any
// other viewer owes its area, and the joiners' log starts again after it.

// addSoloLocked makes sv solo if it is the hub's first viewer, and ends
// solo if it is a second one (under fbMu and mu).
func (h *hub) addSoloLocked(sv *shareViewer) {
	switch {
	case h.soloOK && len(h.viewers) == 1:
		h.soloOK, h.solo = false, sv
		sv.mu.Lock()
		sv.solo = true // its first update is Xvnc's first
		sv.mu.Unlock()
		h.log.Debug("rfbgate: solo viewer: it gets Xvnc's own bytes", "surface", sv.v.surface)
	case h.solo != nil || h.soloOK:
		h.endSoloTellLocked("a second viewer")
	}
}

// endSoloTellLocked ends solo (under fbMu, not under the solo viewer's
// mu) and tells the viewer that was solo.
func (h *hub) endSoloTellLocked(why string) {
	if old := h.endSoloLocked(why); old != nil {
		old.mu.Lock()
		old.leaveSoloLocked()
		old.mu.Unlock()
		old.poke()
	}
}

// leaveSoloLocked: the viewer is solo no more, and owes the whole screen
// (under sv.mu).
func (sv *shareViewer) leaveSoloLocked() {
	sv.solo = false
	sv.owesAll()
}

// endSoloOf ends solo if sv is the solo viewer.
func (h *hub) endSoloOf(sv *shareViewer, why string) {
	h.fbMu.Lock()
	defer h.fbMu.Unlock()
	if h.solo == sv {
		h.endSoloTellLocked(why)
	}
}

// endSoloLocked ends solo for good (under fbMu) and returns the viewer
// that was solo, if any, for the caller to tell (leaveSoloLocked). The
// solo feed's wait is cut short, and the feed stops.
func (h *hub) endSoloLocked(why string) *shareViewer {
	sv := h.solo
	if sv == nil && !h.soloOK {
		return nil
	}
	h.solo, h.soloOK = nil, false
	h.soloLive.Store(false)
	h.soloWhy = why
	close(h.soloEnded)
	h.soloPoke()
	return sv
}

// soloPoke wakes the solo feed waiting for its viewer's queue to drain.
func (h *hub) soloPoke() {
	select {
	case h.soloRoom <- struct{}{}:
	default:
	}
}

// soloWaitDrained waits until the solo viewer's queue has drained (its
// writer has handed the socket every update, in what the socket could
// take), or solo has ended: until then the feed reads nothing more, and
// Xvnc's next update waits in Xvnc and its socket, where Xvnc's own
// congestion control sees the viewer's link, as it would straight.
func (h *hub) soloWaitDrained() {
	for {
		h.fbMu.Lock()
		sv := h.solo
		h.fbMu.Unlock()
		if sv == nil {
			return
		}
		sv.mu.Lock()
		busy := sv.qbytes > 0
		sv.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-h.soloRoom:
		case <-h.r.ctx.Done(): // the relay closes: the feed's next read fails
			return
		}
	}
}

// soloOver reports whether solo has ended.
func (h *hub) soloOver() bool { return !h.soloLive.Load() }

// runSolo runs the hub's first connection as the solo feed until solo
// ends, then gives the hub its shared connection: nil, or why the hub
// must end.
func (h *hub) runSolo() error {
	conn := h.currentConn()
	fed := make(chan error, 1)
	go func() { fed <- h.soloFeed(conn, newUpstream(conn).wait) }()
	select {
	case err := <-fed:
		if !h.soloOver() {
			return err
		}
		fed <- err // (it ended as solo did)
	case <-h.soloEnded:
	}
	// The feed goes on passing the first connection's cut text and bells
	// on until the shared connection replaces it: the clipboard Xvnc
	// announces meanwhile would be lost with the connection.
	defer func() { <-fed }() // it ends once the first connection is closed
	h.fbMu.Lock()
	why := h.soloWhy
	h.fbMu.Unlock()
	h.mu.Lock()
	nobody := h.refs == 0
	if nobody { // no fresh connection for no one: the next viewer dials
		h.dead = true
	}
	h.mu.Unlock()
	if nobody {
		h.markDead()
		h.log.Info("rfbgate: solo ended with no viewer left: closing the computer's connection", "why", why)
		conn.Close()
		return net.ErrClosed
	}
	h.log.Info("rfbgate: solo ended: a new connection, whose screen glass decodes and compresses once for every viewer", "why", why)
	var rec closeRecorder
	shared, init, ok := h.r.dialComputer(h.r.ctx, &rec, h.comp, h.log)
	if !ok {
		conn.Close()
		if rec.reason == "" {
			rec.code, rec.reason = websocket.StatusTryAgainLater, reasonRefused
		}
		return &soloDialError{rec.code, rec.reason}
	}
	h.fbMu.Lock()
	h.fb.Resize(int(init.Width), int(init.Height))
	h.version++
	h.resetGridLocked()
	h.fbMu.Unlock()
	h.wmu.Lock()
	h.conn = shared
	h.wmu.Unlock()
	conn.Close()
	h.mu.Lock()
	dead := h.dead // the linger ran out, or the relay closed, while dialling
	h.mu.Unlock()
	if dead || h.r.ctx.Err() != nil {
		shared.Close()
		return net.ErrClosed
	}
	pf := framebuffer.NoVNCFormat.Bytes()
	if err := h.send(append([]byte{rfb.MsgSetPixelFormat, 0, 0, 0}, pf[:]...)); err != nil {
		h.log.Info("rfbgate: writing to the VNC server", "err", err)
	}
	h.encMu.Lock()
	h.encSent = nil // the new connection has had none
	h.encMu.Unlock()
	h.setEncodings(nil) // level 0, and the whole screen
	return nil
}

// soloDialError is a failed dial of the shared connection after solo.
type soloDialError struct {
	code   websocket.StatusCode
	reason string
}

func (e *soloDialError) Error() string { return "rfbgate: the shared connection: " + e.reason }

// soloFeed frames the solo connection's stream (without decoding its
// pixels) and passes each update on to the solo viewer as Xvnc sent it
// (once solo has ended, it drops them); bells and cut text go as on the
// shared path. It returns why the connection ended: runSolo closes it
// once the shared connection has replaced it.
func (h *hub) soloFeed(src io.Reader, wait func() error) error {
	tee := &captureReader{src: src}
	h.fbMu.Lock()
	fb, err := framebuffer.New(h.fb.Width(), h.fb.Height(), framebuffer.NoVNCFormat)
	h.fbMu.Unlock()
	if err != nil {
		return err
	}
	dec := framebuffer.NewDecoder(tee, fb, framebuffer.Limits{})
	dec.Skip = true
	var kinds rectCounts
	dec.OnRect = func(rc framebuffer.Rect) { kinds.count(rc.Kind) }
	for {
		h.soloWaitDrained()
		if dec.Buffered() == 0 {
			if err := wait(); err != nil {
				return err
			}
		}
		kinds = rectCounts{}
		m, err := dec.Next()
		if err != nil {
			return err
		}
		end := dec.Offset()
		b, captured := tee.bytes(m.Offset, end)
		h.fbMu.Lock()
		if h.solo != nil && (fb.Width() != h.fb.Width() || fb.Height() != h.fb.Height()) {
			h.fb.Resize(fb.Width(), fb.Height()) // its size, for the joiners' ServerInit (past solo, the shared connection's)
		}
		if m.Type == rfb.MsgFramebufferUpdate {
			if h.solo != nil {
				h.soloUpdateLocked(b, captured, kinds, fb.Width(), fb.Height())
			}
		} else {
			h.otherMessage(m, end, b, captured)
		}
		h.fbMu.Unlock()
		tee.release(end)
	}
}

// soloUpdateLocked offers the solo viewer an update as Xvnc sent it (b;
// captured: all of it kept). Under fbMu.
func (h *hub) soloUpdateLocked(b []byte, captured bool, kinds rectCounts, w, ht int) {
	if !captured {
		h.endSoloTellLocked("an update too large to keep")
		return
	}
	u := &shareUpdate{raw: &classUpdate{b: append([]byte(nil), b...), kinds: kinds}, w: w, h: ht}
	h.mu.Lock()
	defer h.mu.Unlock()
	for sv := range h.viewers {
		sv.offer(u)
	}
}
