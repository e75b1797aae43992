package session

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// HostConfig configures a Host.
type HostConfig struct {
	// Versions the host speaks; nil means Versions().
	Versions []uint32
	// MaxFrame is the host's frame limit; 0 means schema.DefaultMaxFrame.
	// The negotiated limit is the smaller of this and the hello's.
	MaxFrame uint32
	// Token, when set, is the per-launch token the hello must carry.
	Token codec.Opt[string]
	// Session is the session id the welcome hands out.
	Session uint64
	// Trees has the host read snapshot responses as codec.Trees
	// (codec.DecodeTree): the Result of a snapshot's Completed is then
	// a *codec.Tree, which owns its memory and which the collector does
	// not scan, rather than a *codec.Snapshot. For a host that queues or
	// keeps snapshots.
	Trees bool
}

// Host is the daemon's end of a connection: it answers the agent's hello,
// sends requests and matches their responses, tracks the agent's event
// streams and resyncs them, and keeps the connection alive. It does no
// I/O and never reads the clock (see the package documentation). A Host
// is not safe for concurrent use.
type Host struct {
	conn
	cfg HostConfig

	version  uint32
	caps     codec.Capabilities
	nextID   uint64
	pending  map[uint64]hostPending
	timers   timers
	streams  seqs
	events   queue[HostEvent]
	stats    HostStats
	reqCache codec.Request
}

// hostPending is a request in flight.
type hostPending struct {
	method codec.Method
	// auto marks a resync the host sent itself: its outcome is reported
	// as InSync or ResyncFailed, never as Completed.
	auto bool
	// stream is the stream a resync is for.
	stream codec.Stream
	// expires is when the host fails the request itself (deadline plus
	// grace), if hasDeadline.
	expires     time.Time
	hasDeadline bool
	deadline    time.Duration
}

// HostStats counts what the host skipped.
type HostStats struct {
	UnknownKinds   uint64 // messages of a kind this version does not know, skipped
	LateResponses  uint64 // responses to no request in flight (late or bogus), dropped
	OversizedIn    uint64 // incoming frames over the limit
	DiscardedBytes uint64 // payload bytes of oversized frames, discarded as they arrive
}

// NewHost returns a host waiting for the agent's hello; now starts its
// silence timer.
func NewHost(cfg HostConfig, now time.Time) *Host {
	cfg.Versions, cfg.MaxFrame = withDefaults(cfg.Versions, cfg.MaxFrame)
	h := &Host{cfg: cfg, nextID: 1, pending: make(map[uint64]hostPending)}
	h.init(cfg.MaxFrame, now, h)
	h.trees = cfg.Trees
	return h
}

// Connected reports whether the handshake completed and the session is
// still open.
func (h *Host) Connected() bool { return h.phase == phaseOpen }

// Capabilities is what the agent advertised, once a version is selected
// (0 before).
func (h *Host) Capabilities() codec.Capabilities { return h.caps }

// Version is the selected version (0 before the handshake completes).
func (h *Host) Version() uint32 { return h.version }

// MaxFrame is the frame limit in force for sending.
func (h *Host) MaxFrame() uint32 { return h.limit }

// InFlight is the number of requests waiting for an answer, automatic
// resyncs included.
func (h *Host) InFlight() int { return len(h.pending) }

// Stats reports what the host skipped so far.
func (h *Host) Stats() HostStats {
	s := h.stats
	s.UnknownKinds = h.unknownKinds
	return s
}

// Dropped is the number of sequence numbers of stream s reported dropped
// on this connection (for a lossy stream, its dropped frames).
func (h *Host) Dropped(s codec.Stream) uint64 {
	if st := h.streams.m[s]; st != nil {
		return st.seq.dropped
	}
	return 0
}

// InSyncStream reports whether stream s is in sync (a stream not seen yet
// is).
func (h *Host) InSyncStream(s codec.Stream) bool {
	if st := h.streams.m[s]; st != nil {
		return st.seq.inSync
	}
	return true
}

// PollTransmit returns every byte queued for the agent, control frames
// (ping, pong) first, or nil; they count as handed to the transport at
// the latest time passed in. The slice is valid until the next
// PollTransmit or PollTransmitAt.
func (h *Host) PollTransmit() []byte { return h.pollTransmit(h.now, 0) }

// PollTransmitAt returns the next bytes to write to the agent, handed to
// the transport at now, or nil: the queued control frames (ping, pong) if
// there are any, otherwise whole frames of at most max bytes in all (at
// least one frame, however long; max <= 0 for all of them). A driver that
// writes one such slice at a time keeps a ping from waiting behind more
// than one of them. The slice is valid until the next PollTransmit or
// PollTransmitAt.
func (h *Host) PollTransmitAt(now time.Time, max int) []byte { return h.pollTransmit(now, max) }

// Backlog is the number of bytes queued for the agent and not handed
// out by PollTransmit yet.
func (h *Host) Backlog() int { return h.tx.backlog() }

// PollEvent returns the next event, if any.
func (h *Host) PollEvent() (HostEvent, bool) { return h.events.pop() }

// PollTimeout returns when HandleTimeout should next be called, if ever.
func (h *Host) PollTimeout() (time.Time, bool) {
	at, ok := h.nextTimeout(&h.timers, h.liveTimer)
	if !ok {
		return at, false
	}
	for _, s := range h.streams.order {
		st := h.streams.m[s]
		at, ok = earliest(at, ok, st.retryAt, st.retry)
	}
	return at, ok
}

func (h *Host) liveTimer(t timer) bool {
	p, ok := h.pending[t.id]
	return ok && p.hasDeadline && p.expires.Equal(t.at)
}

// HandleTimeout fires every timer due at now: pings, the silence close,
// requests whose deadline and grace passed, automatic resync retries.
func (h *Host) HandleTimeout(now time.Time) {
	now, ok := h.fireTimers(now, "agent", &h.timers, h.liveTimer, h.expire)
	if !ok || h.phase != phaseOpen {
		return
	}
	for _, s := range h.streams.order {
		st := h.streams.m[s]
		if st.retry && !now.Before(st.retryAt) {
			st.retry = false
			h.sendResync(now, s, st)
		}
	}
}

// Receive feeds bytes read from the agent.
func (h *Host) Receive(now time.Time, b []byte) { h.receive(now, b) }

// EndOfStream reports that the agent closed its end: the session closes
// at once.
func (h *Host) EndOfStream(now time.Time) { h.endOfStream(now, "agent") }

// Close closes the session from the host's side, failing pending
// requests with disconnected.
func (h *Host) Close(now time.Time) { h.closeLocal(now, "the host closed the session") }

// Request sends a request for method m with params p (nil sends the
// method's empty parameter set, codec.ParamsFor(m)) and
// returns its id. A deadline > 0 travels as deadline_ms; the host fails
// the request itself when no answer arrives within DeadlineGrace after it.
// The outcome is reported once, as a *Completed event, unless Request
// returns an error: then nothing was sent, and the error is a
// *codec.Error (missing_capability naming the capability,
// frame_too_large, disconnected after a close), ErrNotConnected, or a
// plain error for a caller's mistake (parameters of another method, a
// negative deadline, parameters that do not encode). A resync sent with
// Request is the same as one sent with Resync.
func (h *Host) Request(now time.Time, m codec.Method, p codec.Params, deadline time.Duration) (uint64, error) {
	return h.request(now, m, p, deadline, false, 0)
}

// Resync asks the agent to resync stream s, as Request does; any failure
// of it is also reported as *ResyncFailed, and its success as *InSync.
// It supersedes an automatic resync of s in flight or waiting to retry.
func (h *Host) Resync(now time.Time, s codec.Stream, deadline time.Duration) (uint64, error) {
	return h.request(now, codec.MethodResync, &codec.ResyncParams{Stream: s}, deadline, false, s)
}

func (h *Host) request(now time.Time, m codec.Method, p codec.Params, deadline time.Duration, auto bool, s codec.Stream) (uint64, error) {
	switch h.phase {
	case phaseHandshake:
		return 0, fmt.Errorf("session: request %s: %w", m, ErrNotConnected)
	case phaseClosed:
		return 0, h.closed
	}
	now = h.clock(now)
	if c := m.Capability(); c != 0 && !h.caps.Has(c) {
		return 0, codec.NewError(codec.CodeMissingCapability, fmt.Sprintf("%s needs the %s capability, which the agent did not advertise (it has %s)", m, c, h.caps))
	}
	if p != nil && p.Method() != m {
		return 0, fmt.Errorf("session: request %s: parameters of %s", m, p.Method())
	}
	if deadline < 0 {
		return 0, fmt.Errorf("session: request %s: negative deadline %v", m, deadline)
	}
	if rp, ok := p.(*codec.ResyncParams); ok {
		s = rp.Stream // a resync sent with Request counts for its stream too
	}
	if p == nil {
		// Not nil: the codec encodes nil params as {}, which its own
		// decoder rejects for methods with required keys (snapshot's
		// evict, bounds' nodes, ...). Send the method's empty set.
		p = codec.ParamsFor(m)
	}
	id := h.nextID
	for _, busy := h.pending[id]; busy || id == 0; _, busy = h.pending[id] {
		id++
	}
	h.reqCache = codec.Request{ID: id, Method: m, Params: p}
	if deadline > 0 {
		h.reqCache.DeadlineMS = codec.Some(deadlineMS(deadline))
	}
	err := h.send(&h.reqCache)
	h.reqCache.Params = nil
	if err != nil {
		var big *codec.FrameTooLargeError
		if errors.As(err, &big) {
			return 0, codec.NewError(codec.CodeFrameTooLarge, fmt.Sprintf("request %d (%s) of %d bytes exceeds the frame limit of %d", id, m, big.Size, big.Limit))
		}
		return 0, fmt.Errorf("session: encode request %d (%s): %w", id, m, err)
	}
	h.nextID = id + 1
	pe := hostPending{method: m, auto: auto, stream: s}
	if deadline > 0 {
		pe.hasDeadline, pe.deadline = true, deadline
		pe.expires = now.Add(deadline + DeadlineGrace)
		h.timers.push(timer{at: pe.expires, id: id})
	}
	h.pending[id] = pe
	if m == codec.MethodResync {
		st := h.streams.get(s)
		st.resyncID, st.explicit, st.retry = id, !auto, false
	}
	return id, nil
}

// sendResync sends the automatic resync of stream s.
func (h *Host) sendResync(now time.Time, s codec.Stream, st *streamState) {
	if _, err := h.request(now, codec.MethodResync, &codec.ResyncParams{Stream: s}, 0, true, s); err != nil {
		st.resyncID = 0
		h.events.push(&ResyncFailed{Stream: s, Err: AsProtoError(err)})
	}
}

// finish completes request id, removed from pending already, with a
// result or an error.
func (h *Host) finish(now time.Time, id uint64, p hostPending, r codec.Result, e *codec.Error) {
	if !p.auto {
		h.events.push(&Completed{ID: id, Method: p.method, Result: r, Err: e})
	}
	if p.method != codec.MethodResync {
		return
	}
	st := h.streams.get(p.stream)
	if st.resyncID != id {
		return // superseded by a later resync
	}
	st.resyncID = 0
	if e == nil {
		from := uint64(1)
		if rr, ok := r.(*codec.ResyncResult); ok {
			from = rr.Seq
		}
		st.seq.resynced(from)
		st.failures = 0
		h.events.push(&InSync{Stream: p.stream, From: from})
		return
	}
	if p.auto && e.Retryable && h.phase == phaseOpen {
		st.failures++
		st.retry, st.retryAt = true, now.Add(Backoff(st.failures))
		return
	}
	if h.phase == phaseOpen {
		h.events.push(&ResyncFailed{Stream: p.stream, Err: e})
	}
}

// Backoff is the wait after the n-th failure in a row (n >= 1) of an
// automatic resync, or of a dial to the agent (package netconn's
// Redialer): ResyncBackoff doubled n-1 times, at most ResyncBackoffMax.
func Backoff(n int) time.Duration {
	d := ResyncBackoff
	for i := 1; i < n && d < ResyncBackoffMax; i++ {
		d *= 2
	}
	return min(d, ResyncBackoffMax)
}

// shut closes the session, failing every pending request with
// disconnected.
func (h *Host) shut(reason CloseReason, what string) {
	err := codec.NewError(codec.CodeDisconnected, "session closed: "+what+"; reconnect to the agent and send the request again")
	h.shutWith(reason, err)
}

func (h *Host) shutWith(reason CloseReason, err *codec.Error) {
	disc := err
	if disc.Code != codec.CodeDisconnected {
		disc = codec.NewError(codec.CodeDisconnected, "session closed: "+err.Error()+"; reconnect to the agent and send the request again")
	}
	h.close(disc)
	ids := make([]uint64, 0, len(h.pending))
	for id := range h.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := h.pending[id]
		delete(h.pending, id)
		if !p.auto {
			h.events.push(&Completed{ID: id, Method: p.method, Err: disc})
		}
	}
	h.timers = timers{}
	for _, st := range h.streams.m {
		st.retry = false
	}
	h.events.push(&Closed{Reason: reason, Err: err})
}

// expire fails request t.id, whose deadline and grace passed, with
// deadline_exceeded.
func (h *Host) expire(now time.Time, t timer) {
	p := h.pending[t.id]
	delete(h.pending, t.id)
	err := codec.NewError(codec.CodeDeadlineExceeded, fmt.Sprintf("no answer to request %d (%s) within its deadline of %v and the grace of %v", t.id, p.method, p.deadline, DeadlineGrace))
	h.finish(now, t.id, p, nil, err)
}

// The host's end of the conn (the end interface): bad and frame here, shut above.

// bad handles a frame that cannot be read (see frameSink).
func (h *Host) bad(now time.Time, env codec.Envelope, size uint64, err error) {
	big, tooLarge := err.(*codec.FrameTooLargeError)
	if tooLarge {
		h.stats.OversizedIn++
		h.stats.DiscardedBytes += size
	} else if h.phase == phaseHandshake {
		h.reject(codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the first message does not decode as a hello: %v", err)))
		return
	}
	if env.Kind.Ok && env.Kind.Val == codec.KindResponse && env.ID.Ok {
		if p, ok := h.pending[env.ID.Val]; ok {
			delete(h.pending, env.ID.Val)
			e := codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the response to request %d (%s) does not decode: %v", env.ID.Val, p.method, err))
			if tooLarge {
				e = codec.NewError(codec.CodeFrameTooLarge, fmt.Sprintf("response to request %d (%s) of %d bytes exceeds the frame limit of %d", env.ID.Val, p.method, size, big.Limit))
			}
			h.finish(now, env.ID.Val, p, nil, e)
			return
		}
	}
	h.events.push(&ProtocolError{Err: skipped("host", env, size, err)})
}

// frame handles a decoded message the conn did not take (see frameSink).
func (h *Host) frame(now time.Time, m codec.Message) {
	if h.phase == phaseHandshake {
		hello, ok := m.(*codec.Hello)
		if !ok {
			h.reject(codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the first message is a %s, not a hello", m.Kind())))
			return
		}
		h.hello(hello)
		return
	}
	switch m := m.(type) {
	case *codec.Response:
		h.response(now, m)
	case *codec.Event:
		h.event(now, m)
	default:
		h.events.push(&ProtocolError{Err: fmt.Errorf("session: host skipped a %s from the agent after the handshake", m.Kind())})
	}
}

// hello answers the agent's hello with a welcome.
func (h *Host) hello(m *codec.Hello) {
	var v uint32
	for _, x := range m.Versions {
		if x > v && slices.Contains(h.cfg.Versions, x) {
			v = x
		}
	}
	if v == 0 {
		h.reject(codec.NewError(codec.CodeNoCommonVersion, fmt.Sprintf("the agent speaks versions %v and the host %v; redeploy the agent built with this host", m.Versions, h.cfg.Versions)))
		return
	}
	if h.cfg.Token.Ok {
		if !m.Token.Ok {
			h.reject(codec.NewError(codec.CodeBadToken, "the hello carries no token and this host requires its per-launch token"))
			return
		}
		if subtle.ConstantTimeCompare([]byte(m.Token.Val), []byte(h.cfg.Token.Val)) != 1 {
			h.reject(codec.NewError(codec.CodeBadToken, "the hello's token is not this host's per-launch token"))
			return
		}
	}
	if m.MaxFrame < schema.MinMaxFrame {
		h.reject(codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the hello's max_frame %d is below the minimum of %d", m.MaxFrame, schema.MinMaxFrame)))
		return
	}
	limit := min(m.MaxFrame, h.cfg.MaxFrame)
	if err := h.send(&codec.Welcome{Version: codec.Some(v), MaxFrame: codec.Some(limit), Session: codec.Some(h.cfg.Session)}); err != nil {
		h.shutWith(CloseProtocol, codec.NewError(codec.CodeInternal, "encode welcome: "+err.Error()))
		return
	}
	h.setLimit(limit)
	h.version, h.caps, h.phase = v, m.Capabilities, phaseOpen
	h.events.push(&Connected{Version: v, MaxFrame: limit, Session: h.cfg.Session, Capabilities: m.Capabilities, Agent: m.Agent, Device: m.Device})
}

// reject answers the hello with a welcome carrying err and closes.
func (h *Host) reject(err *codec.Error) {
	_ = h.send(&codec.Welcome{Error: err})
	h.shutWith(CloseRejected, err)
}

func (h *Host) response(now time.Time, m *codec.Response) {
	p, ok := h.pending[m.ID]
	if !ok {
		h.stats.LateResponses++
		return
	}
	delete(h.pending, m.ID)
	if m.Method != p.method {
		h.finish(now, m.ID, p, nil, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the response to request %d (%s) names method %s", m.ID, p.method, m.Method)))
		return
	}
	if m.Error != nil {
		h.finish(now, m.ID, p, nil, m.Error)
		return
	}
	h.finish(now, m.ID, p, m.Result, nil)
}

func (h *Host) event(now time.Time, e *codec.Event) {
	st := h.streams.get(e.Stream)
	v := st.seq.observe(e.Seq)
	switch {
	case v.deliver:
		if v.gap > 0 {
			h.events.push(&Dropped{Stream: e.Stream, Seq: v.gapFrom, Count: v.gap})
		}
		h.events.push(&StreamEvent{Event: e})
	case v.lostSync:
		h.events.push(&OutOfSync{Stream: e.Stream, Want: v.want, Got: e.Seq})
		h.events.push(&Dropped{Stream: e.Stream, Seq: e.Seq, Count: 1})
		if st.resyncID == 0 && !st.retry {
			if !h.caps.Has(codec.CapEvents) {
				h.events.push(&ResyncFailed{Stream: e.Stream, Err: codec.NewError(codec.CodeMissingCapability,
					fmt.Sprintf("resync needs the events capability, which the agent did not advertise; stream %s stays out of sync", e.Stream))})
				return
			}
			st.failures = 0
			h.sendResync(now, e.Stream, st)
		}
	default:
		h.events.push(&Dropped{Stream: e.Stream, Seq: e.Seq, Count: 1})
	}
}

// AsProtoError returns err as a *codec.Error: the one err is or wraps,
// or else an internal error with err's message. It is how a request's
// error (Host.Request, Host.Resync) is reported where an event carries a
// *codec.Error.
func AsProtoError(err error) *codec.Error {
	var e *codec.Error
	if errors.As(err, &e) {
		return e
	}
	return codec.NewError(codec.CodeInternal, err.Error())
}
