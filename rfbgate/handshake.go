package rfbgate

import (
	"io"

	"github.com/wirebench/wirebench/internal/rfb"
)

// The RFB handshake is internal/rfb's; these are the names glass's users
// see in its errors and in ClientHandshake.

// ErrHandshake is the kind of every handshake failure; errors.Is works.
var ErrHandshake = rfb.ErrHandshake

// ErrAuthFailed: the server refused our VNC authentication.
var ErrAuthFailed = rfb.ErrAuthFailed

// HandshakeError says which side and which step of a handshake failed.
type HandshakeError = rfb.HandshakeError

// RefusedError: the server turned the connection away before
// authentication, giving a reason (see its IsBlacklist).
type RefusedError = rfb.RefusedError

// ServerInit is the server's ServerInit message, passed to browsers unchanged.
type ServerInit = rfb.ServerInit

// ClientHandshake runs RFB 3.8 as a client on rw (a connection to Xvnc),
// with VNC authentication by pw, sends ClientInit with shared = 1 and
// returns ServerInit (rfb.ClientHandshake). Set deadlines on the
// connection to bound it.
func ClientHandshake(rw io.ReadWriter, pw Secret) (*ServerInit, error) {
	return rfb.ClientHandshake(rw, pw.b)
}
