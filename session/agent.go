package session

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// AgentConfig configures an Agent: what its hello says.
type AgentConfig struct {
	// Versions the agent speaks; nil means Versions().
	Versions []uint32
	// MaxFrame is the agent's frame limit; 0 means schema.DefaultMaxFrame.
	MaxFrame uint32
	// Capabilities the agent advertises. It refuses requests for methods
	// that need others.
	Capabilities codec.Capabilities
	// Token is the per-launch token, when the host needs one.
	Token codec.Opt[string]
	// Name is the agent's name and build (the hello's agent field).
	Name string
	// Device describes the device, when known.
	Device codec.Opt[codec.Device]
	// MaxBacklog is how many bytes may wait for PollTransmit before the
	// agent refuses events (SendEvent): 0 means DefaultMaxBacklog.
	// Responses and control frames are queued whatever the backlog.
	MaxBacklog int
}

// Agent is the device's end of a connection: it says hello, delivers the
// host's requests and sends their answers, enforces deadlines and frame
// limits on the caller's behalf, numbers the caller's events per stream,
// and keeps the connection alive. It does no I/O and never reads the
// clock (see the package documentation). An Agent is not safe for
// concurrent use.
type Agent struct {
	conn
	cfg AgentConfig

	version uint32
	session uint64
	pending map[uint64]agentPending
	gen     uint64 // arming counter for deadline timers
	timers  timers
	seqs    map[codec.Stream]uint64 // the last number used per stream
	events  queue[AgentEvent]
	stats   AgentStats
	resp    codec.Response
}

// agentPending is a request delivered to the caller and not answered yet.
type agentPending struct {
	method      codec.Method
	gen         uint64
	deadline    time.Time
	hasDeadline bool
	ms          uint32
}

// AgentStats counts what the agent skipped or answered itself.
type AgentStats struct {
	UnknownKinds   uint64 // messages of a kind this version does not know, skipped
	Refused        uint64 // requests answered by the session (unknown method, missing capability, oversized, undecodable)
	Expired        uint64 // requests answered deadline_exceeded
	LateAnswers    uint64 // answers dropped because their request had expired
	Backpressured  uint64 // events refused because the backlog was at its limit, their numbers skipped
	OversizedIn    uint64 // incoming frames over the limit
	DiscardedBytes uint64 // payload bytes of oversized frames, discarded as they arrive
}

// NewAgent returns an agent whose hello is already queued for
// PollTransmit; now starts its silence timer.
func NewAgent(cfg AgentConfig, now time.Time) *Agent {
	cfg.Versions, cfg.MaxFrame = withDefaults(cfg.Versions, cfg.MaxFrame)
	if cfg.MaxBacklog <= 0 {
		cfg.MaxBacklog = DefaultMaxBacklog
	}
	a := &Agent{cfg: cfg, pending: make(map[uint64]agentPending), seqs: make(map[codec.Stream]uint64)}
	a.init(cfg.MaxFrame, now, a)
	err := a.send(&codec.Hello{Versions: cfg.Versions, MaxFrame: cfg.MaxFrame, Capabilities: cfg.Capabilities, Token: cfg.Token, Agent: cfg.Name, Device: cfg.Device})
	if err != nil {
		a.close(codec.NewError(codec.CodeInternal, "encode hello: "+err.Error()))
		a.events.push(&Closed{Reason: CloseLocal, Err: a.closed})
	}
	return a
}

// Connected reports whether the welcome arrived and the session is still
// open.
func (a *Agent) Connected() bool { return a.phase == phaseOpen }

// Version is the version the host selected (0 before the welcome).
func (a *Agent) Version() uint32 { return a.version }

// Session is the host's session id (0 before the welcome).
func (a *Agent) Session() uint64 { return a.session }

// MaxFrame is the frame limit in force for sending.
func (a *Agent) MaxFrame() uint32 { return a.limit }

// Capabilities is what the agent advertises.
func (a *Agent) Capabilities() codec.Capabilities { return a.cfg.Capabilities }

// Pending is the number of delivered requests not answered yet.
func (a *Agent) Pending() int { return len(a.pending) }

// Stats reports what the agent skipped or answered itself so far.
func (a *Agent) Stats() AgentStats {
	s := a.stats
	s.UnknownKinds = a.unknownKinds
	return s
}

// NextSeq is the number the next event of stream s will carry; it is what
// a resync of s answers, since the stream is in sync from it on.
func (a *Agent) NextSeq(s codec.Stream) uint64 { return a.seqs[s] + 1 }

// PollTransmit returns every byte queued for the host, control frames
// (ping, pong) first, or nil; they count as handed to the transport at
// the latest time passed in. The slice is valid until the next
// PollTransmit or PollTransmitAt.
func (a *Agent) PollTransmit() []byte { return a.pollTransmit(a.now, 0) }

// PollTransmitAt returns the next bytes to write to the host, handed to
// the transport at now, or nil: the queued control frames (ping, pong) if
// there are any, otherwise whole frames of at most max bytes in all (at
// least one frame, however long; max <= 0 for all of them). The slice is
// valid until the next PollTransmit or PollTransmitAt.
func (a *Agent) PollTransmitAt(now time.Time, max int) []byte { return a.pollTransmit(now, max) }

// Backlog is the number of bytes queued for the host and not handed out
// by PollTransmit yet.
func (a *Agent) Backlog() int { return a.tx.backlog() }

// Writable reports whether the backlog is under the limit
// (AgentConfig.MaxBacklog), so that SendEvent would queue an event: a
// producer checks it before it does the work of making one.
func (a *Agent) Writable() bool { return a.tx.backlog() < a.cfg.MaxBacklog }

// PollEvent returns the next event, if any.
func (a *Agent) PollEvent() (AgentEvent, bool) { return a.events.pop() }

// PollTimeout returns when HandleTimeout should next be called, if ever.
func (a *Agent) PollTimeout() (time.Time, bool) { return a.nextTimeout(&a.timers, a.liveTimer) }

func (a *Agent) liveTimer(t timer) bool {
	p, ok := a.pending[t.id]
	return ok && p.hasDeadline && p.gen == t.gen
}

// HandleTimeout fires every timer due at now: pings, the silence close,
// and the deadlines of requests the caller has not answered, which the
// agent answers with deadline_exceeded.
func (a *Agent) HandleTimeout(now time.Time) {
	a.fireTimers(now, "host", &a.timers, a.liveTimer, func(_ time.Time, t timer) { a.expire(t.id, a.pending[t.id]) })
}

// expire answers request id deadline_exceeded and forgets it.
func (a *Agent) expire(id uint64, p agentPending) {
	delete(a.pending, id)
	a.stats.Expired++
	a.answer(id, p.method, nil, codec.NewError(codec.CodeDeadlineExceeded, fmt.Sprintf("request %d (%s) passed its deadline of %d ms", id, p.method, p.ms)))
	a.events.push(&Expired{ID: id, Method: p.method})
}

// Receive feeds bytes read from the host.
func (a *Agent) Receive(now time.Time, b []byte) { a.receive(now, b) }

// EndOfStream reports that the host closed its end: the session closes
// at once.
func (a *Agent) EndOfStream(now time.Time) { a.endOfStream(now, "host") }

// Close closes the session from the agent's side.
func (a *Agent) Close(now time.Time) { a.closeLocal(now, "the agent closed the session") }

func (a *Agent) shut(reason CloseReason, what string) {
	a.shutWith(reason, codec.NewError(codec.CodeDisconnected, "session closed: "+what+"; the host reconnects to retry"))
}

func (a *Agent) shutWith(reason CloseReason, err *codec.Error) {
	a.close(err)
	clear(a.pending)
	a.timers = timers{}
	a.events.push(&Closed{Reason: reason, Err: err})
}

// Respond answers request id with result r. Past the request's deadline
// (now or earlier) the answer is dropped, the host having been told
// deadline_exceeded, and Respond returns ErrNotPending. A response over
// the frame limit is replaced by a frame_too_large error naming the
// limit and the request, and Respond returns a *codec.Error saying so;
// a result that does not encode, or a nil one for a method that has a
// result, is replaced by an internal error the same way (nil is fine for
// the methods whose result is empty). Either way the request is answered exactly once.
func (a *Agent) Respond(now time.Time, id uint64, r codec.Result) error {
	p, err := a.take(now, id)
	if err != nil {
		return err
	}
	if r == nil {
		// The codec writes a nil result as {}, which only the methods
		// without a result decode.
		if _, empty := codec.ResultFor(p.method).(*codec.Empty); !empty {
			e := codec.NewError(codec.CodeInternal, fmt.Sprintf("the agent answered request %d (%s) with no result", id, p.method))
			if err := a.answer(id, p.method, nil, e); err != nil {
				return err
			}
			return e
		}
		r = &codec.Empty{}
	}
	return a.answer(id, p.method, r, nil)
}

// Fail answers request id with error e, under the rules of Respond.
func (a *Agent) Fail(now time.Time, id uint64, e *codec.Error) error {
	if e == nil {
		return fmt.Errorf("session: fail request %d: nil error", id)
	}
	p, err := a.take(now, id)
	if err != nil {
		return err
	}
	return a.answer(id, p.method, nil, e)
}

// take removes request id from pending for an answer at now.
func (a *Agent) take(now time.Time, id uint64) (agentPending, error) {
	if a.phase == phaseClosed {
		return agentPending{}, fmt.Errorf("session: answer request %d: %w", id, a.closed)
	}
	now = a.clock(now)
	p, ok := a.pending[id]
	if !ok {
		return p, fmt.Errorf("session: answer request %d: %w", id, ErrNotPending)
	}
	if p.hasDeadline && !now.Before(p.deadline) {
		a.expire(id, p)
		a.stats.LateAnswers++
		return p, fmt.Errorf("session: answer request %d (%s) after its deadline, dropped: %w", id, p.method, ErrNotPending)
	}
	delete(a.pending, id)
	return p, nil
}

// answer sends the response to request id, replacing one the limit or
// the encoder refuses by an error response.
func (a *Agent) answer(id uint64, m codec.Method, r codec.Result, e *codec.Error) error {
	a.resp = codec.Response{ID: id, Method: m, Result: r, Error: e}
	err := a.send(&a.resp)
	a.resp = codec.Response{}
	if err == nil {
		return nil
	}
	var big *codec.FrameTooLargeError
	var sub *codec.Error
	if errors.As(err, &big) {
		sub = codec.NewError(codec.CodeFrameTooLarge, fmt.Sprintf("the response to request %d (%s) of %d bytes exceeds the frame limit of %d", id, m, big.Size, big.Limit))
	} else {
		sub = codec.NewError(codec.CodeInternal, fmt.Sprintf("the response to request %d (%s) does not encode: %v", id, m, err))
	}
	if err := a.send(&codec.Response{ID: id, Method: m, Error: sub}); err != nil {
		return fmt.Errorf("session: answer request %d: %w", id, err)
	}
	return sub
}

// SendEvent sends an event of stream s, of type t with body b (nil for
// none), numbering it one past the stream's last number, and returns
// that number. An event over the frame limit is not sent, its number
// skipped so the host sees the gap, and SendEvent returns the
// *codec.FrameTooLargeError. So is an event sent while the backlog is at
// its limit (see Writable): SendEvent then returns an error matched by
// ErrBackpressure, and the host sees a dropped frame (lossy streams) or
// resyncs the stream (lossless ones).
func (a *Agent) SendEvent(s codec.Stream, t codec.EventType, b codec.EventBody) (uint64, error) {
	if a.phase != phaseOpen {
		if a.phase == phaseClosed {
			return 0, fmt.Errorf("session: send %s event: %w", s, a.closed)
		}
		return 0, fmt.Errorf("session: send %s event: %w", s, ErrNotConnected)
	}
	seq := a.SkipEvent(s) // the event's number, used whether it goes out or not
	if n := a.tx.backlog(); n >= a.cfg.MaxBacklog {
		a.stats.Backpressured++
		return seq, fmt.Errorf("session: %s event %d not sent, its number skipped: %d bytes wait for the transport, at the limit of %d: %w", s, seq, n, a.cfg.MaxBacklog, ErrBackpressure)
	}
	if err := a.send(&codec.Event{Stream: s, Seq: seq, Type: t, Body: b}); err != nil {
		return seq, fmt.Errorf("session: %s event %d not sent, its number skipped: %w", s, seq, err)
	}
	return seq, nil
}

// SkipEvent skips the next number of stream s, as for an event dropped
// from a full queue, so the host sees the gap; it returns the number.
func (a *Agent) SkipEvent(s codec.Stream) uint64 {
	seq := a.seqs[s] + 1
	a.seqs[s] = seq
	return seq
}

// refuse answers a request the session handles itself.
func (a *Agent) refuse(id uint64, m codec.Method, e *codec.Error) {
	a.stats.Refused++
	_ = a.answer(id, m, nil, e)
}

// The agent's end of the conn (the end interface): bad and frame here, shut above.

// bad handles a frame that cannot be read (see frameSink).
func (a *Agent) bad(now time.Time, env codec.Envelope, size uint64, err error) {
	big, tooLarge := err.(*codec.FrameTooLargeError)
	request := env.Kind.Ok && env.Kind.Val == codec.KindRequest && env.ID.Ok
	switch {
	case tooLarge:
		a.stats.OversizedIn++
		a.stats.DiscardedBytes += size
		if a.phase == phaseOpen && request {
			m := env.Method.Or(0)
			a.refuse(env.ID.Val, m, codec.NewError(codec.CodeFrameTooLarge, fmt.Sprintf("request %d (%s) of %d bytes exceeds the frame limit of %d", env.ID.Val, m, size, big.Limit)))
			return
		}
	case a.phase == phaseHandshake:
		a.shutWith(CloseProtocol, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the host's first message does not decode as a welcome: %v", err)))
		return
	case request:
		if _, busy := a.pending[env.ID.Val]; !busy {
			a.refuse(env.ID.Val, env.Method.Or(0), codec.NewError(codec.CodeBadRequest, fmt.Sprintf("request %d does not decode: %v", env.ID.Val, err)))
			return
		}
	}
	a.events.push(&ProtocolError{Err: skipped("agent", env, size, err)})
}

// frame handles a decoded message the conn did not take (see frameSink).
func (a *Agent) frame(now time.Time, m codec.Message) {
	handshake := a.phase == phaseHandshake
	switch m := m.(type) {
	case *codec.Welcome:
		if handshake {
			a.welcome(m)
			return
		}
	case *codec.Request:
		if !handshake {
			a.request(now, m)
			return
		}
	}
	when := "after"
	if handshake {
		when = "before"
	}
	a.events.push(&ProtocolError{Err: fmt.Errorf("session: agent skipped a %s from the host %s the welcome", m.Kind(), when)})
}

func (a *Agent) welcome(w *codec.Welcome) {
	if w.Error != nil {
		a.shutWith(CloseRejected, w.Error)
		return
	}
	v, ok := w.Version.Get()
	if !ok || !slices.Contains(a.cfg.Versions, v) {
		a.shutWith(CloseProtocol, codec.NewError(codec.CodeNoCommonVersion, fmt.Sprintf("the welcome selects version %v, and the agent speaks %v", w.Version.Or(0), a.cfg.Versions)))
		return
	}
	limit, ok := w.MaxFrame.Get()
	if !ok || limit < schema.MinMaxFrame || limit > a.cfg.MaxFrame {
		a.shutWith(CloseProtocol, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("the welcome's max_frame %d is outside [%d, %d]", w.MaxFrame.Or(0), schema.MinMaxFrame, a.cfg.MaxFrame)))
		return
	}
	a.setLimit(limit)
	a.version, a.session, a.phase = v, w.Session.Or(0), phaseOpen
	a.events.push(&Welcomed{Version: v, MaxFrame: limit, Session: a.session})
}

func (a *Agent) request(now time.Time, r *codec.Request) {
	if _, busy := a.pending[r.ID]; busy {
		a.events.push(&ProtocolError{Err: fmt.Errorf("session: agent skipped request %d (%s): a request with that id is in flight", r.ID, r.Method)})
		return
	}
	if !r.Method.Known() {
		a.refuse(r.ID, r.Method, codec.NewError(codec.CodeUnknownMethod, fmt.Sprintf("request %d: method %s is not known to this agent", r.ID, r.Method)))
		return
	}
	if c := r.Method.Capability(); c != 0 && !a.cfg.Capabilities.Has(c) {
		a.refuse(r.ID, r.Method, codec.NewError(codec.CodeMissingCapability, fmt.Sprintf("request %d: %s needs the %s capability, which this agent did not advertise", r.ID, r.Method, c)))
		return
	}
	a.gen++
	p := agentPending{method: r.Method, gen: a.gen}
	in := &Incoming{ID: r.ID, Method: r.Method, Params: r.Params}
	if ms, ok := r.DeadlineMS.Get(); ok {
		p.hasDeadline, p.ms = true, ms
		p.deadline = now.Add(time.Duration(ms) * time.Millisecond)
		in.Deadline = p.deadline
		if ms == 0 {
			// Already passed: answer at once; the caller never sees it.
			a.stats.Expired++
			a.answer(r.ID, r.Method, nil, codec.NewError(codec.CodeDeadlineExceeded, fmt.Sprintf("request %d (%s) passed its deadline of 0 ms", r.ID, r.Method)))
			return
		}
		a.timers.push(timer{at: p.deadline, id: r.ID, gen: p.gen})
	}
	a.pending[r.ID] = p
	a.events.push(in)
}
