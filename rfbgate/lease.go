package rfbgate

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lease event types.
const (
	EventTakenOver  = "computer.taken-over"
	EventHandedBack = "computer.handed-back"
)

// Reasons a keyboard was handed back.
const (
	ReasonGiveBack = "giveback" // the holder gave it back
	ReasonExpired  = "expired"  // no renewal within the lease TTL
	ReasonMoved    = "moved"    // another surface took over
)

// DefaultLeaseTTL is how long a take-over lasts after its last renewal.
const DefaultLeaseTTL = 90 * time.Second

// ErrNotHolder: the surface does not hold that computer's keyboard.
var ErrNotHolder = errors.New("surface does not hold the keyboard")

// KeyboardHeldError refuses an agent's own input while a person holds the
// keyboard; it names who does.
type KeyboardHeldError struct {
	Agent, Surface string
}

// Error names the holder.
func (e *KeyboardHeldError) Error() string {
	return fmt.Sprintf("rfbgate: computer %s: keyboard held by surface %s", e.Agent, e.Surface)
}

// LeaseEvent is one change of who holds a computer's keyboard.
type LeaseEvent struct {
	Type    string    `json:"type"`
	Agent   string    `json:"agent"`
	Surface string    `json:"surface"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at"`
}

type lease struct {
	surface string
	expires time.Time
	timer   *time.Timer
}

// Leases records which surface holds each computer's keyboard. It is safe
// for concurrent use. A take-over expires ttl after its last renewal.
type Leases struct {
	mu       sync.Mutex
	ttl      time.Duration
	m        map[string]*lease
	subs     map[int]chan LeaseEvent
	nextSub  int
	dropped  uint64
	onChange func(agent string)
}

// NewLeases returns an empty lease table; ttl <= 0 takes DefaultLeaseTTL.
// onChange, if not nil, runs (outside the lock) after every change of holder.
func NewLeases(ttl time.Duration, onChange func(agent string)) *Leases {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &Leases{ttl: ttl, m: make(map[string]*lease), subs: make(map[int]chan LeaseEvent), onChange: onChange}
}

// TTL is the lease lifetime after a renewal.
func (l *Leases) TTL() time.Duration { return l.ttl }

// TakeOver gives agent's keyboard to surface (moving it from another surface
// if one holds it) and returns when the lease expires unless renewed.
func (l *Leases) TakeOver(agent, surface string) time.Time {
	now := time.Now()
	var evs []LeaseEvent
	l.mu.Lock()
	cur := l.m[agent]
	if cur != nil && cur.surface == surface {
		l.renewLocked(agent, cur, now)
		l.mu.Unlock()
		return cur.expires
	}
	if cur != nil {
		cur.timer.Stop()
		evs = append(evs, LeaseEvent{Type: EventHandedBack, Agent: agent, Surface: cur.surface, Reason: ReasonMoved, At: now})
	}
	nl := &lease{surface: surface}
	l.m[agent] = nl
	l.renewLocked(agent, nl, now)
	evs = append(evs, LeaseEvent{Type: EventTakenOver, Agent: agent, Surface: surface, At: now})
	exp := nl.expires
	l.publishLocked(evs)
	l.mu.Unlock()
	l.changed(agent)
	return exp
}

func (l *Leases) renewLocked(agent string, ls *lease, now time.Time) {
	ls.expires = now.Add(l.ttl)
	if ls.timer != nil {
		ls.timer.Stop()
	}
	ls.timer = time.AfterFunc(l.ttl, func() { l.expire(agent, ls) })
}

func (l *Leases) expire(agent string, ls *lease) {
	l.mu.Lock()
	if l.m[agent] != ls || time.Now().Before(ls.expires) {
		l.mu.Unlock()
		return
	}
	delete(l.m, agent)
	l.publishLocked([]LeaseEvent{{Type: EventHandedBack, Agent: agent, Surface: ls.surface, Reason: ReasonExpired, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
}

// Renew extends surface's take-over of agent; ErrNotHolder if it has none.
func (l *Leases) Renew(agent, surface string) (time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.m[agent]
	if cur == nil || cur.surface != surface {
		return time.Time{}, ErrNotHolder
	}
	l.renewLocked(agent, cur, time.Now())
	return cur.expires, nil
}

// GiveBack ends surface's take-over of agent; ErrNotHolder if it has none.
func (l *Leases) GiveBack(agent, surface string) error {
	l.mu.Lock()
	cur := l.m[agent]
	if cur == nil || cur.surface != surface {
		l.mu.Unlock()
		return ErrNotHolder
	}
	cur.timer.Stop()
	delete(l.m, agent)
	l.publishLocked([]LeaseEvent{{Type: EventHandedBack, Agent: agent, Surface: surface, Reason: ReasonGiveBack, At: time.Now()}})
	l.mu.Unlock()
	l.changed(agent)
	return nil
}

// Holder returns the surface holding agent's keyboard, if any.
func (l *Leases) Holder(agent string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur := l.m[agent]; cur != nil {
		return cur.surface, true
	}
	return "", false
}

// CheckAgentInput is for the agent's own input tools: nil while no person
// holds the keyboard, else a *KeyboardHeldError naming the holder.
func (l *Leases) CheckAgentInput(agent string) error {
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
func (l *Leases) Subscribe(buf int) (<-chan LeaseEvent, func()) {
	ch := make(chan LeaseEvent, buf)
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
func (l *Leases) Dropped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

func (l *Leases) publishLocked(evs []LeaseEvent) {
	for _, ev := range evs {
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

func (l *Leases) changed(agent string) {
	if l.onChange != nil {
		l.onChange(agent)
	}
}
