package rfbgate

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Page events ride the viewer's own WebSocket, so that a page holds one
// long-lived connection to glass, whatever the number of its tabs: a
// browser opening the stream with the subprotocol "glass" (rather than
// noVNC's "binary") gets glass's events as TEXT messages, one JSON object
// each, between the BINARY messages of RFB, and may send its commands as
// TEXT messages (pagecommands.go). RFB is all BINARY: the page hands
// noVNC the binary messages only (viewer.html's channel), and glass never
// lets a text message into the gate's byte stream (clientstream.go).
//
// What glass sends, each {"type": ...}:
//
//	hello                 first, before RFB: the stream's id, surface, name and access, its resume credential (resume.go), the lease TTL and grace
//	state                 who holds the keyboard (name, and "you", "tab" or "other" as seen from this stream), how many viewers and watchers, whether the computer is up; sent whenever any of it changes, latest only
//	computer.taken-over   a lease event, as /v1/events has it, with the holder's name and the same "holder" relation
//	computer.handed-back  likewise, with the reason
//	reply                 the answer to one of the page's commands, by its id
//	rtt                   the round trip of glass's last WebSocket ping to this page
//	link                  this viewer's link as glass measures it and the picture quality glass sends it (linkEvent)
//
// Events are never waited for: a page that does not read has its events
// dropped (counted) beyond pageQueueMax, and the latest state is sent
// again once it reads.

// subprotocolGlass is the WebSocket subprotocol of a page that takes
// events on its stream; "binary" is plain RFB.
const subprotocolGlass = "glass"

// pageQueueMax bounds the events waiting for one page.
const pageQueueMax = 64

// pageEvents is the queue of what glass tells one viewer's page.
type pageEvents struct {
	mu      sync.Mutex
	queue   [][]byte
	state   bool   // a state snapshot is owed
	dropped uint64 // events dropped because the page did not read
	wake    chan struct{}
	stop    chan struct{}
}

func newPageEvents() *pageEvents {
	return &pageEvents{wake: make(chan struct{}, 1), stop: make(chan struct{}), state: true}
}

func (p *pageEvents) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// take returns the events queued and whether a state is owed.
func (p *pageEvents) take() ([][]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, st := p.queue, p.state
	p.queue, p.state = nil, false
	return q, st
}

// notify sends one event (marshalled as JSON) to v's page, if v's page
// takes events: it never blocks, and drops the event, counting it, when
// pageQueueMax events already wait for a page that does not read.
func (v *viewer) notify(ev any) {
	p := v.page
	if p == nil {
		return
	}
	b, err := json.Marshal(ev)
	if err != nil {
		v.r.log.Error("rfbgate: a page event does not marshal", "err", err)
		return
	}
	p.mu.Lock()
	if len(p.queue) >= pageQueueMax {
		p.dropped++
		p.state = true // the page resynchronises on the state that follows
	} else {
		p.queue = append(p.queue, b)
	}
	p.mu.Unlock()
	p.signal()
}

// stateChanged owes v's page a state snapshot, built when it is sent (so
// a burst of changes costs one).
func (v *viewer) stateChanged() {
	p := v.page
	if p == nil {
		return
	}
	p.mu.Lock()
	p.state = true
	p.mu.Unlock()
	p.signal()
}

// writeEvents sends v's page its events until stop is closed or a write
// fails (the viewer is ending). coder/websocket's Write is safe beside the
// relay's own writers: each message goes whole.
func (v *viewer) writeEvents() {
	p := v.page
	defer v.r.wg.Done()
	for {
		select {
		case <-p.stop:
			return
		case <-p.wake:
		}
		q, st := p.take()
		if st {
			b, _ := json.Marshal(v.r.pageState(v))
			q = append(q, b)
		}
		for _, b := range q {
			if err := v.ws.Write(context.Background(), websocket.MessageText, b); err != nil {
				return
			}
		}
	}
}

// startEvents starts v's event writer (when its page takes events); the
// viewer is counted open. stopEvents ends it.
func (v *viewer) startEvents() {
	if v.page == nil {
		return
	}
	v.r.wg.Add(1)
	go v.writeEvents()
}

func (v *viewer) stopEvents() {
	if v.page != nil {
		close(v.page.stop)
	}
}

// helloEvent is a page's first event: who its stream is.
type helloEvent struct {
	Type           string `json:"type"` // "hello"
	Agent          string `json:"agent"`
	Stream         string `json:"stream"`
	Surface        string `json:"surface"`
	Name           string `json:"name"`
	Access         Access `json:"access"`
	Resume         string `json:"resume,omitempty"` // the resume credential (resume.go); absent if none could be made
	ResumeWindowMs int64  `json:"resume_window_ms"`
	LeaseTTLms     int64  `json:"lease_ttl_ms"`
	LeaseGraceMs   int64  `json:"lease_grace_ms"`
}

// sayHello gives a page that takes events its hello, right after the
// upgrade and before anything else is written to it (so even a stream
// that fails to reach the computer leaves the page its next resume
// credential).
func (r *Relay) sayHello(ws *websocket.Conn, agent string, o opening) error {
	h := helloEvent{Type: "hello", Agent: agent, Stream: o.stream, Surface: o.Surface, Name: o.Name, Access: o.Access,
		ResumeWindowMs: r.resumes.window.Milliseconds(), LeaseTTLms: r.leases.TTL().Milliseconds(), LeaseGraceMs: r.cfg.LeaseGrace.Milliseconds()}
	if tok, err := r.resumes.issue(agent, o.Grant, o.stream); err == nil {
		h.Resume = tok
	} else {
		r.log.Warn("rfbgate: no resume credential for a page", "agent", agent, "err", err)
	}
	b, _ := json.Marshal(h)
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.HandshakeTimeout)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, b)
}

// Holder relations, as seen from one page.
const (
	holderYou   = "you"   // this stream
	holderTab   = "tab"   // another stream of this page's surface (another tab)
	holderOther = "other" // another surface
)

func relation(v *viewer, surface, stream string) string {
	switch {
	case surface == v.surface && stream == v.stream:
		return holderYou
	case surface == v.surface:
		return holderTab
	}
	return holderOther
}

// pageHolder is who holds the keyboard, for one page.
type pageHolder struct {
	Name   string    `json:"name"`
	Holder string    `json:"holder"` // you, tab or other
	Since  time.Time `json:"since"`
}

// pageStateEvent is a page's picture of its computer.
type pageStateEvent struct {
	Type     string      `json:"type"` // "state"
	Keyboard *pageHolder `json:"keyboard"`
	Viewers  int         `json:"viewers"`  // open viewers, this one included
	Watching int         `json:"watching"` // open viewers without the keyboard
	Health
}

// pageState is v's page's state now.
func (r *Relay) pageState(v *viewer) pageStateEvent {
	st := pageStateEvent{Type: "state", Health: r.health(v.agent)}
	h, held := r.leases.holding(v.agent)
	if held {
		st.Keyboard = &pageHolder{Name: displayName(h.Name, h.Surface), Holder: relation(v, h.Surface, h.Stream), Since: h.Since}
	}
	r.mu.Lock()
	st.Viewers = len(r.viewers[v.agent])
	holding := 0
	if held && r.streamOpenLocked(v.agent, h.Surface, h.Stream) {
		holding = 1
	}
	r.mu.Unlock()
	st.Watching = st.Viewers - holding
	return st
}

// pageLeaseEvent is a lease event as one page sees it.
type pageLeaseEvent struct {
	Type   string    `json:"type"` // computer.taken-over or computer.handed-back
	Name   string    `json:"name"`
	Holder string    `json:"holder"` // you, tab or other: whose keyboard it was or is
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// tellPages passes a lease event to the pages of ev.Agent's viewers.
// Called under the lease table's lock (leaseChanged): it takes r.mu, then
// each page's queue lock, and never blocks.
func (r *Relay) tellPages(ev leaseEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for v := range r.viewers[ev.Agent] {
		v.notify(pageLeaseEvent{Type: ev.Type, Name: displayName(ev.Name, ev.Surface), Holder: relation(v, ev.Surface, ev.Stream), Reason: ev.Reason, At: ev.At})
	}
}

// statesChanged owes every page of agent's viewers a state snapshot.
func (r *Relay) statesChanged(agent string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for v := range r.viewers[agent] {
		v.stateChanged()
	}
}

// rttEvent is the round trip of glass's last ping to the page.
type rttEvent struct {
	Type  string  `json:"type"` // "rtt"
	RTTms float64 `json:"rtt_ms"`
}

// linkEvent tells a page its viewer's link as glass measures it and the
// picture quality glass now sends it: the page shows the latest one in a
// line a phone's user understands ("Your link: 1.8 Mbit/s, 90 ms ·
// picture: medium"), and nothing before the first. Glass's pacing code
// sends it (v.notify(newLinkEvent(...))).
type linkEvent struct {
	Type         string `json:"type"`          // "link"
	RateBps      int64  `json:"rate_bps"`      // the link's delivery rate, bits per second
	RTTms        int64  `json:"rtt_ms"`        // its round trip, milliseconds
	Quality      string `json:"quality"`       // the picture's quality in a word ("low", "medium", "high", "lossless")
	QualityLevel int    `json:"quality_level"` // the JPEG quality level glass sends it at, 0 to 9
	// KeepsUp says that the link took all glass had to send lately:
	// RateBps is then what the screen needed, not what the link can do.
	KeepsUp bool `json:"keeps_up"`
}

// newLinkEvent is a link event.
func newLinkEvent(rateBps int64, rtt time.Duration, quality string, level int, keepsUp bool) linkEvent {
	return linkEvent{Type: "link", RateBps: rateBps, RTTms: rtt.Milliseconds(), Quality: quality, QualityLevel: level, KeepsUp: keepsUp}
}
