// Package session holds the two ends of a device-protocol connection as
// state machines that do no I/O and never read the clock: [Host], the
// daemon's end, and [Agent], the device's end (the pattern of quinn-proto
// and h11). They keep the session rules of docs/protocol.md section 8:
// handshake, requests and deadlines, event streams and resync, liveness,
// backpressure.
//
// # Driving a session
//
// The caller owns the socket and the clock: it passes the bytes it reads
// to Receive, writes what PollTransmit returns, calls HandleTimeout at the
// time PollTimeout gives, and reads PollEvent until it reports nothing.
// Every method that depends on time takes now as an argument, so a test
// moves the clock by hand. Package session/netconn is that loop over a
// net.Conn; use it unless you drive the bytes yourself.
//
// # Lifetime
//
// The slice PollTransmit or PollTransmitAt returns is valid until the next
// of them, whatever is queued meanwhile (TestTakenBytesStayValid). The
// messages that events carry are decoded with codec.Decode and own their
// memory. A session holds no goroutine, socket or timer to stop.
//
// # Errors
//
// What the peer does arrives as events: [Completed] carries a request's
// result or its *codec.Error ([AsProtoError] finds one in an error chain);
// [ProtocolError] reports a message skipped as unreadable; [Closed], sent
// once, says why the session ended ([CloseReason]). A Host fails every
// pending and later request with a retryable disconnected error. An Agent
// at its backlog limit refuses events with [ErrBackpressure].
//
// # Guarantees
//
// No I/O and no clock (TestNoIOAndNoClock). Ping and pong go ahead of
// every queued frame (TestControlFramesGoAheadOfBulk). An agent's queue
// stays bounded (TestBackpressureRefusesEventsAtTheLimit). A peer that
// keeps sending is never silent, however slow its link
// (TestSlowUplinkStaysUp); bytes of an oversized frame are no sign of life
// (TestDiscardedBytesAreNoSignOfLife). Both ends are fuzzed
// (FuzzHostReceive, FuzzAgentReceive) and run against each other
// (TestSimulation).
//
// The rules in detail: docs/session.md.
package session

import "time"

// Session constants of docs/protocol.md section 8.
const (
	// PingAfter is the silence after which a session pings its peer.
	PingAfter = time.Second
	// SilentAfter is the silence after which a session closes as Silent.
	SilentAfter = 3 * time.Second
	// DeadlineGrace is how long after a request's deadline the host waits
	// for the agent's answer before failing the request itself.
	DeadlineGrace = time.Second
	// ResyncBackoff is the wait before the host retries an automatic
	// resync that failed with a retryable error; it doubles with every
	// failure in a row up to ResyncBackoffMax.
	ResyncBackoff = 100 * time.Millisecond
	// ResyncBackoffMax caps the resync backoff.
	ResyncBackoffMax = 5 * time.Second
)

// Versions returns the protocol versions this package speaks, [1]; each
// call returns a new slice.
func Versions() []uint32 { return []uint32{1} }
