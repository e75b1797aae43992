package rfbgate

import (
	"encoding/binary"
	"time"

	"github.com/coder/websocket"
	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// shareInput is a shared viewer's side towards the computer: it takes what
// the viewer's gate lets through, whole message by whole message (the
// hub's connection is every viewer's, so no message may be split), keeps
// for the hub what concerns the viewer's own screen (pixel format,
// encodings, update requests, continuous updates, fences) and writes the
// rest (input, clipboard, desktop size) to the computer.
type shareInput struct {
	sv  *shareViewer
	p   *rfb.ClientParser
	msg []byte // the message being gathered (at most a cut text's limit)
}

// closeError is a write to the computer that the viewer must be closed
// for, with this status and reason.
type closeError struct {
	code   websocket.StatusCode
	reason string
}

func (e *closeError) Error() string { return e.reason }

func newShareInput(sv *shareViewer, lim Limits) *shareInput {
	return &shareInput{sv: sv, p: rfb.NewClientParser(lim.MaxEncodings)}
}

// Write takes gate output: every message it completes is kept or sent.
func (s *shareInput) Write(b []byte) (int, error) {
	in := b
	for {
		n, ev, body, err := s.p.Step(in)
		in = in[n:]
		if err != nil { // the gate parsed these bytes already
			return len(b) - len(in), err
		}
		switch ev {
		case rfb.EvNeedMore:
			return len(b), nil
		case rfb.EvHeader:
			s.msg = append(s.msg[:0], s.p.Header()...)
		case rfb.EvBody:
			s.msg = append(s.msg, body...)
		case rfb.EvEnd:
			if err := s.route(s.msg); err != nil {
				return len(b) - len(in), err
			}
		}
	}
}

// SetWriteDeadline is the hub's: each message is written with its own.
func (s *shareInput) SetWriteDeadline(time.Time) error { return nil }

// Close does nothing: the hub's connection outlives its viewers.
func (s *shareInput) Close() error { return nil }

// route keeps or sends one whole message.
func (s *shareInput) route(msg []byte) error {
	sv := s.sv
	switch msg[0] {
	case rfb.MsgSetPixelFormat:
		if _, err := framebuffer.ParsePixelFormat(msg[4:20]); err != nil {
			return &closeError{websocket.StatusUnsupportedData, truncateReason("the shared view serves noVNC's pixel format only: " + err.Error())}
		}
		return nil
	case rfb.MsgSetEncodings:
		return s.encodings(msg)
	case rfb.MsgFramebufferUpdateRequest:
		incremental := msg[1] != 0
		sv.mu.Lock()
		if sv.solo { // Xvnc answers it, for this viewer alone (hubsolo.go)
			sv.start, sv.asked = true, true
			sv.mu.Unlock()
			if incremental {
				sv.ack()
			}
			sv.poke()
			break
		}
		if !incremental && sv.start { // a whole new screen asked for
			sv.owesAll()
		}
		sv.start, sv.asked = true, true
		sv.mu.Unlock()
		if incremental { // noVNC asks for the next once it has read one whole
			sv.ack()
		}
		sv.poke()
		return nil
	case rfb.MsgEnableContinuousUpdates, rfb.MsgClientFence:
		return nil // never offered: the hub sends updates as they come
	case rfb.MsgKeyEvent, rfb.MsgPointerEvent, rfb.MsgQEMU: // input the gate let through: the keyboard holder's
		sv.mu.Lock()
		sv.inputAt, sv.prioLeft = time.Now(), prioUpdates
		sv.mu.Unlock()
	}
	if err := sv.h.send(msg); err != nil {
		return err
	}
	return nil
}

// encodings records what the viewer's SetEncodings lists; the first
// viewer's also sets the computer's levels.
func (s *shareInput) encodings(msg []byte) error {
	var c shareCaps
	list := make([]rfb.Encoding, 0, (len(msg)-4)/4)
	for i := 4; i+4 <= len(msg); i += 4 {
		e := rfb.Encoding(binary.BigEndian.Uint32(msg[i:]))
		list = append(list, e)
		switch e {
		case rfb.EncodingTight:
			c.tight = true
		case rfb.EncodingCopyRect:
			c.copyRect = true
		case rfb.EncodingExtendedDesktop:
			c.extDesktop = true
		case rfb.EncodingQEMUExtendedKey:
			c.qemuKey = true
		case rfb.EncodingExtendedClipboard:
			c.extClipboard = true
		}
	}
	s.sv.mu.Lock()
	s.sv.caps = c
	s.sv.private = !c.tight || !c.copyRect
	private := s.sv.private
	s.sv.want = askedClass(list, private)
	if s.sv.cls < 0 || s.sv.cls > s.sv.want || s.sv.want < 0 { // (a viewer gets at most what it asked for)
		s.sv.cls, s.sv.synced = s.sv.want, false
	}
	s.sv.classNow.Store(int32(s.sv.cls))
	s.sv.mu.Unlock()
	if private {
		s.sv.h.endSoloOf(s.sv, "the solo viewer reads Raw only")
	}
	s.sv.h.setEncodings(list)
	return nil
}
