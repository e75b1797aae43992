package rfbgate

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/framebuffer"
)

// A hub is one computer's shared upstream (Config.PerViewerUpstream
// false): one authenticated connection to its Xvnc, whatever the number of
// viewers, so that Xvnc encodes the screen once. Its first connection
// serves its first viewer alone, as Xvnc sends it (hubsolo.go); from a
// second viewer on, what follows holds.
//
// The hub decodes Xvnc's stream into its own framebuffer (the zlib
// streams of ZRLE and Tight are state that only a viewer that saw every
// byte could follow) and turns each update into a shared update that any
// viewer can decode from any update boundary: CopyRect and Tight fill and
// JPEG rectangles go as Xvnc sent them; every other rectangle is encoded
// again from the framebuffer, once, as self-contained Tight
// (framebuffer.Encoder). Every viewer of the computer gets the same bytes.
//
// Each viewer has a bounded queue (shareViewer). One whose queue is full
// skips updates: their areas go into a region it still owes, which it
// gets as a catch-up from the framebuffer once its queue has drained. A
// new viewer's first update is the whole framebuffer, encoded once for all
// the viewers that join at the same version.
type hub struct {
	r    *Relay
	comp Computer
	log  *slog.Logger

	ready      chan struct{} // closed when the dial is done
	dialCode   websocket.StatusCode
	dialReason string // set when the dial failed
	conn       net.Conn
	init       *ServerInit

	wmu sync.Mutex // whole messages to Xvnc

	// fbMu guards the framebuffer, the encoder, the version and what is
	// built from them; the reader holds it while it applies a message.
	fbMu     sync.Mutex
	fb       *framebuffer.Framebuffer
	enc      *framebuffer.Encoder
	version  uint64     // shared updates published
	jpegQ    int        // JPEG quality of catch-ups: the computer's quality level (0: lossless)
	full     *fullFrame // the last whole-screen encoding (fbMu)
	screens  []byte     // the last ExtendedDesktopSize rectangle Xvnc sent (header and screens)
	clipCaps []byte     // Xvnc's extended clipboard capabilities message
	painted  int        // pixels painted since the first request, until primed
	primed   chan struct{}
	isPrimed bool
	clip     clipTap
	encMu    sync.Mutex
	encSent  []byte  // the last SetEncodings sent to Xvnc
	lastEnc  []int32 // the last viewer's SetEncodings list (encMu)

	// solo (hubsolo.go): while the hub has had one viewer only, that
	// viewer gets Xvnc's own bytes, compressed by Xvnc (fbMu).
	solo      *shareViewer
	soloOK    bool          // no viewer yet: the first one is solo
	soloWhy   string        // why solo ended, for the log
	soloEnded chan struct{} // closed when solo ends
	soloRoom  chan struct{} // one token: the solo viewer's queue drained, or solo ended
	soloLive  atomic.Bool   // solo has not ended (set at the hub's start; cleared once, under fbMu)

	// the update being built (reader goroutine, under fbMu)
	cur      []byte
	curRects int
	curDmg   []shareRect
	curKinds rectCounts
	resized  bool
	tee      *captureReader
	dec      *framebuffer.Decoder

	mu       sync.Mutex     // viewers, refs, linger, dead, the joiners' log
	snap     *fullFrame     // the whole-screen encoding joiners start from (nil: none kept)
	joinLog  []*shareUpdate // the shared updates published since snap
	logBytes int
	lastJoin time.Time
	viewers  map[*shareViewer]struct{}
	refs     int
	linger   *time.Timer
	dead     bool
}

// fullFrame is the whole framebuffer as Tight rectangles (no update
// header), encoded once per version for the viewers that need it.
type fullFrame struct {
	version uint64
	w, h    int
	jpegQ   int
	b       []byte
	rects   int
	kinds   rectCounts
}

// shareRect is an area of the screen.
type shareRect struct{ x, y, w, h int }

// DefaultShareLinger is how long a hub keeps its Xvnc connection after its
// last viewer left, so that a reload or the next viewer finds it open.
const DefaultShareLinger = 10 * time.Second

// hubEncodings is what a hub asks Xvnc for, before the first viewer's
// quality and compression levels: Tight first (Xvnc's preference), the
// pixel encodings the framebuffer decodes, the desktop size and last-rect
// pseudo-encodings, QEMU key events and the extended clipboard, which the
// hub passes on to the viewers that list them. The cursor pseudo-encodings
// are not asked for: Xvnc then draws the cursor into the screen.
var hubEncodings = []int32{encodingTight, encodingCopyRect, encodingZRLE, encodingRaw,
	encodingDesktopSize, encodingExtendedDesktop, encodingLastRect, encodingQEMUExtendedKey, encodingExtendedClipboard}

// joinHub returns agent's hub with one more viewer counted, dialling Xvnc
// if the computer has none; false (ws closed with the reason) when no
// connection could be made.
func (r *Relay) joinHub(ctx context.Context, ws *websocket.Conn, comp Computer, log *slog.Logger) (*hub, bool) {
	r.mu.Lock()
	h := r.hubs[comp.Name]
	if h != nil {
		h.mu.Lock()
		if h.dead {
			h.mu.Unlock()
			h = nil
		} else {
			h.refs++
			if h.linger != nil {
				h.linger.Stop()
				h.linger = nil
			}
			h.mu.Unlock()
		}
	}
	if h == nil {
		h = &hub{r: r, comp: comp, log: r.log.With("agent", comp.Name), ready: make(chan struct{}), primed: make(chan struct{}),
			viewers: make(map[*shareViewer]struct{}), refs: 1, soloOK: true, soloRoom: make(chan struct{}, 1), soloEnded: make(chan struct{})}
		h.clip = clipTap{r: r, agent: comp.Name, limit: r.cfg.Limits.MaxCutText}
		h.soloLive.Store(true)
		r.hubs[comp.Name] = h
		r.wg.Add(1)
		go h.dial()
	}
	r.mu.Unlock()
	select {
	case <-h.ready:
	case <-ctx.Done():
		h.leave(nil)
		ws.Close(websocket.StatusGoingAway, "relay closing")
		return nil, false
	}
	if h.dialReason != "" {
		h.leave(nil)
		ws.Close(h.dialCode, h.dialReason)
		return nil, false
	}
	return h, true
}

// closeRecorder keeps the close a failed dial would send, for every viewer
// waiting on it.
type closeRecorder struct {
	code   websocket.StatusCode
	reason string
}

// Close records code and reason.
func (c *closeRecorder) Close(code websocket.StatusCode, reason string) error {
	c.code, c.reason = code, reason
	return nil
}

// dial connects the hub to its Xvnc (the dial limiter and start-up checks
// as a viewer's own dial), then runs the hub until its connection ends.
func (h *hub) dial() {
	defer h.r.wg.Done()
	var rec closeRecorder
	conn, init, ok := h.r.dialComputer(h.r.ctx, &rec, h.comp, h.log)
	if !ok {
		h.dialCode, h.dialReason = rec.code, rec.reason
		if h.dialReason == "" {
			h.dialCode, h.dialReason = websocket.StatusTryAgainLater, reasonRefused
		}
		h.markDead()
		close(h.ready)
		return
	}
	fb, err := framebuffer.New(int(init.Width), int(init.Height), framebuffer.NoVNCFormat)
	if err == nil {
		h.enc, err = framebuffer.NewEncoder(1)
	}
	if err != nil {
		conn.Close()
		h.log.Warn("rfbgate: cannot keep the computer's screen", "err", err)
		h.dialCode, h.dialReason = websocket.StatusInternalError, "glass cannot keep this computer's screen"
		h.markDead()
		close(h.ready)
		return
	}
	h.conn, h.init, h.fb = conn, init, fb
	stop := context.AfterFunc(h.r.ctx, h.closeConn)
	defer stop()
	// noVNC's pixel format, which the framebuffer keeps and every viewer
	// is served in, the hub's encodings (again with each viewer's levels)
	// and the whole screen.
	pf := framebuffer.NoVNCFormat.Bytes()
	if err := h.send(append([]byte{MsgSetPixelFormat, 0, 0, 0}, pf[:]...)); err != nil {
		h.log.Info("rfbgate: writing to the VNC server", "err", err)
	}
	h.setEncodings(nil)
	close(h.ready)
	h.run()
}

// markDead takes the hub out of the relay's table: the next viewer dials
// a new one.
func (h *hub) markDead() {
	h.r.mu.Lock()
	if h.r.hubs[h.comp.Name] == h {
		delete(h.r.hubs, h.comp.Name)
	}
	h.r.mu.Unlock()
	h.mu.Lock()
	h.dead = true
	if h.linger != nil {
		h.linger.Stop()
	}
	h.mu.Unlock()
}

// leave counts one viewer fewer (and forgets sv, if it was added); the
// last one starts the linger timer.
func (h *hub) leave(sv *shareViewer) {
	if sv != nil && h.soloLive.Load() {
		h.endSoloOf(sv, "the solo viewer left")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if sv != nil {
		delete(h.viewers, sv)
	}
	h.refs--
	if h.refs > 0 || h.dead {
		return
	}
	linger := h.r.cfg.ShareLinger
	h.linger = time.AfterFunc(linger, func() {
		h.r.mu.Lock()
		h.mu.Lock()
		idle := h.refs == 0 && !h.dead
		if idle {
			h.dead = true
			if h.r.hubs[h.comp.Name] == h {
				delete(h.r.hubs, h.comp.Name)
			}
		}
		h.mu.Unlock()
		h.r.mu.Unlock()
		if idle {
			h.log.Info("rfbgate: closing the shared connection: no viewer", "after", linger)
			h.closeConn()
		}
	})
}

// add registers sv for shared updates.
func (h *hub) add(sv *shareViewer) bool {
	live := h.soloLive.Load()
	if live { // solo's state is under fbMu; once solo has ended, a join takes mu only
		h.fbMu.Lock()
		defer h.fbMu.Unlock()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead {
		return false
	}
	h.viewers[sv] = struct{}{}
	if live {
		h.addSoloLocked(sv)
	}
	return true
}

// currentConn is the hub's connection to Xvnc (the solo feed's, then the
// shared one's).
func (h *hub) currentConn() net.Conn {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	return h.conn
}

// closeConn closes the hub's connection to Xvnc.
func (h *hub) closeConn() {
	if c := h.currentConn(); c != nil {
		c.Close()
	}
}

// send writes one whole client message to Xvnc.
func (h *hub) send(msg []byte) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := h.conn.Write(msg)
	return err
}

// setEncodings sends the hub's encodings to Xvnc with the JPEG quality
// level of the viewer that sent SetEncodings last (viewer; nil: the last
// one's again), which is the computer's: every viewer gets what the latest
// asked for. The compression level is 0 (the hub compresses, once), or
// the viewer's while it is solo. Past solo, the first call on a
// connection also asks for the whole screen.
func (h *hub) setEncodings(viewer []int32) {
	h.encMu.Lock()
	defer h.encMu.Unlock()
	if viewer != nil {
		h.lastEnc = viewer
	}
	solo := h.soloLive.Load()
	list := append([]int32(nil), hubEncodings...)
	if !solo {
		list = append(list, encodingCompressLevel0)
	}
	quality := 0
	for _, e := range h.lastEnc {
		if e >= encodingQualityLevel0 && e <= encodingQualityLevel9 {
			list = append(list, e)
			if quality == 0 {
				quality = framebuffer.JPEGQuality(int(e - encodingQualityLevel0))
			}
		}
		if solo && e >= encodingCompressLevel0 && e <= encodingCompressLevel9 {
			list = append(list, e)
		}
	}
	h.fbMu.Lock()
	h.jpegQ = quality
	h.fbMu.Unlock()
	msg := binary.BigEndian.AppendUint16([]byte{MsgSetEncodings, 0}, uint16(len(list)))
	for _, e := range list {
		msg = binary.BigEndian.AppendUint32(msg, uint32(e))
	}
	if string(msg) == string(h.encSent) {
		return
	}
	first := h.encSent == nil
	h.encSent = msg
	if first && !solo { // (a solo viewer's own requests go to Xvnc)
		msg = append(msg, h.request(false)...)
		h.primeSoon()
	}
	if err := h.send(msg); err != nil {
		h.log.Info("rfbgate: writing to the VNC server", "err", err)
	}
}

// primeSoon primes the hub in 2 s even if Xvnc never paints the whole
// screen (an idle desktop answers with what it has).
func (h *hub) primeSoon() { time.AfterFunc(2*time.Second, h.prime) }

// request is a FramebufferUpdateRequest for the whole screen.
func (h *hub) request(incremental bool) []byte {
	inc := byte(0)
	if incremental {
		inc = 1
	}
	h.fbMu.Lock()
	w, ht := h.fb.Width(), h.fb.Height()
	h.fbMu.Unlock()
	return []byte{MsgFramebufferUpdateReq, inc, 0, 0, 0, 0, byte(w >> 8), byte(w), byte(ht >> 8), byte(ht)}
}

// prime lets viewers have their first frame: the framebuffer holds the
// computer's screen (or Xvnc was given time to send it).
func (h *hub) prime() {
	h.fbMu.Lock()
	defer h.fbMu.Unlock()
	h.primeLocked()
}

func (h *hub) primeLocked() {
	if !h.isPrimed {
		h.isPrimed = true
		close(h.primed)
	}
}

// run reads Xvnc's stream until it ends, then ends every viewer.
func (h *hub) run() {
	err := h.runSolo()
	if err == nil {
		conn := h.currentConn()
		err = h.consume(conn, newUpstream(conn).wait, framebuffer.Limits{})
	}
	h.markDead()
	code, reason := websocket.StatusGoingAway, reasonServerEnded
	var dialErr *soloDialError
	switch {
	case h.r.ctx.Err() != nil: // the relay closed the connection: its viewers say so
		reason = reasonShutdown
	case errors.As(err, &dialErr):
		code, reason = dialErr.code, dialErr.reason
	case errors.Is(err, framebuffer.ErrDecode):
		h.log.Warn("rfbgate: closing the computer's viewers on a server message glass cannot decode", "err", err)
		code, reason = websocket.StatusInternalError, reasonServerUnframe
	case !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed):
		h.log.Info("rfbgate: reading the VNC server", "err", err)
	}
	h.closeConn()
	h.mu.Lock()
	vs := make([]*shareViewer, 0, len(h.viewers))
	for sv := range h.viewers {
		vs = append(vs, sv)
	}
	h.mu.Unlock()
	for _, sv := range vs {
		sv.v.end(code, reason)
	}
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
		if m.Type == framebuffer.MsgFramebufferUpdate {
			if err := h.send(h.request(true)); err != nil {
				return err
			}
		}
	}
}

// onRect adds a decoded rectangle to the update being built: as Xvnc sent
// it if it is stateless and still captured, else encoded again from the
// framebuffer (which holds exactly the state after this rectangle, so a
// later CopyRect in the same update copies what it should).
func (h *hub) onRect(rc framebuffer.Rect) {
	defer h.tee.release(rc.End)
	h.curDmg = append(h.curDmg, shareRect{rc.X, rc.Y, rc.W, rc.H})
	if !h.isPrimed {
		h.painted += rc.W * rc.H
		if h.painted >= h.fb.Width()*h.fb.Height() {
			h.primeLocked()
		}
	}
	switch rc.Kind {
	case framebuffer.KindCopyRect, framebuffer.KindTightFill, framebuffer.KindTightJPEG:
		if b, ok := h.tee.bytes(rc.Start, rc.End); ok {
			h.cur = append(h.cur, b...)
			h.curRects++
			h.curKinds.count(rectKind(rc.Kind))
			return
		}
	}
	if rc.Kind == framebuffer.KindTightCopy || rc.Kind == framebuffer.KindTightPalette {
		// Xvnc's filtered pixels (its palette and indices, or its
		// pixels), compressed again on their own.
		if b, err := h.enc.AppendTightBasic(h.cur, rc.X, rc.Y, rc.W, rc.H, h.dec.TightBasic()); err == nil {
			h.cur = b
			h.curRects++
			h.curKinds.count(rectKind(rc.Kind))
			return
		}
	}
	before := h.enc.Counts()
	var n int
	var err error
	// Xvnc looked for a palette already: its copy and gradient rectangles
	// have too many colours for one.
	h.enc.SetManyColours(rc.Kind == framebuffer.KindTightCopy || rc.Kind == framebuffer.KindTightGradient)
	h.cur, n, err = h.enc.AppendTight(h.cur, h.fb, rc.X, rc.Y, rc.W, rc.H)
	h.enc.SetManyColours(false)
	if err != nil { // the decoder checked the rectangle is inside
		h.log.Error("rfbgate: re-encoding a rectangle", "err", err)
		return
	}
	h.curRects += n
	after := h.enc.Counts()
	for k := range after {
		h.curKinds[k] += after[k] - before[k]
	}
}

// onPseudo passes a resize on to the viewers, as DesktopSize (which every
// viewer of the shared log must take), and keeps the screen layout of an
// ExtendedDesktopSize for viewers that list it.
func (h *hub) onPseudo(rc framebuffer.Rect) {
	defer h.tee.release(rc.End)
	switch rc.Encoding {
	case encodingDesktopSize, encodingExtendedDesktop:
	default:
		return
	}
	if rc.Encoding == encodingExtendedDesktop {
		if b, ok := h.tee.bytes(rc.Start, rc.End); ok {
			h.screens = append(h.screens[:0], b...)
			binary.BigEndian.PutUint16(h.screens[0:2], 0) // reason: the server's own change, status 0
			binary.BigEndian.PutUint16(h.screens[2:4], 0)
		}
	}
	if rc.Encoding == encodingExtendedDesktop && rc.X == 1 && rc.Y != 0 {
		return // Xvnc refused a viewer's resize: nothing changed
	}
	h.resized = true
	h.curDmg = append(h.curDmg[:0], shareRect{0, 0, h.fb.Width(), h.fb.Height()})
	h.cur = appendDesktopSize(h.cur, h.fb.Width(), h.fb.Height())
	h.curRects++
}

// appendDesktopSize appends a DesktopSize pseudo-rectangle.
func appendDesktopSize(b []byte, w, h int) []byte {
	return appendRect(b, 0, 0, w, h, encodingDesktopSize)
}

// appendRect appends a rectangle's 12-byte header.
func appendRect(b []byte, x, y, w, h int, enc int32) []byte {
	b = append(b, byte(x>>8), byte(x), byte(y>>8), byte(y), byte(w>>8), byte(w), byte(h>>8), byte(h))
	return appendInt32(b, enc)
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
	case framebuffer.MsgFramebufferUpdate:
		if h.curRects > 0 {
			h.publish()
		}
		h.cur, h.curRects, h.curDmg, h.curKinds, h.resized = h.cur[:0], 0, h.curDmg[:0], rectCounts{}, false
	case framebuffer.MsgBell:
		h.broadcast([]byte{srvBell}, func(*shareViewer) bool { return true })
	case framebuffer.MsgServerCutText:
		if !captured {
			h.log.Warn("rfbgate: server cut text too large to pass on; dropped", "bytes", end-m.Offset)
			h.clip.r.clips.forget(h.comp.Name)
			return
		}
		h.cutText(b)
	}
}

// publish makes the update built so far the next shared update and
// offers it to every viewer.
func (h *hub) publish() {
	n := len(h.cur)
	hdr := []byte{srvFramebufferUpdate, 0, 0, 0}
	if h.curRects < 0xffff {
		binary.BigEndian.PutUint16(hdr[2:], uint16(h.curRects))
	} else { // too many for the count: end with LastRect
		binary.BigEndian.PutUint16(hdr[2:], 0xffff)
		n += 12
	}
	b := make([]byte, 0, 4+n)
	b = append(append(b, hdr...), h.cur...)
	if h.curRects >= 0xffff {
		b = appendRect(b, 0, 0, 0, 0, encodingLastRect)
	}
	u := &shareUpdate{b: b, kinds: h.curKinds, resized: h.resized, w: h.fb.Width(), h: h.fb.Height()}
	u.dmg = append([]shareRect(nil), h.curDmg...)
	h.version++
	h.mu.Lock()
	for sv := range h.viewers {
		sv.offer(u)
	}
	h.logUpdateLocked(u)
	h.mu.Unlock()
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
	if ext && flags&clipboardCaps != 0 {
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

// serverInit is the ServerInit a viewer of the hub gets: the current size,
// noVNC's pixel format (the hub's), Xvnc's name.
func (h *hub) serverInit() *ServerInit {
	h.fbMu.Lock()
	w, ht := h.fb.Width(), h.fb.Height()
	h.fbMu.Unlock()
	raw := append([]byte(nil), h.init.Raw...)
	binary.BigEndian.PutUint16(raw[0:], uint16(w))
	binary.BigEndian.PutUint16(raw[2:], uint16(ht))
	pf := framebuffer.NoVNCFormat.Bytes()
	copy(raw[4:20], pf[:])
	return &ServerInit{Width: uint16(w), Height: uint16(ht), Name: h.init.Name, Raw: raw}
}

// fullFrameLocked returns the whole framebuffer as Tight rectangles,
// encoded at most once per version (under fbMu).
func (h *hub) fullFrameLocked() *fullFrame {
	w, ht := h.fb.Width(), h.fb.Height()
	if f := h.full; f != nil && f.version == h.version && f.w == w && f.h == ht && f.jpegQ == h.jpegQ {
		return f
	}
	before := h.enc.Counts()
	h.enc.SetJPEG(h.jpegQ)
	b, n, err := h.enc.AppendTight(nil, h.fb, 0, 0, w, ht)
	h.enc.SetJPEG(0)
	if err != nil {
		h.log.Error("rfbgate: encoding the whole screen", "err", err)
	}
	after := h.enc.Counts()
	f := &fullFrame{version: h.version, w: w, h: ht, jpegQ: h.jpegQ, b: b, rects: n}
	for k := range after {
		f.kinds[k] = after[k] - before[k]
	}
	h.full = f // never changed once made: queued items point into it
	h.mu.Lock()
	h.snap, h.joinLog, h.logBytes = f, nil, 0
	h.mu.Unlock()
	return f
}

// joined notes that a viewer has joined a hub others were watching (a
// crowd may follow): for snapKeep the hub keeps a whole-screen encoding
// and the log after it for the next joiners. A hub's first viewer is no
// sign of a crowd, and encoding the screen again is not a join: else a
// hub would keep encoding it for as long as the screen changes.
func (h *hub) joined() {
	h.mu.Lock()
	if len(h.viewers) > 1 {
		h.lastJoin = time.Now()
	}
	h.mu.Unlock()
}

// joinFromLog brings a viewer that owes the whole screen level with the
// hub without the framebuffer's lock: the last whole-screen encoding and
// the shared updates published since, which the hub keeps while viewers
// keep joining (snapLogMax). False when there is no such encoding, or
// the viewer is served privately.
func (h *hub) joinFromLog(sv *shareViewer) ([]shareItem, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.snap
	if f == nil {
		return nil, false
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.private || !sv.owedAll {
		return nil, false
	}
	hdr := []byte{srvFramebufferUpdate, 0, 0, 0}
	n := f.rects
	if sv.knownW != f.w || sv.knownH != f.h {
		hdr = appendDesktopSize(hdr, f.w, f.h)
		n++
	}
	putCount(hdr, n)
	items := make([]shareItem, 0, 2+len(h.joinLog))
	items = append(items, shareItem{b: hdr}, shareItem{b: f.b, kinds: &f.kinds})
	sv.knownW, sv.knownH = f.w, f.h
	for _, u := range h.joinLog {
		items = append(items, shareItem{b: u.b, kinds: &u.kinds})
		sv.knownW, sv.knownH = u.w, u.h // a resize's DesktopSize is in the update
	}
	sv.owedAll, sv.owed, sv.synced = false, nil, true
	if len(h.viewers) > 1 {
		h.lastJoin = time.Now()
	}
	h.log.Debug("rfbgate: viewer joined from the last whole screen and the log", "surface", sv.v.surface, "updates", len(h.joinLog), "version", f.version)
	return items, true
}

// logUpdate keeps u behind the last whole-screen encoding for joiners
// (under fbMu and h.mu); once the log outgrows snapLogMax it encodes the
// screen again if viewers joined lately, and otherwise lets both go.
func (h *hub) logUpdateLocked(u *shareUpdate) {
	if u.raw { // for the solo viewer only: joiners start again from a whole screen
		h.snap, h.joinLog, h.logBytes = nil, nil, 0
	}
	if h.snap == nil {
		return
	}
	h.joinLog = append(h.joinLog, u)
	h.logBytes += len(u.b)
	if h.logBytes <= max(snapLogMax, 2*len(h.snap.b)) {
		return
	}
	h.snap, h.joinLog, h.logBytes = nil, nil, 0
	if time.Since(h.lastJoin) < snapKeep {
		h.mu.Unlock()
		h.fullFrameLocked()
		h.mu.Lock()
	}
}

// Bounds of the joiners' log: its bytes beyond the whole-screen encoding,
// and how long after the last joiner the hub keeps encoding the screen
// again for the next.
const (
	snapLogMax = 2 << 20
	snapKeep   = 30 * time.Second
)
