package rfbgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/coder/websocket"
)

// A page's commands come as TEXT messages on its own stream, one JSON
// object each: {"id": N, "op": "takeover" | "giveback" | "renew"}. They
// act for that stream alone (its surface, its stream id) and the access
// its ticket gave decides: a watch-only stream's take-over is refused,
// whatever else it says. Each is answered with a "reply" event carrying
// the same id: {"ok": true, ...} or {"error": CODE, "message": TEXT}, the
// codes of the control API.

// maxPageMessage bounds a page's text message; a longer one closes the
// viewer (1009).
const maxPageMessage = 4096

// pageCommand is one command from a page.
type pageCommand struct {
	ID int64  `json:"id"`
	Op string `json:"op"`
}

// pageReply answers a page's command.
type pageReply struct {
	Type      string  `json:"type"` // "reply"
	ID        int64   `json:"id"`
	Op        string  `json:"op"`
	OK        bool    `json:"ok,omitempty"`
	Error     string  `json:"error,omitempty"`
	Message   string  `json:"message,omitempty"`
	ExpiresAt string  `json:"expires_at,omitempty"`
	TTLms     int64   `json:"ttl_ms,omitempty"`
	Clipboard *string `json:"clipboard,omitempty"` // a take-over's: the computer's clipboard as glass last saw it
}

// pageText reads one text message from v's browser: a command when its
// page takes events, else a refusal (1003: the stream is RFB, all
// binary). A message over maxPageMessage closes the viewer (1009). It
// returns an error when the viewer is to end (its cause recorded).
func (v *viewer) pageText(msg io.Reader) error {
	if v.page == nil {
		v.end(websocket.StatusUnsupportedData, reasonTextMessage)
		return errors.New(reasonTextMessage)
	}
	b, err := io.ReadAll(io.LimitReader(msg, maxPageMessage+1))
	if err != nil {
		return err
	}
	if len(b) > maxPageMessage {
		v.end(websocket.StatusMessageTooBig, reasonPageTooBig)
		return errors.New(reasonPageTooBig)
	}
	v.notify(v.command(b))
	return nil
}

// Close reasons for a browser's text messages.
var (
	reasonTextMessage = "text message on an RFB stream (open it with the subprotocol " + subprotocolGlass + " to send commands)"
	reasonPageTooBig  = fmt.Sprintf("page message over %d bytes", maxPageMessage)
)

// command runs one page command and returns its reply.
func (v *viewer) command(b []byte) pageReply {
	var c pageCommand
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return pageReply{Type: "reply", Op: "?", Error: "bad_request", Message: "a command is {\"id\": N, \"op\": \"takeover\" | \"giveback\" | \"renew\"}: " + err.Error()}
	}
	rep := pageReply{Type: "reply", ID: c.ID, Op: c.Op}
	r := v.r
	switch c.Op {
	case "takeover":
		if v.access == AccessWatch {
			return rep.fail("watch_only", "this page was opened with a watch-only link: it can watch, never take the keyboard")
		}
		exp, _, err := r.takeOver(v.agent, v.surface, v.stream)
		if err != nil {
			return rep.fail("no_viewer", "this page's screen is not connected yet")
		}
		rep.Clipboard = r.clipboardFor(v.agent, v.surface, v.stream)
		return rep.lease(exp, r.leases.TTL())
	case "renew":
		exp, err := r.leases.renew(v.agent, v.surface, v.stream, nil)
		if err != nil {
			return rep.fail("not_holder", "this page does not hold the keyboard")
		}
		return rep.lease(exp, r.leases.TTL())
	case "giveback":
		if err := r.leases.giveBackStream(v.agent, v.surface, v.stream); err != nil {
			return rep.fail("not_holder", "this page does not hold the keyboard")
		}
		rep.OK = true
		return rep
	}
	return rep.fail("bad_request", fmt.Sprintf("unknown op %q: want takeover, giveback or renew", c.Op))
}

func (p pageReply) fail(code, msg string) pageReply {
	p.Error, p.Message = code, msg
	return p
}

func (p pageReply) lease(exp time.Time, ttl time.Duration) pageReply {
	p.OK, p.ExpiresAt, p.TTLms = true, exp.UTC().Format(time.RFC3339Nano), ttl.Milliseconds()
	return p
}
