// Package rfb is the RFB (VNC) protocol as glass speaks it, once, for the
// relay (rfbgate) and the framebuffer decoder (internal/framebuffer) alike.
// It knows the wire, not glass: who may type, which viewer gets what and
// what a pixel looks like are its callers' business.
//
// # Which part
//
//   - numbers.go: the protocol's numbers. Message types both ways
//     (MsgKeyEvent, MsgFramebufferUpdate, ...), security types,
//     encodings and pseudo-encodings as an Encoding (EncodingTight,
//     EncodingLastRect, EncodingQEMUExtendedKey, ...), the extended
//     clipboard's flags and Tight's control nibbles and filter ids.
//   - handshake.go: RFB 3.8 as a client (ClientHandshake: VNC
//     authentication, ClientInit shared, ServerInit) and as a server
//     (ServeClientHandshake: security None, the ServerInit it is given),
//     with their limits and errors (HandshakeError, RefusedError).
//   - vncauth.go: VNC authentication's DES (VNCAuthResponse) and
//     vncpasswd's stored form (DecryptPasswd).
//   - client.go: ClientParser, a resumable parser of the client-to-server
//     stream that holds at most one message's fixed part and hands
//     payloads out in pieces; FixedLen for the messages a caller may take
//     whole; ProtocolError and its kinds.
//   - server.go: ServerFramer, the one framer of the server-to-client
//     stream: it splits it into message headers, rectangle headers and the
//     headers inside a Tight rectangle (control byte, filter id, palette,
//     compact length), says how many payload bytes follow each, and never
//     decodes a pixel. The relay's server filter passes or withholds what
//     it frames; framebuffer.Decoder decodes it.
//
// # Bounds
//
// Nothing here holds what a length claims: ClientParser keeps a
// message's fixed part (a SetEncodings list up to its limit), ServerFramer
// at most MaxServerHeader bytes of a header, and both hand payloads on by
// length. Every refusal says what and where: the message type and the
// byte offset of the message (ProtocolError, ServerStreamError), and the
// handshake's side and step (HandshakeError). The parsers are fuzzed
// (FuzzClientParser, FuzzServerFramer, FuzzClientHandshake).
package rfb
