package session

import (
	"strconv"
	"time"

	"github.com/wirebench/wirebench/codec"
)

// HostEvent is what Host.PollEvent reports: *Connected, *Completed,
// *StreamEvent, *Dropped, *OutOfSync, *InSync, *ResyncFailed,
// *ProtocolError or *Closed.
type HostEvent interface{ hostEvent() }

// AgentEvent is what Agent.PollEvent reports: *Welcomed, *Incoming,
// *Expired, *ProtocolError or *Closed.
type AgentEvent interface{ agentEvent() }

// Connected reports a completed handshake on the host: a version is
// selected, and from now on the agent's capabilities count.
type Connected struct {
	Version      uint32             // the selected version
	MaxFrame     uint32             // the negotiated frame limit, both ways
	Session      uint64             // the session id the welcome carried
	Capabilities codec.Capabilities // what the agent advertised in its hello
	Agent        string             // the agent's name and build
	Device       codec.Opt[codec.Device]
}

// Completed reports the end of a request the caller made with
// Host.Request or Host.Resync: exactly one of Result and Err is set
// (Result may be nil for a method this version does not know). Every
// request accepted by Host.Request completes exactly once.
type Completed struct {
	ID     uint64
	Method codec.Method
	Result codec.Result
	Err    *codec.Error
}

// StreamEvent delivers an event of a stream that is in sync (lossless
// streams) or newer than the last one (lossy streams).
type StreamEvent struct {
	Event *codec.Event
}

// Dropped reports Count sequence numbers of Stream, from Seq on, that the
// host will not deliver: events that arrived while the stream was out of
// sync, numbers a lossy stream skipped (dropped frames), or an event of a
// lossy stream that did not increase its number.
type Dropped struct {
	Stream codec.Stream
	Seq    uint64
	Count  uint64
}

// OutOfSync reports a lossless stream whose event carried Got where Want
// was due. The host drops the stream's events until a resync succeeds,
// and starts one itself when the agent advertised the events capability.
type OutOfSync struct {
	Stream    codec.Stream
	Want, Got uint64
}

// InSync reports a stream in sync again after a resync: its events are
// delivered from sequence number From on. Anything derived from the
// stream's earlier events (a snapshot, say) should be read again.
type InSync struct {
	Stream codec.Stream
	From   uint64
}

// ResyncFailed reports a resync that failed for good: a failure no retry
// fixes, or any failure of a resync asked for with Host.Resync. The
// stream stays out of sync, its events dropped, until Host.Resync
// succeeds.
type ResyncFailed struct {
	Stream codec.Stream
	Err    *codec.Error
}

// Welcomed reports a completed handshake on the agent.
type Welcomed struct {
	Version  uint32 // the version the host selected
	MaxFrame uint32 // the negotiated frame limit, both ways
	Session  uint64 // the host's session id
}

// Incoming is a request for the agent's caller to run and answer with
// Agent.Respond or Agent.Fail. Requests the session answers itself
// (unknown methods, missing capabilities, oversized or undecodable
// requests) are never delivered.
type Incoming struct {
	ID     uint64
	Method codec.Method
	Params codec.Params
	// Deadline is when the agent answers deadline_exceeded on the
	// caller's behalf; the zero time when the request has none.
	Deadline time.Time
}

// Expired reports a request whose deadline passed before the caller
// answered it: the agent has answered deadline_exceeded and will drop the
// caller's late answer. The caller may stop working on it.
type Expired struct {
	ID     uint64
	Method codec.Method
}

// ProtocolError reports a message the session skipped because the peer
// broke the protocol (one that does not decode, or a kind that has no
// place at this point), without closing the connection.
type ProtocolError struct {
	Err error
}

// Closed reports that the session closed, once. Err says why, as the
// disconnected error pending and later requests fail with; on a failed
// handshake it is the handshake's error (no_common_version, bad_token,
// bad_request).
type Closed struct {
	Reason CloseReason
	Err    *codec.Error
}

// CloseReason says why a session closed.
type CloseReason uint8

// Why a session closed.
const (
	CloseSilent      CloseReason = iota + 1 // nothing heard for SilentAfter
	CloseEndOfStream                        // the caller reported the end of the stream
	CloseRejected                           // the handshake failed
	CloseProtocol                           // the peer broke the protocol beyond recovery
	CloseLocal                              // the caller called Close
)

var closeNames = [...]string{CloseSilent: "silent", CloseEndOfStream: "end_of_stream", CloseRejected: "rejected", CloseProtocol: "protocol", CloseLocal: "local"}

// String is the reason's name: silent, end_of_stream, rejected, protocol
// or local.
func (r CloseReason) String() string {
	if int(r) < len(closeNames) && closeNames[r] != "" {
		return closeNames[r]
	}
	return "close_reason(" + strconv.Itoa(int(r)) + ")"
}

func (*Connected) hostEvent()     {}
func (*Completed) hostEvent()     {}
func (*StreamEvent) hostEvent()   {}
func (*Dropped) hostEvent()       {}
func (*OutOfSync) hostEvent()     {}
func (*InSync) hostEvent()        {}
func (*ResyncFailed) hostEvent()  {}
func (*ProtocolError) hostEvent() {}
func (*Closed) hostEvent()        {}

func (*Welcomed) agentEvent()      {}
func (*Incoming) agentEvent()      {}
func (*Expired) agentEvent()       {}
func (*ProtocolError) agentEvent() {}
func (*Closed) agentEvent()        {}

// queue is a FIFO of events.
type queue[E any] struct {
	items []E
	head  int
}

func (q *queue[E]) push(e E) { q.items = append(q.items, e) }

func (q *queue[E]) pop() (E, bool) {
	var zero E
	if q.head == len(q.items) {
		return zero, false
	}
	e := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return e, true
}
