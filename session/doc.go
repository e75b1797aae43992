// Package session holds the two ends of a device-protocol connection as
// state machines that do no I/O and never read the clock: Host, the
// daemon's end, and Agent, the device's end. They follow the pattern of
// quinn-proto and h11.
//
// # Driving a session
//
// The caller owns the socket and the clock. It feeds every byte it reads
// to Receive, writes whatever PollTransmit returns, calls HandleTimeout
// once the time PollTimeout names has come, and reads PollEvent until it
// reports nothing. When the peer closes the stream it calls EndOfStream.
//
//	for {
//		out := s.PollTransmit()   // write out to the socket
//		at, ok := s.PollTimeout() // wake at at, if ok
//		// ... wait for bytes or the timeout ...
//		s.Receive(now, b)         // or s.HandleTimeout(now)
//		for ev, ok := s.PollEvent(); ok; ev, ok = s.PollEvent() { ... }
//	}
//
// # Time
//
// Every method whose outcome depends on time takes now, a time.Time the
// caller reads from its own clock (time.Now() in a program, a value moved
// by hand in a test). Only differences between the values passed in
// matter; the sessions never call time.Now, so a test drives the clock
// itself. The values passed to one session should not go backwards; one
// earlier than the latest already passed in is taken as that latest one,
// so it neither fires nor re-arms a timer.
//
// # Sending
//
// A session queues what it sends in two queues: control frames (ping and
// pong), which go out first at the next frame boundary, and the rest in
// order. PollTransmitAt(now, max) hands out the control frames, or whole
// frames of at most max bytes; a driver writing one take at a time keeps
// a ping from waiting behind more than one. The answer to a ping is timed
// from when it was handed out. An Agent refuses events once
// AgentConfig.MaxBacklog bytes wait (Writable, ErrBackpressure): their
// numbers are skipped, so the host counts a dropped frame or resyncs a
// lossless stream, and the queue stays bounded.
//
// # Closing
//
// A session closes on a failed handshake, on silence (SilentAfter without
// hearing from the peer), at the end of the stream, on Close, and when the
// peer breaks the protocol beyond recovery. It then reports a *Closed
// event once; a Host fails every pending request, and refuses every later
// one, with a disconnected error that carries a reconnect hint. Bytes
// queued before the close (a welcome carrying a handshake error, say)
// are still returned by PollTransmit, so the caller flushes them before
// closing the socket.
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
