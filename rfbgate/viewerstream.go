package rfbgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Close statuses and reasons a viewer's WebSocket ends with.
const (
	reasonServerEnded   = "the computer's screen stream ended"
	reasonServerUnframe = "the computer sent a message the relay cannot frame"
	reasonShutdown      = "relay shutting down"
	reasonClientRefused = "client message refused"
	reasonClientClosed  = "viewer closed"
	reasonClientGone    = "viewer connection lost"
	reasonStalled       = "viewer stopped reading"
	reasonNoPong        = "no pong within the ping timeout"
	reasonReleaseStuck  = "viewer did not finish its message after losing the keyboard"
)

// reasonTooBig is the reason of the 1009 close coder/websocket sends when a
// browser message passes the read limit (it writes that frame itself, with
// its own words; the relay logs exactly what went out).
var reasonTooBig = fmt.Sprintf("read limited at %d bytes", maxClientMessage+1)

// maxCloseReason is the longest close reason a close frame carries (RFC
// 6455: 125 bytes of payload, 2 of them the code).
const maxCloseReason = 123

// closeGrace is how long the close frame of a viewer that stopped reading
// (and the rest of the message already being written) may take to leave
// the socket before the relay drops the connection without it.
const closeGrace = time.Second

// closeWait bounds the same for every other end (coder/websocket waits as
// long for its write lock before a close frame).
const closeWait = 5 * time.Second

// Who ended a viewer's stream.
const (
	endedByRelay  = "relay"
	endedByViewer = "viewer"
)

// end records why the relay ends the viewer (the first cause wins) and
// ends it.
func (v *viewer) end(code websocket.StatusCode, reason string) {
	v.endBy(endedByRelay, code, reason)
}

func (v *viewer) endBy(by string, code websocket.StatusCode, reason string) {
	v.closeMu.Lock()
	if !v.ended {
		v.ended = true
		v.closeBy, v.closeCode, v.closeReason = by, code, reason
	}
	v.closeMu.Unlock()
	v.cancel()
}

// lostWrite ends a viewer whose connection failed under a write (or a
// wait for room to write) without giving the verdict: the viewer's own
// close frame may be what closed the connection (coder/websocket answers
// it and closes), and only the read side has seen it. settle gives it.
func (v *viewer) lostWrite() { v.cancel() }

// settle gives the verdict of a viewer that ended with none recorded
// (every other end records one before it cancels: only lostWrite does
// not): the read side's (readDone is closed when it has returned, having
// recorded why), or, if it has not returned within closeGrace, a lost
// connection.
func (v *viewer) settle(readDone <-chan struct{}) {
	v.closeMu.Lock()
	pending := !v.ended
	v.closeMu.Unlock()
	if pending {
		t := time.NewTimer(closeGrace)
		select {
		case <-readDone:
		case <-t.C:
		}
		t.Stop()
		v.endBy(endedByViewer, websocket.StatusAbnormalClosure, reasonClientGone)
	}
}

// closeStatus is who ended the viewer, and the status and reason its close
// frame carries.
func (v *viewer) closeStatus() (by string, code websocket.StatusCode, reason string) {
	v.closeMu.Lock()
	defer v.closeMu.Unlock()
	if !v.ended {
		return endedByViewer, websocket.StatusGoingAway, reasonClientClosed
	}
	return v.closeBy, v.closeCode, v.closeReason
}

// refusedReason is the 1008 reason for a client message the gate refused:
// it names the message and what was wrong, within a close frame's length.
func refusedReason(err error) string {
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		return reasonClientRefused
	}
	return truncateReason(fmt.Sprintf("%s: %s (%v)", reasonClientRefused, messageName(pe.Type), pe.Kind))
}

// truncateReason cuts s to maxCloseReason bytes at a rune boundary.
func truncateReason(s string) string {
	if len(s) <= maxCloseReason {
		return s
	}
	cut := maxCloseReason
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// clientReadEnded records why the browser side's read ended: a message over
// the read limit (coder/websocket has sent 1009 itself), the viewer's own
// close frame (echoed back by coder/websocket), or a lost connection.
func (v *viewer) clientReadEnded(err error) {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		v.r.log.Warn("rfbgate: closing viewer: message over the read limit", "agent", v.agent, "surface", v.surface, "limit", maxClientMessage)
		v.endBy(endedByRelay, websocket.StatusMessageTooBig, reasonTooBig)
		return
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		v.endBy(endedByViewer, ce.Code, ce.Reason)
		return
	}
	v.endBy(endedByViewer, websocket.StatusAbnormalClosure, reasonClientGone)
}

// closeViewer sends the viewer's close frame with a deadline, then drops
// the connection: a viewer whose socket takes the rest of the message being
// written and the close frame within closeWait (closeGrace for one that
// stopped reading: stalled set it) gets them; one whose socket takes
// nothing more is dropped without. It reports whether the close frame was
// written (for the viewer's own close, the echo).
func (v *viewer) closeViewer(code websocket.StatusCode, reason string) bool {
	if v.raw != nil && reason != reasonStalled {
		v.raw.SetWriteDeadline(time.Now().Add(closeWait))
	}
	if code == websocket.StatusAbnormalClosure { // the connection is gone: nothing to send
		v.ws.CloseNow()
		return false
	}
	err := v.ws.Close(code, reason)
	return !(errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET))
}

// pumpServer relays the server's stream to the browser through the
// viewer's serverFilter (framed; ServerCutText only while this viewer holds
// the keyboard), batching what Xvnc has ready into messages of up to
// serverBatchMax bytes, each sent the moment a read would wait. It waits
// for Xvnc, then for room in the browser's socket, with no buffer, and
// takes one from batchPool per batch, reading no more than the socket can
// take (see buffers.go). A viewer that takes nothing for WriteTimeout
// while bytes wait for it is ended (see stalled). It returns when either
// side ends, having recorded why.
func (v *viewer) pumpServer(up *upstream) {
	v.stall = time.AfterFunc(time.Hour, v.stalled)
	v.stall.Stop()
	defer v.stall.Stop()
	// The filter counts what it withholds; the viewer's counter (read by
	// scrapes) is brought up to date once a batch and at the end.
	defer v.publishCounts()
	var held [rfb.MaxServerHeader]byte // a header split across batches
	nheld := 0
	down := newDownstream(v.raw)
	for {
		if err := up.wait(); err != nil {
			v.serverEnded(err)
			return
		}
		room, ok := v.waitRoom(down)
		if !ok {
			return
		}
		bp, pool := getBatch(room, up.readyBytes())
		nheld, ok = v.relayBatch(up, (*bp)[:min(room, len(*bp))], &held, nheld)
		pool.Put(bp)
		down.spend(room)
		v.publishCounts()
		if !ok {
			return
		}
	}
}

// waitRoom waits, holding no buffer, until the browser's socket can take
// more, bounded by the stall timer as a write is, and returns how many
// bytes it can take; false when the viewer ended (its socket closed, or
// it stopped reading for WriteTimeout).
func (v *viewer) waitRoom(down *downstream) (int, bool) {
	v.stall.Reset(v.r.cfg.WriteTimeout)
	room, err := down.wait()
	v.stall.Stop()
	if err != nil {
		v.lostWrite()
		return 0, false
	}
	return room, true
}

// relayBatch reads what Xvnc has ready into buf, after the nheld bytes of
// a header split at the previous batch's end, filters it and sends it as
// one message. It leaves in held the header split at this batch's end and
// returns its length, or false when the viewer ended.
func (v *viewer) relayBatch(up *upstream, buf []byte, held *[rfb.MaxServerHeader]byte, nheld int) (int, bool) {
	// buf[:out] is filtered and waits to be sent; buf[out:out+carry] is a
	// header split across reads, put in front of the next read.
	out, carry := 0, copy(buf, held[:nheld])
	n, err := up.Read(buf[carry:])
	idle := false
	for {
		if n > 0 {
			kept, rest, ferr := v.filter.Filter(buf[out : out+carry+n])
			out += len(kept)
			carry = copy(buf[out:], rest)
			if ferr != nil {
				if out > 0 {
					v.sendBatch(buf[:out])
				}
				v.r.log.Warn("rfbgate: closing viewer on a server message it cannot frame", "agent", v.agent, "surface", v.surface, "err", ferr)
				v.end(websocket.StatusInternalError, reasonServerUnframe)
				return 0, false
			}
		}
		if err != nil {
			if out == 0 || v.sendBatch(buf[:out]) {
				v.serverEnded(err)
			}
			return 0, false
		}
		if idle || len(buf)-out-carry < serverReadMin {
			break
		}
		n, idle, err = up.tryRead(buf[out+carry:])
	}
	if out > 0 && !v.sendBatch(buf[:out]) {
		return 0, false
	}
	return copy(held[:], buf[out:out+carry]), true
}

// sendBatch writes one batch to the browser as a binary message, bounded
// by the stall timer; a failed write ends the viewer (the browser is gone).
func (v *viewer) sendBatch(b []byte) bool {
	v.stall.Reset(v.r.cfg.WriteTimeout)
	err := v.ws.Write(context.Background(), websocket.MessageBinary, b)
	v.stall.Stop()
	if err != nil {
		v.lostWrite()
		return false
	}
	v.toViewer.Add(uint64(len(b)))
	v.messages.Add(1)
	return true
}

// serverEnded ends the viewer whose computer's stream ended (err is why:
// logged unless the connection simply closed).
func (v *viewer) serverEnded(err error) {
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		v.r.log.Info("rfbgate: reading the VNC server", "agent", v.agent, "err", err)
	}
	v.end(websocket.StatusGoingAway, reasonServerEnded)
}

// publishCounts brings the viewer's withheld and rectangle counters
// (read by scrapes) up to the filter's, once a batch.
func (v *viewer) publishCounts() {
	v.withheld.Store(v.filter.stats.CutTextDropped)
	v.rects.store(&v.filter.kinds)
}

// stalled ends a viewer that has taken nothing for WriteTimeout while
// bytes waited for it: it records why before anything unblocks the wait
// (the other goroutines' errors must not be taken for the cause) and gives
// the close frame closeGrace to leave the socket and be answered; then the
// connection is dropped.
func (v *viewer) stalled() {
	v.r.log.Warn("rfbgate: dropping a viewer that stopped reading", "agent", v.agent, "surface", v.surface, "timeout", v.r.cfg.WriteTimeout)
	v.r.metrics.writeTimeout(v.agent)
	v.end(websocket.StatusPolicyViolation, reasonStalled)
	if v.raw != nil {
		// Reads too: the close frame may fit in the socket (glass keeps
		// few bytes unsent), but a viewer that reads nothing will not
		// answer it.
		v.raw.SetDeadline(time.Now().Add(closeGrace))
	} else {
		v.ws.CloseNow()
	}
}

// noPong is the close reason for a ping that timed out.
func noPong(d time.Duration) string { return fmt.Sprintf("%s (%v)", reasonNoPong, d) }
