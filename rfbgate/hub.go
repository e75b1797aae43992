package rfbgate

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// A hub is one computer's shared upstream (Config.PerViewerUpstream
// false): one authenticated connection to its Xvnc, whatever the number of
// viewers, so that Xvnc encodes the screen once. Its first connection
// serves its first viewer alone, as Xvnc sends it (hubsolo.go); from a
// second viewer on (or once the solo viewer's link cannot keep up), what
// follows holds.
//
// The hub asks Xvnc for lossless Tight and decodes its stream into its own
// framebuffer, which is then always the computer's screen, pixel for
// pixel (the zlib streams of ZRLE and Tight are state that only a viewer
// that saw every byte could follow). It serves each viewer from it in the
// viewer's class (quality.go): the viewers that keep up get each update
// as it comes, encoded once per class (hubupdate.go); those whose link
// cannot, owe the tiles it painted and pull the newest pixels of them
// when their link can take more, each tile encoded once per class and
// version for every viewer that needs it (shareviewer.go, sharepull.go,
// tilecache.go). Each viewer's link is measured by its own requests for
// updates (pacer.go).
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

	// fbMu guards the framebuffer, the encoder, the version, the tile
	// grid and the update being built; the reader holds it while it
	// applies a message.
	fbMu     sync.Mutex
	fb       *framebuffer.Framebuffer
	enc      *framebuffer.Encoder
	version  uint64 // shared updates published
	grid     tileGrid
	tiles    *tileCache
	prunedAt time.Time // when tiles last dropped its idle classes
	framePx  float64   // pixels of the tiles a frame (classBudget) of the screen's changes touches, a moving average
	frame    tileSet   // the tiles changed in the current frame
	frameAt  time.Time
	screens  []byte // the last ExtendedDesktopSize rectangle Xvnc sent (header and screens)
	clipCaps []byte // Xvnc's extended clipboard capabilities message
	painted  int    // pixels painted since the first request, until primed
	primed   chan struct{}
	isPrimed bool
	clip     clipTap
	encMu    sync.Mutex
	encSent  []byte         // the last SetEncodings sent to Xvnc
	soloEnc  []rfb.Encoding // the solo viewer's SetEncodings list (encMu)

	// solo (hubsolo.go): while the hub has had one viewer only, that
	// viewer gets Xvnc's own bytes, compressed by Xvnc (fbMu).
	solo      *shareViewer
	soloOK    bool          // no viewer yet: the first one is solo
	soloWhy   string        // why solo ended, for the log
	soloEnded chan struct{} // closed when solo ends
	soloRoom  chan struct{} // one token: the solo viewer's queue drained, or solo ended
	soloLive  atomic.Bool   // solo has not ended (set at the hub's start; cleared once, under fbMu)

	// the update being built (reader goroutine, under fbMu)
	builds   []*classBuild
	building bool
	curDmg   []shareRect
	resized  bool
	tee      *captureReader
	dec      *framebuffer.Decoder

	mu      sync.Mutex // viewers, refs, linger, dead
	viewers map[*shareViewer]struct{}
	refs    int
	linger  *time.Timer
	dead    bool
}

// shareRect is an area of the screen.
type shareRect struct{ x, y, w, h int }

// DefaultShareLinger is how long a hub keeps its Xvnc connection after its
// last viewer left, so that a reload or the next viewer finds it open.
const DefaultShareLinger = 10 * time.Second

// hubEncodings is what a hub asks Xvnc for on its shared connection, with
// compression level 0 and no JPEG quality level (so Xvnc sends no JPEG,
// and the hub's framebuffer is the screen exactly): Tight first (Xvnc's
// preference), the pixel encodings the framebuffer decodes, the desktop
// size and last-rect pseudo-encodings, QEMU key events and the extended
// clipboard, which the hub passes on to the viewers that list them. The
// cursor pseudo-encodings are not asked for: Xvnc then draws the cursor
// into the screen.
var hubEncodings = []rfb.Encoding{rfb.EncodingTight, rfb.EncodingCopyRect, rfb.EncodingZRLE, rfb.EncodingRaw,
	rfb.EncodingDesktopSize, rfb.EncodingExtendedDesktop, rfb.EncodingLastRect, rfb.EncodingQEMUExtendedKey, rfb.EncodingExtendedClipboard}

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
			viewers: make(map[*shareViewer]struct{}), refs: 1, soloOK: true, soloRoom: make(chan struct{}, 1), soloEnded: make(chan struct{}),
			tiles: newTileCache()}
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
	h.resetGridLocked()
	stop := context.AfterFunc(h.r.ctx, h.closeConn)
	defer stop()
	// noVNC's pixel format, which the framebuffer keeps and every viewer
	// is served in, the hub's encodings (again with each viewer's levels)
	// and the whole screen.
	pf := framebuffer.NoVNCFormat.Bytes()
	if err := h.send(append([]byte{rfb.MsgSetPixelFormat, 0, 0, 0}, pf[:]...)); err != nil {
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
// last one starts the linger timer. A solo viewer's leaving ends solo;
// when no viewer is left then, the hub ends at once (hubsolo.go): a new
// viewer needs a connection of its own first update anyway.
func (h *hub) leave(sv *shareViewer) {
	h.mu.Lock()
	if sv != nil {
		delete(h.viewers, sv)
	}
	h.refs--
	if h.refs == 0 && !h.dead {
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
	h.mu.Unlock()
	if sv != nil && h.soloLive.Load() {
		h.endSoloOf(sv, "the solo viewer left")
	}
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

// setEncodings sends Xvnc the hub's encodings. On the shared connection
// they are hubEncodings at compression level 0 (the hub compresses, once
// per class), and the first call on a connection also asks for the whole
// screen. While solo they are the solo viewer's own (viewer: its latest
// SetEncodings; nil: the last one's again), kept to what glass frames and
// what it listed, with its levels: Xvnc's bytes go to it as they come, so
// they carry nothing it did not ask for.
func (h *hub) setEncodings(viewer []rfb.Encoding) {
	h.encMu.Lock()
	defer h.encMu.Unlock()
	solo := h.soloLive.Load()
	if viewer != nil && solo {
		h.soloEnc = viewer
	}
	var list []rfb.Encoding
	if solo {
		list = soloEncodings(h.soloEnc)
	} else {
		list = append(append(list, hubEncodings...), rfb.EncodingCompressLevel0)
	}
	msg := binary.BigEndian.AppendUint16([]byte{rfb.MsgSetEncodings, 0}, uint16(len(list)))
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

// soloEncodings is what the hub asks Xvnc for while solo: of hubEncodings,
// those the viewer listed (Raw always: RFB's own), in the viewer's order,
// and its quality and compression levels.
func soloEncodings(viewer []rfb.Encoding) []rfb.Encoding {
	list := []rfb.Encoding{}
	raw := false
	for _, e := range viewer {
		switch {
		case slices.Contains(hubEncodings, e):
			list = append(list, e)
			raw = raw || e == rfb.EncodingRaw
		case e >= rfb.EncodingQualityLevel0 && e <= rfb.EncodingQualityLevel9, e >= rfb.EncodingCompressLevel0 && e <= rfb.EncodingCompressLevel9:
			list = append(list, e)
		}
	}
	if !raw {
		list = append(list, rfb.EncodingRaw)
	}
	return list
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
	return []byte{rfb.MsgFramebufferUpdateRequest, inc, 0, 0, 0, 0, byte(w >> 8), byte(w), byte(ht >> 8), byte(ht)}
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
