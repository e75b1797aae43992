package rfbgate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Computer is one VNC server the relay may open.
type Computer struct {
	Name     string // the agent's name
	Addr     string // host:port of its Xvnc
	Password Secret // its VNC password; never printed
}

// Config configures a Relay. Zero values take the defaults named.
type Config struct {
	Computers []Computer
	TicketTTL time.Duration // DefaultTicketTTL
	LeaseTTL  time.Duration // DefaultLeaseTTL
	// LeaseGrace is how long a keyboard outlives the closing of its
	// holder's viewer, so that a reload keeps it: DefaultLeaseGrace, at most
	// MaxLeaseGrace.
	LeaseGrace   time.Duration
	PingInterval time.Duration // 5 s
	// PingTimeout bounds the wait for a ping's pong; a viewer without one is
	// closed. 30 s (a ping queues behind framebuffer data on a slow link).
	PingTimeout time.Duration
	// WriteTimeout bounds each write to a viewer; a viewer that reads
	// nothing for that long is dropped (and uncounted). 30 s.
	WriteTimeout     time.Duration
	HandshakeTimeout time.Duration // 10 s, each side
	// ReleaseTimeout bounds how long a viewer that lost the keyboard in the
	// middle of a forwarded message may take to finish it before it is
	// closed (closing makes Xvnc release its keys). 2 s.
	ReleaseTimeout time.Duration
	Limits         Limits
	// Dial bounds and retries the handshakes with each computer's Xvnc.
	Dial DialPolicy
	// OriginPatterns are the browser origins, besides the relay's own,
	// allowed to open a stream and to use the control API (host patterns as
	// coder/websocket's AcceptOptions.OriginPatterns). Empty: same origin only.
	OriginPatterns []string
	Logger         *slog.Logger // slog.Default()
	// PerViewerUpstream gives every viewer its own connection to the
	// computer's Xvnc, relayed byte for byte (glass before it shared one).
	// False (the default): all the viewers of a computer share one
	// connection through its hub (see hub.go and the README).
	PerViewerUpstream bool
	// ShareLinger is how long a shared connection stays open after its
	// last viewer left: DefaultShareLinger.
	ShareLinger time.Duration
	// OnViewers, if set, is told the number of open viewers of a computer
	// whenever it changes (open viewers keep the computer checked out).
	OnViewers func(agent string, open int)
	// ResumeWindow is how long a page's resume credential outlives its
	// stream (resume.go): DefaultResumeWindow.
	ResumeWindow time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For glass
	// believes: a request from one of them is logged (and checked for
	// loopback) as coming from the client the header names (clientaddr.go).
	// Empty: the connection's peer, always.
	TrustedProxies []netip.Prefix
}

// Relay joins browser WebSockets to Xvnc connections through a Gate each.
type Relay struct {
	cfg       Config
	computers map[string]Computer
	log       *slog.Logger
	tickets   *tickets
	resumes   *resumes
	leases    *leases
	clips     clipboards
	metrics   *relayMetrics

	mu       sync.Mutex
	viewers  map[string]map[*viewer]struct{}
	nextSeq  uint64 // the seq of the next viewer counted open
	closed   bool
	authHold map[string]time.Time // computer -> no dialling until then
	dialers  map[string]*dialLimiter
	healthOf map[string]Health    // computer -> last dial outcome
	healthAt map[string]time.Time // computer -> when healthOf was set
	hubs     map[string]*hub      // computer -> its shared connection (PerViewerUpstream false)
	names    []string             // the computers, sorted
	wg       sync.WaitGroup
	ctx      context.Context
	cancel   context.CancelFunc
}

// maxClientMessage bounds one WebSocket message from a browser (noVNC sends
// one RFB message or a few per WebSocket message; its queue is 10 KiB).
// A longer one closes the viewer (status 1009).
const maxClientMessage = 1 << 20

// ErrUnknownComputer: no computer has that name.
var ErrUnknownComputer = errors.New("unknown computer")

// NewRelay returns a relay for cfg.Computers.
func NewRelay(cfg Config) (*Relay, error) {
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 5 * time.Second
	}
	if cfg.PingTimeout <= 0 {
		cfg.PingTimeout = 30 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.ReleaseTimeout <= 0 {
		cfg.ReleaseTimeout = 2 * time.Second
	}
	if cfg.ShareLinger <= 0 {
		cfg.ShareLinger = DefaultShareLinger
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LeaseGrace == 0 {
		cfg.LeaseGrace = DefaultLeaseGrace
	}
	if err := CheckLeaseGrace(cfg.LeaseGrace); err != nil {
		return nil, fmt.Errorf("rfbgate: %w", err)
	}
	cfg.Limits = cfg.Limits.withDefaults()
	cfg.Dial = cfg.Dial.withDefaults()
	r := &Relay{cfg: cfg, computers: make(map[string]Computer), log: cfg.Logger, viewers: make(map[string]map[*viewer]struct{}), authHold: make(map[string]time.Time), dialers: make(map[string]*dialLimiter), healthOf: make(map[string]Health), healthAt: make(map[string]time.Time), hubs: make(map[string]*hub)}
	for _, c := range cfg.Computers {
		if c.Name == "" || c.Addr == "" {
			return nil, fmt.Errorf("rfbgate: computer %q: name and address are required", c.Name)
		}
		if c.Password.IsZero() {
			return nil, fmt.Errorf("rfbgate: computer %s: no password", c.Name)
		}
		if _, dup := r.computers[c.Name]; dup {
			return nil, fmt.Errorf("rfbgate: computer %s named twice", c.Name)
		}
		r.computers[c.Name] = c
		r.names = append(r.names, c.Name)
		r.dialers[c.Name] = newDialLimiter(cfg.Dial)
	}
	sort.Strings(r.names)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.tickets = newTickets(cfg.TicketTTL, nil)
	r.resumes = newResumes(cfg.ResumeWindow, nil)
	r.leases = newLeases(cfg.LeaseTTL, r.applyLease)
	r.metrics = newRelayMetrics(r)
	r.leases.onEvent = r.leaseChanged
	return r, nil
}

// Close ends every viewer and waits for their goroutines.
func (r *Relay) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}

// authHoldOff is how long the relay stops dialling a computer that refused
// its VNC password: Xvnc blacklists an address after five failures, and
// every viewer comes from the relay's address.
const authHoldOff = 30 * time.Second

// Known reports whether agent names a computer.
func (r *Relay) Known(agent string) bool { _, ok := r.computers[agent]; return ok }

// Watch issues a one-use ticket for a viewer of agent on surface, with
// control access and no name.
func (r *Relay) Watch(agent, surface string) (Ticket, error) {
	return r.Issue(agent, Grant{Surface: surface})
}

// Issue issues a one-use ticket for a viewer of agent with g's surface,
// access (AccessControl when empty) and display name; an invalid g is an
// error saying what is wrong.
func (r *Relay) Issue(agent string, g Grant) (Ticket, error) {
	if !r.Known(agent) {
		return Ticket{}, ErrUnknownComputer
	}
	if err := g.check(); err != nil {
		return Ticket{}, fmt.Errorf("rfbgate: %w", err)
	}
	return r.tickets.Issue(agent, g)
}

// ViewerStatus is one open viewer.
type ViewerStatus struct {
	Surface  string  `json:"surface"`
	Stream   string  `json:"stream"`             // the stream's public id (computers.watch returns it)
	Name     string  `json:"name,omitempty"`     // its display name, given when its ticket was minted
	Access   Access  `json:"access"`             // what its ticket allows: control or watch
	Keyboard bool    `json:"keyboard,omitempty"` // this stream holds the keyboard
	RTTms    float64 `json:"rtt_ms"`             // last WebSocket ping round trip; -1 before the first
	// Shared viewers only (Config.PerViewerUpstream false):
	QueuedBytes *int64  `json:"queued_bytes,omitempty"`    // bytes of shared updates waiting for it now
	Skipped     *uint64 `json:"skipped_updates,omitempty"` // times it fell out of step (its link could not take an update when it came)
	// Its link as glass measures it (from its own requests for updates:
	// the delivery rate in bits a second and the round trip; 0 before
	// they are measured), how glass serves it now (Mode: "solo", Xvnc's
	// own updates; "in-step", every shared update as it comes;
	// "pulling", the newest pixels of what it owes when its link can
	// take them), and the quality class it gets (Class: "lossless",
	// "raw", or "q0" to "q9", the JPEG quality level; Picture: the same
	// in words).
	Mode      string  `json:"mode,omitempty"`
	Class     string  `json:"class,omitempty"`
	Picture   string  `json:"picture,omitempty"`
	RateBps   float64 `json:"rate_bps,omitempty"`
	LinkRTTms float64 `json:"link_rtt_ms,omitempty"`
	KeepsUp   bool    `json:"keeps_up,omitempty"` // its link took all glass had to send lately (RateBps is then the screen's need)
	// Its TCP connection as the kernel sees it (TCP_INFO, Linux only):
	// the smoothed round trip, the delivery rate in bits a second, and
	// the bytes written and not yet sent (TCP_NOTSENT_LOWAT keeps these
	// near its mark, see docs/rfbgate.md). Behind a TLS-terminating proxy
	// these are the proxy's link, not the viewer's.
	KernelRTTms   float64 `json:"kernel_rtt_ms,omitempty"`
	KernelRateBps float64 `json:"kernel_rate_bps,omitempty"`
	UnsentBytes   *int64  `json:"unsent_bytes,omitempty"`
}

// ComputerStatus is who holds a computer's keyboard and who watches it.
type ComputerStatus struct {
	Keyboard       *string        `json:"keyboard"`
	KeyboardStream string         `json:"keyboard_stream,omitempty"` // the holding stream (one tab of the surface)
	KeyboardName   string         `json:"keyboard_name,omitempty"`   // the holder's display name (its surface when it has none)
	KeyboardSince  *time.Time     `json:"keyboard_since,omitempty"`  // when the holder took it
	Viewers        []ViewerStatus `json:"viewers"`
	Watching       int            `json:"watching"` // open viewers without the keyboard
	Health
}

// Status reports agent's keyboard holder and open viewers.
func (r *Relay) Status(agent string) (ComputerStatus, error) {
	if !r.Known(agent) {
		return ComputerStatus{}, ErrUnknownComputer
	}
	st := ComputerStatus{Viewers: []ViewerStatus{}, Health: r.health(agent)}
	h, held := r.leases.holding(agent)
	if held {
		st.Keyboard, st.KeyboardStream, st.KeyboardSince = &h.Surface, h.Stream, &h.Since
		st.KeyboardName = displayName(h.Name, h.Surface)
	}
	r.mu.Lock()
	for v := range r.viewers[agent] {
		rtt := float64(-1)
		if ns := v.rtt.Load(); ns >= 0 {
			rtt = float64(ns) / 1e6
		}
		vs := ViewerStatus{Surface: v.surface, Stream: v.stream, Name: v.name, Access: v.access, Keyboard: held && h.Surface == v.surface && h.Stream == v.stream, RTTms: rtt}
		if !vs.Keyboard {
			st.Watching++
		}
		if v.share != nil {
			vs.QueuedBytes, vs.Skipped = ptr(v.share.queued.Load()), ptr(v.share.skipped.Load())
			v.share.status(&vs)
		}
		if l, ok := kernelLink(v.raw); ok {
			l.kernelStatus(&vs)
		}
		st.Viewers = append(st.Viewers, vs)
	}
	r.mu.Unlock()
	sort.Slice(st.Viewers, func(i, j int) bool {
		a, b := st.Viewers[i], st.Viewers[j]
		return a.Surface < b.Surface || (a.Surface == b.Surface && a.Stream < b.Stream)
	})
	return st, nil
}

// GateStats returns the gate counters of agent's open viewers, by surface.
func (r *Relay) GateStats(agent string) map[string]GateStats {
	r.mu.Lock()
	vs := make([]*viewer, 0, len(r.viewers[agent]))
	for v := range r.viewers[agent] {
		vs = append(vs, v)
	}
	r.mu.Unlock()
	out := make(map[string]GateStats, len(vs))
	for _, v := range vs {
		v.mu.Lock()
		out[v.surface] = v.gate.Stats()
		v.mu.Unlock()
	}
	return out
}

// Viewers is the number of open viewers of agent.
func (r *Relay) Viewers(agent string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.viewers[agent])
}

// applyLease brings every viewer of agent in line with the current holder;
// a viewer that lost the keyboard gets its keys released.
func (r *Relay) applyLease(agent string) {
	r.mu.Lock()
	vs := make([]*viewer, 0, len(r.viewers[agent]))
	for v := range r.viewers[agent] {
		vs = append(vs, v)
	}
	r.mu.Unlock()
	for _, v := range vs {
		v.syncKeyboard()
		v.stateChanged()
	}
}

// viewer is one browser connection.
type viewer struct {
	r       *Relay
	agent   string
	surface string
	stream  string       // public id of this stream (streamID of its ticket)
	name    string       // display name, from its ticket ("" : none)
	access  Access       // what its ticket allows: a watch-only viewer never gets the keyboard
	page    *pageEvents  // its page's events (pageevents.go); nil when it did not ask for them
	seq     uint64       // order in which viewers were counted open (r.mu): a take-over naming no stream picks the highest
	rtt     atomic.Int64 // nanoseconds; -1 before the first pong

	mu     sync.Mutex // serialises Feed, Release and writes to the server
	gate   *Gate
	server serverConn // the computer's connection, or the viewer's place at its hub (shareInput)
	out    []byte
	cancel context.CancelFunc

	filter *serverFilter // the server-to-client stream (pumpServer's goroutine); nil when shared
	share  *shareViewer  // the viewer's place at its computer's hub; nil with its own connection
	stall  *time.Timer   // pumpServer's write deadline: ends a viewer that stopped reading

	ws     *websocket.Conn
	raw    net.Conn // the browser's TCP connection under ws (write deadlines); nil if unknown
	remote string   // the browser's address
	opened time.Time

	toViewer   atomic.Uint64    // bytes sent to the browser (WebSocket payload)
	messages   atomic.Uint64    // WebSocket messages sent to the browser (batches)
	toComputer atomic.Uint64    // bytes written to Xvnc
	withheld   atomic.Uint64    // ServerCutText messages withheld from this viewer
	rects      sharedRectCounts // rectangles relayed, by kind (publishCounts)

	closeMu     sync.Mutex
	ended       bool
	closeBy     string // endedByRelay or endedByViewer
	closeCode   websocket.StatusCode
	closeReason string // first cause; see end
}

// syncKeyboard sets the gate's flag from the lease table (read under v.mu,
// so the last call always applies the latest holder); on a loss it sends
// the releases now or, when a message is half forwarded, bounds the wait.
func (v *viewer) syncKeyboard() {
	v.mu.Lock()
	defer v.mu.Unlock()
	has := v.access != AccessWatch && v.r.leases.holds(v.agent, v.surface, v.stream)
	prev := v.gate.HasKeyboard()
	v.gate.SetKeyboard(has)
	if !prev || has {
		return
	}
	v.out = v.gate.Release(v.out[:0])
	if err := v.writeServerLocked(); err != nil {
		v.serverWriteFailed(err)
		return
	}
	if v.gate.releasePending() {
		time.AfterFunc(v.r.cfg.ReleaseTimeout, func() {
			v.mu.Lock()
			stuck := v.gate.releasePending()
			v.mu.Unlock()
			if stuck {
				v.r.log.Warn("rfbgate: viewer did not finish its message after losing the keyboard; closing", "agent", v.agent, "surface", v.surface)
				v.end(websocket.StatusPolicyViolation, reasonReleaseStuck)
			}
		})
	}
}

// releaseOnClose lets go of keys and buttons a closing viewer still holds,
// while the server connection is still open (Xvnc also releases a closed
// connection's keys; this does not depend on it).
func (v *viewer) releaseOnClose() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.gate.HasKeyboard() {
		return
	}
	v.gate.SetKeyboard(false)
	v.out = v.gate.Release(v.out[:0])
	if len(v.out) > 0 {
		v.server.SetWriteDeadline(time.Now().Add(time.Second))
		n, _ := v.server.Write(v.out)
		v.toComputer.Add(uint64(n))
	}
}

// serverConn is where a viewer's gated input goes: its own connection to
// the computer, or its shareInput at the computer's hub.
type serverConn interface {
	Write(p []byte) (int, error)
	SetWriteDeadline(t time.Time) error
	Close() error
}

// serverWriteFailed ends a viewer whose input could not be written: the
// computer's connection failed, or (shared) the viewer asked for what the
// shared view cannot give it.
func (v *viewer) serverWriteFailed(err error) {
	var ce *closeError
	if errors.As(err, &ce) {
		v.r.log.Warn("rfbgate: closing viewer", "agent", v.agent, "surface", v.surface, "reason", ce.reason)
		v.end(ce.code, ce.reason)
		return
	}
	v.end(websocket.StatusGoingAway, reasonServerEnded)
}

func (v *viewer) writeServerLocked() error {
	if len(v.out) == 0 {
		return nil
	}
	v.server.SetWriteDeadline(time.Now().Add(10 * time.Second))
	n, err := v.server.Write(v.out)
	v.toComputer.Add(uint64(n))
	return err
}

// ServeStream is the WebSocket upgrade for one viewer:
// GET ...?ticket=T[&agent=NAME], or ?resume=R for a page reconnecting with
// the resume credential its last stream gave it (resume.go). A request
// that is not a WebSocket upgrade, or comes from an origin neither the
// relay's own nor in OriginPatterns, is refused (JSON error) before its
// ticket is used. A used, expired, unknown or wrong-agent ticket gets
// HTTP 403 (JSON error) before any RFB byte; each refusal is logged and
// counted. A browser that offers the subprotocol "glass" gets its page's
// events on the stream (pageevents.go); "binary" is plain RFB.
func (r *Relay) ServeStream(w http.ResponseWriter, req *http.Request) {
	if !r.upgradeAllowed(w, req) {
		return
	}
	q := req.URL.Query()
	agent, g, token, err := r.redeem(q)
	if err != nil {
		r.ticketRefused(w, req, err)
		return
	}
	comp, ok := r.computers[agent]
	if !ok {
		writeError(w, http.StatusNotFound, "unknown_computer", "computer "+agent+" is not configured")
		return
	}
	hc := &hijackCapture{ResponseWriter: w}
	ws, err := websocket.Accept(hc, req, &websocket.AcceptOptions{
		Subprotocols:    []string{subprotocolGlass, "binary"},
		OriginPatterns:  r.cfg.OriginPatterns,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		r.log.Info("rfbgate: websocket upgrade refused", "agent", agent, "surface", g.Surface, "err", err)
		return
	}
	o := opening{Grant: g, stream: streamID(token), events: ws.Subprotocol() == subprotocolGlass}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ws.Close(websocket.StatusGoingAway, "relay closing")
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()
	if o.events {
		defer r.resumes.closed(o.stream)
		if err := r.sayHello(ws, agent, o); err != nil {
			ws.CloseNow()
			return
		}
	}
	r.serveViewer(ws, hc.conn, r.clientAddr(req), comp, o)
}

// opening is what a viewer is opened as: its grant (surface, access,
// name), its stream id, and whether its page takes events on the stream.
type opening struct {
	Grant
	stream string
	events bool
}

// redeem uses up the query's ticket (or resume credential) and returns
// what it opens and the token, which names the stream.
func (r *Relay) redeem(q url.Values) (agent string, g Grant, token string, err error) {
	if tok := q.Get("resume"); tok != "" && q.Get("ticket") == "" {
		agent, g, err = r.resumes.redeem(tok, q.Get("agent"))
		return agent, g, tok, err
	}
	tok := q.Get("ticket")
	tk, err := r.tickets.Redeem(tok, q.Get("agent"))
	return tk.Agent, tk.Grant, tok, err
}

// newViewer is a viewer of comp opened as o, counted nowhere yet.
func (r *Relay) newViewer(o opening, comp Computer, ws *websocket.Conn, raw net.Conn, remote string, cancel context.CancelFunc) *viewer {
	v := &viewer{r: r, agent: comp.Name, surface: o.Surface, stream: o.stream, name: o.Name, access: o.Access,
		gate: NewGate(r.cfg.Limits), cancel: cancel, ws: ws, raw: raw, remote: remote, opened: time.Now()}
	if o.events {
		v.page = newPageEvents()
	}
	v.rtt.Store(-1)
	return v
}

// hijackCapture keeps the connection coder/websocket hijacks, so that the
// relay can bound its writes with a deadline (see closeViewer), and gives
// coder/websocket a buffered writer that writes each frame in one
// write(v) (frameWriter).
type hijackCapture struct {
	http.ResponseWriter
	conn net.Conn
}

// Hijack hijacks the underlying connection and keeps it.
func (h *hijackCapture) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("rfbgate: the HTTP server cannot hijack the connection")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return c, brw, err
	}
	h.conn = c
	if brw.Writer.Buffered() == 0 { // net/http's is new and empty
		brw = bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(&frameWriter{w: c}, frameHoldMax-maxFrameHeader))
	}
	return c, brw, nil
}

// serveViewer runs one viewer to its end.
func (r *Relay) serveViewer(ws *websocket.Conn, raw net.Conn, remote string, comp Computer, o opening) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	attrs := []any{"agent", comp.Name, "surface", o.Surface}
	if o.Name != "" {
		attrs = append(attrs, "name", o.Name)
	}
	log := r.log.With(append(attrs, "access", o.Access)...)

	if !r.cfg.PerViewerUpstream {
		r.serveShared(ctx, ws, raw, remote, comp, o, log)
		return
	}
	server, init, ok := r.dialComputer(ctx, ws, comp, log)
	if !ok {
		return
	}
	defer server.Close()

	// The browser's side is read and written without a context (after the
	// handshake's): cancelling a coder/websocket read or write drops the
	// connection without a close frame, and a cancelable context costs
	// allocations on every message. A blocked read ends when closeViewer
	// closes the WebSocket; WriteTimeout is pumpServer's stall timer, and
	// closeGrace bounds the end (closeViewer). Pings have their own context,
	// cancelled only after the close frame.
	connCtx, connCancel := context.WithCancel(context.Background())
	defer connCancel()
	ws.SetReadLimit(maxClientMessage)
	// The handshake's deadline drops the connection (a message reader
	// keeps the context it started with, so the handshake cannot have one
	// of its own: the rest of its last message is the stream's).
	v := r.newViewer(o, comp, ws, raw, remote, cancel)
	v.server = server
	var err error
	if v.filter, err = newServerFilter(init.Raw[4:20], v.gate.HasKeyboard); err != nil {
		log.Warn("rfbgate: the VNC server's pixel format cannot be framed", "err", err)
		ws.Close(websocket.StatusInternalError, "computer's pixel format not supported")
		return
	}
	v.gate.framePixelFormat(v.filter.SetPixelFormat)
	v.tapClipboard()
	client := &clientStream{ws: ws, text: v.pageText}
	if !r.viewerHandshake(v, client, init, log, func() error { r.addViewer(v); return nil }) {
		return
	}
	log.Info("rfbgate: viewer open", "role", v.role(), "remote", remote, "width", init.Width, "height", init.Height)

	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // server to client: framed, cut text to the holder only
		defer wg.Done()
		v.pumpServer(newUpstream(server))
	}()
	readDone := make(chan struct{})
	go func() { // client to server: through the gate
		defer wg.Done()
		defer close(readDone)
		v.pumpClient(client)
	}()
	go func() { // pings: round-trip time
		defer wg.Done()
		v.pingLoop(ctx, connCtx)
	}()
	<-ctx.Done()
	if r.ctx.Err() != nil {
		v.end(websocket.StatusGoingAway, reasonShutdown)
	}
	v.settle(readDone)
	role := v.role()
	v.releaseOnClose()
	server.Close()
	by, code, reason := v.closeStatus()
	sent := v.closeViewer(code, reason) // a close frame, then (bounded) the browser's answer
	connCancel()
	wg.Wait()
	log.Info("rfbgate: viewer closed", "role", role, "remote", remote, "by", by, "code", int(code), "reason", reason, "close_sent", sent,
		"duration", time.Since(v.opened).Round(time.Millisecond), "bytes_to_viewer", v.toViewer.Load(), "bytes_to_computer", v.toComputer.Load())
	r.removeViewer(v, code)
}

// viewerHandshake answers the browser's side of the handshake, bounded by
// HandshakeTimeout, counting the viewer open (register) just before its
// ServerInit goes out, so that a browser with its ServerInit is always
// counted (a take-over may name it at once). False when it failed: the
// viewer is closed, and uncounted if it was counted.
func (r *Relay) viewerHandshake(v *viewer, client *clientStream, init *ServerInit, log *slog.Logger, register func() error) bool {
	// The handshake's deadline drops the connection (a message reader
	// keeps the context it started with, so the handshake cannot have one
	// of its own: the rest of its last message is the stream's).
	registered := false
	hs := time.AfterFunc(r.cfg.HandshakeTimeout, func() { v.ws.CloseNow() })
	err := rfb.ServeClientHandshake(client, init, func() error {
		if err := register(); err != nil {
			return err
		}
		registered = true
		return nil
	})
	if !hs.Stop() && err == nil {
		err = fmt.Errorf("not done within %v", r.cfg.HandshakeTimeout)
	}
	if err != nil {
		log.Info("rfbgate: browser handshake failed", "err", err)
		v.ws.CloseNow()
		if registered {
			r.removeViewer(v, websocket.StatusAbnormalClosure)
		}
		return false
	}
	return true
}

// role is "holder" while the viewer's gate lets input through, "watcher"
// otherwise.
func (v *viewer) role() string {
	if v.gate.HasKeyboard() {
		return roleHolder
	}
	return roleWatcher
}

// Viewer roles, in logs and metrics.
const (
	roleHolder  = "holder"
	roleWatcher = "watcher"
)

// pumpClient feeds the browser's bytes through the gate to the server
// until either side ends, having recorded why. It waits for each message
// with no buffer and reads it into one from clientPool (buffers.go).
func (v *viewer) pumpClient(client *clientStream) {
	for {
		if err := client.next(); err != nil {
			v.clientReadEnded(err)
			return
		}
		bp := clientPool.Get().(*[]byte)
		ok := v.feedMessage(client, *bp)
		clientPool.Put(bp)
		if !ok {
			return
		}
	}
}

// feedMessage feeds the message being read through the gate, buf at a
// time; false when the viewer ended.
func (v *viewer) feedMessage(client *clientStream, buf []byte) bool {
	for {
		n, end, err := client.readMessage(buf)
		if n > 0 {
			v.mu.Lock()
			var ferr error
			v.out, ferr = v.gate.Feed(v.out[:0], buf[:n])
			werr := v.writeServerLocked()
			v.mu.Unlock()
			if ferr != nil {
				v.r.log.Warn("rfbgate: closing viewer on bad input", "agent", v.agent, "surface", v.surface, "err", ferr)
				v.refused(ferr)
				return false
			}
			if werr != nil {
				v.serverWriteFailed(werr)
				return false
			}
		}
		if err != nil {
			v.clientReadEnded(err)
			return false
		}
		if end {
			return true
		}
	}
}

// refused ends a viewer whose message the gate refused, with 1008 naming it.
func (v *viewer) refused(err error) {
	var pe *ProtocolError
	if errors.As(err, &pe) {
		v.r.metrics.refused(v.agent, pe.Type)
	}
	v.end(websocket.StatusPolicyViolation, refusedReason(err))
}

// pingLoop pings the viewer every PingInterval and records the round trip.
//
// The ping's context is the viewer's own: coder/websocket closes a
// connection whose write outlives its context, and a ping queued behind
// framebuffer data on a slow link is congestion, not death. The round trip
// includes that queueing: it is what the viewer sees.
func (v *viewer) pingLoop(ctx, connCtx context.Context) {
	r := v.r
	t := time.NewTicker(r.cfg.PingInterval)
	defer t.Stop()
	for {
		start := time.Now()
		pctx, pcancel := context.WithTimeout(connCtx, r.cfg.PingTimeout)
		err := v.ws.Ping(pctx)
		pcancel()
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				r.log.Warn("rfbgate: closing viewer: no pong", "agent", v.agent, "surface", v.surface, "timeout", r.cfg.PingTimeout)
				v.end(websocket.StatusPolicyViolation, noPong(r.cfg.PingTimeout))
			}
			return
		}
		rtt := time.Since(start)
		v.rtt.Store(int64(rtt))
		r.metrics.pingRTT(v.agent, rtt)
		if v.share != nil {
			v.share.pingRTT(rtt)
		}
		v.notify(rttEvent{Type: "rtt", RTTms: float64(rtt.Microseconds()) / 1e3})
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (r *Relay) addViewer(v *viewer) {
	r.mu.Lock()
	set := r.viewers[v.agent]
	if set == nil {
		set = make(map[*viewer]struct{})
		r.viewers[v.agent] = set
	}
	r.nextSeq++
	v.seq = r.nextSeq
	set[v] = struct{}{}
	n := len(set)
	r.mu.Unlock()
	v.startEvents()
	r.viewerOpened(v)
	r.metrics.viewerOpened(v.agent)
	// Take the flag from the lease after registering, so a change between
	// the two is applied by applyLease as well.
	v.syncKeyboard()
	r.statesChanged(v.agent)
	if r.cfg.OnViewers != nil {
		r.cfg.OnViewers(v.agent, n)
	}
}

func (r *Relay) removeViewer(v *viewer, code websocket.StatusCode) {
	// v's goroutines have ended, so its counters are final: read them
	// (v.mu) before r.mu, never under it, since v.mu is held while the
	// lease table is read and the lease table calls back into r.mu.
	var final viewerTotals
	final.add(v)
	r.mu.Lock()
	delete(r.viewers[v.agent], v)
	n := len(r.viewers[v.agent])
	r.metrics.viewerClosed(v.agent, code, &final) // under r.mu: a scrape sees the viewer or its totals, never both
	r.mu.Unlock()
	v.stopEvents()
	if _, _, why := v.closeStatus(); why == reasonServerEnded {
		r.screenEnded(v.agent, v.opened)
	}
	r.viewerClosed(v)
	r.statesChanged(v.agent)
	if r.cfg.OnViewers != nil {
		r.cfg.OnViewers(v.agent, n)
	}
}
