package rfbgate

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/coder/websocket"
)

// Close statuses and reasons a viewer's WebSocket ends with.
const (
	reasonServerEnded   = "the computer's screen stream ended"
	reasonServerUnframe = "the computer sent a message the relay cannot frame"
	reasonShutdown      = "relay shutting down"
	reasonClientRefused = "client message refused"
	reasonClientClosed  = "viewer closed"
	reasonStalled       = "viewer stopped reading"
	reasonNoPong        = "no pong within the ping timeout"
	reasonReleaseStuck  = "viewer did not finish its message after losing the keyboard"
)

// end records why the viewer ends (the first cause wins) and ends it.
func (v *viewer) end(code websocket.StatusCode, reason string) {
	v.closeMu.Lock()
	if v.closeReason == "" {
		v.closeCode, v.closeReason = code, reason
	}
	v.closeMu.Unlock()
	v.cancel()
}

// closeStatus is the status and reason the viewer's close frame carries.
func (v *viewer) closeStatus() (websocket.StatusCode, string) {
	v.closeMu.Lock()
	defer v.closeMu.Unlock()
	if v.closeReason == "" {
		return websocket.StatusGoingAway, reasonClientClosed
	}
	return v.closeCode, v.closeReason
}

// pumpServer relays the server's stream to the browser through the
// viewer's serverFilter (framed; ServerCutText only while this viewer holds
// the keyboard). Every write to the browser has WriteTimeout: a viewer
// that stops reading is dropped, not left to hold the server's data. It
// returns when either side ends, having recorded why.
func (v *viewer) pumpServer(server, client net.Conn) {
	// The stall timer records why before it unblocks the write: the
	// WebSocket then drops, and the other goroutines' errors must not be
	// taken for the cause.
	stall := time.AfterFunc(time.Hour, func() {
		v.r.log.Warn("rfbgate: dropping a viewer that stopped reading", "agent", v.agent, "surface", v.surface, "timeout", v.r.cfg.WriteTimeout)
		v.end(websocket.StatusPolicyViolation, reasonStalled)
		client.SetWriteDeadline(time.Now())
	})
	stall.Stop()
	defer stall.Stop()
	const head = maxServerHeader // room for a header split across reads
	buf := make([]byte, head+serverReadBuf)
	carry := 0
	for {
		n, err := server.Read(buf[head:])
		if n > 0 {
			out, rest, ferr := v.filter.Filter(buf[head-carry : head+n])
			if len(out) > 0 {
				stall.Reset(v.r.cfg.WriteTimeout)
				_, werr := client.Write(out)
				stall.Stop()
				if werr != nil {
					v.end(websocket.StatusGoingAway, reasonClientClosed)
					return
				}
			}
			if ferr != nil {
				v.r.log.Warn("rfbgate: closing viewer on a server message it cannot frame", "agent", v.agent, "surface", v.surface, "err", ferr)
				v.end(websocket.StatusInternalError, reasonServerUnframe)
				return
			}
			carry = copy(buf[head-len(rest):head], rest)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				v.r.log.Info("rfbgate: reading the VNC server", "agent", v.agent, "err", err)
			}
			v.end(websocket.StatusGoingAway, reasonServerEnded)
			return
		}
	}
}

// noPong is the close reason for a ping that timed out.
func noPong(d time.Duration) string { return fmt.Sprintf("%s (%v)", reasonNoPong, d) }
