package rfb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits on what a handshake reads.
const (
	MaxReasonLen      = 4096  // a failure reason string
	MaxDesktopNameLen = 65535 // the desktop name in ServerInit
)

// ErrHandshake is the kind of every handshake failure; errors.Is works.
var ErrHandshake = errors.New("RFB handshake failed")

// ErrAuthFailed: the server refused our VNC authentication.
var ErrAuthFailed = errors.New("VNC authentication refused")

// HandshakeError says which side and which step of a handshake failed.
type HandshakeError struct {
	Side string // "server" (Xvnc) or "client" (the browser)
	Step string // e.g. "security types", "SecurityResult"
	Err  error
}

// Error reports side, step and cause.
func (e *HandshakeError) Error() string {
	return fmt.Sprintf("rfb: RFB handshake with %s, %s: %v", e.Side, e.Step, e.Err)
}

// Unwrap returns the cause.
func (e *HandshakeError) Unwrap() error { return e.Err }

// Is matches ErrHandshake.
func (e *HandshakeError) Is(target error) bool { return target == ErrHandshake }

// ServerInit is the server's ServerInit message, passed to browsers unchanged.
type ServerInit struct {
	Width, Height uint16
	Name          string
	Raw           []byte // the whole message as the server sent it
}

func hsErr(side, step string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &HandshakeError{Side: side, Step: step, Err: err}
}

// ClientHandshake runs RFB 3.8 as a client on rw (a connection to Xvnc):
// it chooses VNC authentication among the offered security types, answers
// the challenge with password, reads SecurityResult (and the reason on failure),
// sends ClientInit with shared = 1 and returns ServerInit. Set deadlines on
// the connection to bound it.
func ClientHandshake(rw io.ReadWriter, password []byte) (*ServerInit, error) {
	const side = "server"
	var ver [12]byte
	if _, err := io.ReadFull(rw, ver[:]); err != nil {
		return nil, hsErr(side, "ProtocolVersion", err)
	}
	if !bytes.HasPrefix(ver[:], []byte("RFB 003.")) || ver[11] != '\n' {
		return nil, hsErr(side, "ProtocolVersion", fmt.Errorf("not an RFB server (%q)", ver[:]))
	}
	if string(ver[:]) < ProtocolVersion {
		if string(ver[:]) == "RFB 003.003\n" && refused33(rw) {
			// TigerVNC turns a blacklisted address away so, whatever
			// version the client would speak: "RFB 003.003", u32 0, reason.
			return nil, hsErr(side, "ProtocolVersion", readRefusal("3.3", rw))
		}
		return nil, hsErr(side, "ProtocolVersion", fmt.Errorf("server speaks %q, need 3.8", ver[:11]))
	}
	if _, err := io.WriteString(rw, ProtocolVersion); err != nil {
		return nil, hsErr(side, "ProtocolVersion", err)
	}
	var n [1]byte
	if _, err := io.ReadFull(rw, n[:]); err != nil {
		return nil, hsErr(side, "security types", err)
	}
	if n[0] == 0 {
		return nil, hsErr(side, "security types", readRefusal("3.8", rw))
	}
	types := make([]byte, n[0])
	if _, err := io.ReadFull(rw, types); err != nil {
		return nil, hsErr(side, "security types", err)
	}
	if bytes.IndexByte(types, SecurityVNCAuth) < 0 {
		return nil, hsErr(side, "security types", fmt.Errorf("server offers %v, not VNC authentication (2)", types))
	}
	if _, err := rw.Write([]byte{SecurityVNCAuth}); err != nil {
		return nil, hsErr(side, "security type", err)
	}
	var ch [16]byte
	if _, err := io.ReadFull(rw, ch[:]); err != nil {
		return nil, hsErr(side, "VNC auth challenge", err)
	}
	resp := VNCAuthResponse(password, ch)
	if _, err := rw.Write(resp[:]); err != nil {
		return nil, hsErr(side, "VNC auth response", err)
	}
	var res [4]byte
	if _, err := io.ReadFull(rw, res[:]); err != nil {
		return nil, hsErr(side, "SecurityResult", err)
	}
	if r := binary.BigEndian.Uint32(res[:]); r != 0 {
		return nil, hsErr(side, "SecurityResult", fmt.Errorf("%w (result %d): %s", ErrAuthFailed, r, readReason(rw)))
	}
	if _, err := rw.Write([]byte{1}); err != nil { // ClientInit, shared
		return nil, hsErr(side, "ClientInit", err)
	}
	hdr := make([]byte, 24)
	if _, err := io.ReadFull(rw, hdr); err != nil {
		return nil, hsErr(side, "ServerInit", err)
	}
	nl := binary.BigEndian.Uint32(hdr[20:24])
	if nl > MaxDesktopNameLen {
		return nil, hsErr(side, "ServerInit", fmt.Errorf("desktop name of %d bytes, limit %d", nl, MaxDesktopNameLen))
	}
	raw := make([]byte, 24+int(nl))
	copy(raw, hdr)
	if _, err := io.ReadFull(rw, raw[24:]); err != nil {
		return nil, hsErr(side, "ServerInit name", err)
	}
	return &ServerInit{
		Width:  binary.BigEndian.Uint16(raw[0:2]),
		Height: binary.BigEndian.Uint16(raw[2:4]),
		Name:   string(raw[24:]),
		Raw:    raw,
	}, nil
}

// readReason reads an RFB reason string (u32 length, text), bounded, and
// quotes it.
func readReason(r io.Reader) string {
	s, ok := readReasonString(r)
	if !ok {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// readRefusal reads the reason of a refusal in RFB version.
func readRefusal(version string, r io.Reader) *RefusedError {
	s, ok := readReasonString(r)
	return &RefusedError{Version: version, Reason: s, HasReason: ok}
}

// readReasonString reads a reason string; when it cannot (cut short, over
// MaxReasonLen) it says so in parentheses and reports false.
func readReasonString(r io.Reader) (string, bool) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return "(no reason given)", false
	}
	n := binary.BigEndian.Uint32(l[:])
	if n > MaxReasonLen {
		return fmt.Sprintf("(reason of %d bytes, over the %d-byte limit)", n, MaxReasonLen), false
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "(reason cut short)", false
	}
	return string(b), true
}

// refused33 reads the security type an RFB 3.3 server chose and reports
// whether it is 0, a refusal (a reason follows). It writes nothing: a
// refusing server has sent everything and closed, and bytes sent to a
// closed socket could reset the connection before the reason is read. A
// genuine 3.3 server waits for the client's version, so the read ends at
// the caller's deadline and the connection fails as "need 3.8".
func refused33(r io.Reader) bool {
	var t [4]byte
	_, err := io.ReadFull(r, t[:])
	return err == nil && binary.BigEndian.Uint32(t[:]) == 0
}

// RefusedError: the server turned the connection away before authentication
// (RFB 3.3 security type 0, or 3.8 with no security types), giving Reason.
// TigerVNC does so for an address it blacklisted ("Too many security
// failures"), and glass retries that (see IsBlacklist).
type RefusedError struct {
	Version   string // "3.3" or "3.8", the version of the refusal
	Reason    string // the server's reason; when HasReason is false, why there is none
	HasReason bool   // the server sent a reason within MaxReasonLen
}

// Error reports the refusal and the server's reason.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("server refused the connection (RFB %s): %q", e.Version, e.Reason)
}

// IsBlacklist reports whether the refusal is a blacklist, not about this
// connection: TigerVNC's "Too many security failures" in any version, or
// any RFB 3.3 refusal with a reason (the form TigerVNC sends before it
// knows the client's version; a 3.8 server refuses in 3.8).
func (e *RefusedError) IsBlacklist() bool {
	if strings.Contains(strings.ToLower(e.Reason), "too many security failures") {
		return true
	}
	return e.Version == "3.3" && e.HasReason
}

// ServeClientHandshake runs RFB 3.8 as a server on rw (the browser's
// stream): it offers only security type None, sends SecurityResult 0, reads
// the browser's ClientInit (not forwarded: the relay's own ClientInit to the
// server was shared = 1), calls before (when not nil; its error ends the
// handshake) and sends init.Raw unchanged.
func ServeClientHandshake(rw io.ReadWriter, init *ServerInit, before func() error) error {
	const side = "client"
	if _, err := io.WriteString(rw, ProtocolVersion); err != nil {
		return hsErr(side, "ProtocolVersion", err)
	}
	var ver [12]byte
	if _, err := io.ReadFull(rw, ver[:]); err != nil {
		return hsErr(side, "ProtocolVersion", err)
	}
	if string(ver[:]) != ProtocolVersion {
		return hsErr(side, "ProtocolVersion", fmt.Errorf("client speaks %q, need %q", ver[:], ProtocolVersion))
	}
	if _, err := rw.Write([]byte{1, SecurityNone}); err != nil {
		return hsErr(side, "security types", err)
	}
	var t [1]byte
	if _, err := io.ReadFull(rw, t[:]); err != nil {
		return hsErr(side, "security type", err)
	}
	if t[0] != SecurityNone {
		reason := "only security type None (1) is offered"
		msg := binary.BigEndian.AppendUint32([]byte{0, 0, 0, 1}, uint32(len(reason)))
		rw.Write(append(msg, reason...))
		return hsErr(side, "security type", fmt.Errorf("client chose %d, only None (1) is offered", t[0]))
	}
	if _, err := rw.Write([]byte{0, 0, 0, 0}); err != nil {
		return hsErr(side, "SecurityResult", err)
	}
	if _, err := io.ReadFull(rw, t[:]); err != nil { // ClientInit: read, not forwarded
		return hsErr(side, "ClientInit", err)
	}
	if before != nil {
		if err := before(); err != nil {
			return hsErr(side, "ServerInit", err)
		}
	}
	if _, err := rw.Write(init.Raw); err != nil {
		return hsErr(side, "ServerInit", err)
	}
	return nil
}
