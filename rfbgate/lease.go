package rfbgate

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lease event types.
const (
	eventTakenOver  = "computer.taken-over"
	eventHandedBack = "computer.handed-back"
)

// Reasons a keyboard was handed back, or taken over again.
const (
	reasonGiveBack     = "giveback"      // the holder gave it back
	reasonExpired      = "expired"       // no renewal within the lease TTL
	reasonMoved        = "moved"         // another surface (or another tab of it) took over
	reasonViewerClosed = "viewer-closed" // the holder's viewer closed and none reopened within the grace period
	reasonReopened     = "reopened"      // taken-over: the holder's surface reopened its viewer (a reload) within the grace period
	// The holder's viewer was closed because the computer's screen stream
	// ended (Xvnc stopped or restarted), and no viewer of its surface came
	// back within the grace period.
	reasonComputerEnded = "computer-ended"
)

// DefaultLeaseTTL is how long a take-over lasts after its last renewal.
const DefaultLeaseTTL = 90 * time.Second

// ErrNotHolder: the surface does not hold that computer's keyboard.
var ErrNotHolder = errors.New("surface does not hold the keyboard")

// ErrNoViewer: a take-over or renewal by a surface (or stream) with no open
// viewer of that computer. A keyboard lives only while its viewer is open.
var ErrNoViewer = errors.New("surface has no open viewer of the computer")

// ErrWatchOnly: a take-over for a stream (or a surface whose open viewers
// are all) opened with a watch-only ticket: glass never gives it the
// keyboard.
var ErrWatchOnly = errors.New("viewer opened with a watch-only ticket")

// KeyboardHeldError refuses an agent's own input while a person holds the
// keyboard; it names who does.
type KeyboardHeldError struct {
	Agent, Surface string
}

// Error names the holder.
func (e *KeyboardHeldError) Error() string {
	return fmt.Sprintf("rfbgate: computer %s: keyboard held by surface %s", e.Agent, e.Surface)
}

// leaseEvent is one change of who holds a computer's keyboard.
type leaseEvent struct {
	Type    string    `json:"type"`
	Agent   string    `json:"agent"`
	Surface string    `json:"surface"`
	Stream  string    `json:"stream,omitempty"` // the viewer stream holding it, when the take-over named one
	Name    string    `json:"name,omitempty"`   // the holder's display name, given when its ticket was minted
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at"`
}

// lease is one computer's keyboard holder: one viewer stream (one tab) of
// one surface. A lease always names its stream, so one keyboard is one
// stream whoever asked for it (a take-over that names none is given a
// stream by the relay: see Relay.TakeOver).
type lease struct {
	surface string
	stream  string
	name    string // the holding viewer's display name
	since   time.Time
	expires time.Time
	timer   *time.Timer
}

// holds reports whether the viewer stream of surface holds this lease.
func (ls *lease) holds(surface, stream string) bool {
	return ls != nil && ls.surface == surface && ls.stream == stream
}

// Holding is a copy of a computer's keyboard lease.
type Holding struct {
	Surface string
	Stream  string // the holding viewer stream
	Name    string // its display name ("" if it has none)
	Since   time.Time
}

// leases records which surface holds each computer's keyboard. It is safe
// for concurrent use. A take-over expires ttl after its last renewal.
type leases struct {
	mu       sync.Mutex
	ttl      time.Duration
	m        map[string]*lease
	subs     map[int]chan leaseEvent
	nextSub  int
	dropped  uint64
	onChange func(agent string)
	onEvent  func(leaseEvent) // the relay's log and metrics (logging.go); under mu, never blocks
}

// newLeases returns an empty lease table; ttl <= 0 takes DefaultLeaseTTL.
// onChange, if not nil, runs (outside the lock) after every change of holder.
func newLeases(ttl time.Duration, onChange func(agent string)) *leases {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &leases{ttl: ttl, m: make(map[string]*lease), subs: make(map[int]chan leaseEvent), onChange: onChange, onEvent: func(leaseEvent) {}}
}

// TTL is the lease lifetime after a renewal.
func (l *leases) TTL() time.Duration { return l.ttl }

// takeOver gives agent's keyboard to the stream of surface that pick
// names, with its display name; pick runs under the table's lock (so no
// viewer-closed check can fall between) and says why there is no such
// stream (ErrNoViewer, ErrWatchOnly): then nothing changes. It returns the
// lease's expiry and the stream that holds it.
func (l *leases) takeOver(agent, surface string, pick func() (stream, name string, err error)) (time.Time, string, error) {
	now := time.Now()
	var evs []leaseEvent
	l.mu.Lock()
	stream, name, err := pick()
	if err == nil && stream == "" {
		err = ErrNoViewer
	}
	if err != nil {
		l.mu.Unlock()
		return time.Time{}, "", err
	}
	cur := l.m[agent]
	if cur != nil && cur.surface == surface && cur.stream == stream {
		l.renewLocked(agent, cur, now)
		l.mu.Unlock()
		return cur.expires, stream, nil
	}
	if cur != nil {
		cur.timer.Stop()
		evs = append(evs, leaseEvent{Type: eventHandedBack, Agent: agent, Surface: cur.surface, Stream: cur.stream, Name: cur.name, Reason: reasonMoved, At: now})
	}
	nl := &lease{surface: surface, stream: stream, name: name, since: now}
	l.m[agent] = nl
	l.renewLocked(agent, nl, now)
	evs = append(evs, leaseEvent{Type: eventTakenOver, Agent: agent, Surface: surface, Stream: stream, Name: name, At: now})
	exp := nl.expires
	l.publishLocked(evs)
	l.mu.Unlock()
	l.changed(agent)
	return exp, stream, nil
}

// adopt moves agent's lease, held by another stream of surface that
// gone reports closed, to stream (named name): a reloaded page keeps its
// keyboard.
func (l *leases) adopt(agent, surface, stream, name string, gone func(held string) bool) {
	l.mu.Lock()
	cur := l.m[agent]
	if cur == nil || cur.surface != surface || cur.stream == stream || !gone(cur.stream) {
		l.mu.Unlock()
		return
	}
	cur.stream, cur.name = stream, name
	l.publishLocked([]leaseEvent{{Type: eventTakenOver, Agent: agent, Surface: surface, Stream: stream, Name: name, Reason: reasonReopened, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
}

// endIf hands agent's keyboard back with reason when orphan, run under the
// table's lock with the holder's surface and stream, reports true.
func (l *leases) endIf(agent, reason string, orphan func(surface, stream string) bool) bool {
	l.mu.Lock()
	cur := l.m[agent]
	if cur == nil || !orphan(cur.surface, cur.stream) {
		l.mu.Unlock()
		return false
	}
	cur.timer.Stop()
	delete(l.m, agent)
	l.publishLocked([]leaseEvent{{Type: eventHandedBack, Agent: agent, Surface: cur.surface, Stream: cur.stream, Name: cur.name, Reason: reason, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
	return true
}

func (l *leases) renewLocked(agent string, ls *lease, now time.Time) {
	ls.expires = now.Add(l.ttl)
	if ls.timer != nil {
		ls.timer.Stop()
	}
	ls.timer = time.AfterFunc(l.ttl, func() { l.expire(agent, ls) })
}

func (l *leases) expire(agent string, ls *lease) {
	l.mu.Lock()
	if l.m[agent] != ls || time.Now().Before(ls.expires) {
		l.mu.Unlock()
		return
	}
	delete(l.m, agent)
	l.publishLocked([]leaseEvent{{Type: eventHandedBack, Agent: agent, Surface: ls.surface, Stream: ls.stream, Name: ls.name, Reason: reasonExpired, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
}

// Renew extends surface's take-over of agent, whichever of its streams
// holds it; ErrNotHolder if it has none.
func (l *leases) Renew(agent, surface string) (time.Time, error) {
	return l.renew(agent, surface, "", nil)
}

// renew extends the take-over held by stream of surface ("" : whichever
// stream holds it): ErrNotHolder if they do not hold it, ErrNoViewer if open
// (run under the lock with the holding stream) reports it closed.
func (l *leases) renew(agent, surface, stream string, open func(held string) bool) (time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.m[agent]
	if cur == nil || cur.surface != surface || (stream != "" && cur.stream != stream) {
		return time.Time{}, ErrNotHolder
	}
	if open != nil && !open(cur.stream) {
		return time.Time{}, ErrNoViewer
	}
	l.renewLocked(agent, cur, time.Now())
	return cur.expires, nil
}

// GiveBack ends surface's take-over of agent; ErrNotHolder if it has none.
func (l *leases) GiveBack(agent, surface string) error {
	return l.giveBackStream(agent, surface, "")
}

// giveBackStream ends the take-over of agent held by stream of surface
// ("": whichever stream of it holds it); ErrNotHolder if they do not.
func (l *leases) giveBackStream(agent, surface, stream string) error {
	l.mu.Lock()
	cur := l.m[agent]
	if cur == nil || cur.surface != surface || (stream != "" && cur.stream != stream) {
		l.mu.Unlock()
		return ErrNotHolder
	}
	cur.timer.Stop()
	delete(l.m, agent)
	l.publishLocked([]leaseEvent{{Type: eventHandedBack, Agent: agent, Surface: surface, Stream: cur.stream, Name: cur.name, Reason: reasonGiveBack, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
	return nil
}

// Holder returns the surface holding agent's keyboard, if any.
func (l *leases) Holder(agent string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur := l.m[agent]; cur != nil {
		return cur.surface, true
	}
	return "", false
}

// holding returns a copy of agent's lease, if one is held.
func (l *leases) holding(agent string) (Holding, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur := l.m[agent]; cur != nil {
		return Holding{Surface: cur.surface, Stream: cur.stream, Name: cur.name, Since: cur.since}, true
	}
	return Holding{}, false
}

// holds reports whether the viewer stream of surface holds agent's keyboard.
func (l *leases) holds(agent, surface, stream string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[agent].holds(surface, stream)
}

// CheckAgentInput is for the agent's own input tools: nil while no person
// holds the keyboard, else a *KeyboardHeldError naming the holder.
func (l *leases) CheckAgentInput(agent string) error {
	if s, ok := l.Holder(agent); ok {
		return &KeyboardHeldError{Agent: agent, Surface: s}
	}
	return nil
}

// Subscribe returns a channel of lease events (buffered by buf) and a
// function that ends the subscription. A subscriber is never waited for: one
// whose channel is full when an event comes has fallen behind, and its
// channel is closed (after the events it holds) instead, so it learns that
// it missed events rather than missing them silently.
func (l *leases) Subscribe(buf int) (<-chan leaseEvent, func()) {
	ch := make(chan leaseEvent, buf)
	l.mu.Lock()
	id := l.nextSub
	l.nextSub++
	l.subs[id] = ch
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, open := l.subs[id]; open {
			delete(l.subs, id)
			close(ch)
		}
	}
}

// Dropped counts subscriptions ended because they fell behind.
func (l *leases) Dropped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

func (l *leases) publishLocked(evs []leaseEvent) {
	for _, ev := range evs {
		l.onEvent(ev)
		for id, ch := range l.subs {
			select {
			case ch <- ev:
			default:
				delete(l.subs, id)
				close(ch)
				l.dropped++
			}
		}
	}
}

func (l *leases) changed(agent string) {
	if l.onChange != nil {
		l.onChange(agent)
	}
}
