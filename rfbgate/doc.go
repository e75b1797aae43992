// Package rfbgate relays RFB (VNC) between browsers running noVNC and a
// TigerVNC Xvnc server, and gates the client-to-server stream so that only
// the viewer whose surface holds the computer's keyboard may send input.
//
//	browser (noVNC) --WebSocket--> Relay: Gate per viewer --+
//	browser (noVNC) --WebSocket--> Relay: Gate per viewer --+--> hub --TCP--> Xvnc
//	browsers <-- a queue per viewer <-- shared update log <-- hub <--------- Xvnc
//
// All the viewers of a computer share one connection to its Xvnc, its hub,
// and that is the default path for every viewer: the hub decodes Xvnc's
// stream into a framebuffer (internal/framebuffer) and turns each update
// into one that any viewer can decode from any update boundary,
// re-encoding once what Xvnc sent on its zlib streams. A viewer that
// joins gets the whole framebuffer; one that falls behind skips updates
// and gets what it missed from the framebuffer (hub.go, hubupdate.go,
// shareviewer.go with its status in sharestatus.go and its pulls in
// sharepull.go). Until a second viewer comes, the hub's one viewer is
// solo: it gets Xvnc's own bytes, framed but not decoded, at its own
// pace, and a second viewer makes the hub open the connection all then
// share (hubsolo.go). [Config].PerViewerUpstream gives every viewer its
// own connection instead, relayed byte for byte through a server filter
// that frames without decoding (serverstream.go).
//
// # Layout
//
// The protocol is internal/rfb's, once: its numbers, the handshake on
// both sides and VNC authentication, the client-to-server parser and the
// one framer of Xvnc's stream, which the server filter, the hub's
// decoder and the solo viewer's framing all use. internal/framebuffer
// decodes pixels (and encodes the hub's shared rectangles). This package
// keeps what is glass's own: which client message passes, which is input
// and which closes the viewer (classes.go, gate.go), who holds the
// keyboard (lease.go, keyboard.go), what each viewer is sent and when
// (the hub, the server filter, the pacer), the control API and the
// password file (secret.go).
//
// # Which part
//
//   - A daemon builds a [Relay] from a [Config] (its computers, their Xvnc
//     addresses and passwords, limits and timeouts) and serves
//     [NewHandler]: the control API (watch tickets, keyboard take-over,
//     give-back and renewal, status, events), each viewer's WebSocket and
//     the /glass/ viewer page. cmd/glass is that daemon.
//   - A ticket carries a [Grant]: the viewer's surface, its [Access]
//     (watch-only, or control: may take the keyboard) and a display name.
//     A page that opens its stream with the subprotocol "glass" gets
//     glass's events and sends its commands as text messages on that one
//     stream, and reconnects with a resume credential instead of a new
//     ticket (pageevents.go, pagecommands.go, resume.go).
//   - A [Gate] is the input gate alone, for one viewer's client stream:
//     [Gate.Feed] appends what may reach the server.
//   - [ClientHandshake] speaks RFB 3.8 to a server as a client
//     (internal/rfb's, with the password a [Secret]).
//
// # Lifetime
//
// A Relay owns its viewers' connections until [Relay.Close]. Feed appends
// to the caller's slice and keeps nothing of its input.
//
// # Errors
//
// Bad client input ends that viewer's stream with a *[ProtocolError] (the
// message type and its offset in the stream), matched with errors.Is
// against [ErrUnknownMessage], [ErrForbiddenMessage], [ErrLimit] and
// [ErrMalformed]; the viewer gets a WebSocket close frame saying why.
// Handshake failures are a *[HandshakeError]. (These types and kinds are
// internal/rfb's; rfbgate gives them their names here.)
//
// # Guarantees
//
// A watcher's input never reaches the server (TestGateWatcherNeverForwardsInput,
// TestGateProperty), and a watch-only viewer never holds the keyboard,
// whatever it sends (TestWatchOnlyCannotType); a text message never
// reaches the gate (TestTextMessagesNeverReachTheGate). Nothing is buffered for what a length claims: cut
// text and fences stream through or are dropped (TestCutTextLengthNeverAllocated,
// TestServerFilterLengthsNeverAllocated), and the gate and the server
// filter allocate nothing per message (TestGateFeedDoesNotAllocate,
// TestServerFilterDoesNotAllocate). A viewer that loses the keyboard lets
// go of the keys it holds (TestReleaseOnKeyboardLoss). The gate and the
// server filter are fuzzed (FuzzParser, FuzzServerFilter; internal/rfb
// fuzzes its parser, framer and handshake), and the
// relay runs against real Xvnc and noVNC in Chromium (TestXvncEndToEnd,
// TestBrowserNoVNC).
//
// The gate's rules in full: docs/rfbgate.md.
package rfbgate
