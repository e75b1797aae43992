package rfbgate

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"
	"time"
)

// Ticket errors; each makes the WebSocket upgrade answer HTTP 403.
var (
	ErrTicketUnknown    = errors.New("ticket unknown or already used")
	ErrTicketExpired    = errors.New("ticket expired")
	ErrTicketWrongAgent = errors.New("ticket was issued for another computer")
	ErrTooManyTickets   = errors.New("too many outstanding tickets")
)

// DefaultTicketTTL is how long a watch ticket lives.
const DefaultTicketTTL = 30 * time.Second

// ticketBytes is the random part of a ticket: 192 bits.
const ticketBytes = 24

// maxTickets bounds outstanding tickets.
const maxTickets = 10000

// Ticket is a one-use permission to open one viewer on one computer.
type Ticket struct {
	Token     string    // 32 URL-safe characters, 192 random bits
	Agent     string    // the computer it opens
	Surface   string    // the surface the viewer belongs to
	ExpiresAt time.Time // after this the ticket is refused
}

// tickets issues and redeems watch tickets. It is safe for concurrent use.
type tickets struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[string]Ticket

	issued uint64
}

// newTickets returns a ticket store; ttl <= 0 takes DefaultTicketTTL; now
// nil takes time.Now.
func newTickets(ttl time.Duration, now func() time.Time) *tickets {
	if ttl <= 0 {
		ttl = DefaultTicketTTL
	}
	if now == nil {
		now = time.Now
	}
	return &tickets{ttl: ttl, now: now, m: make(map[string]Ticket)}
}

// Issue returns a new ticket bound to agent and surface.
func (t *tickets) Issue(agent, surface string) (Ticket, error) {
	var b [ticketBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Ticket{}, err
	}
	now := t.now()
	tk := Ticket{Token: base64.RawURLEncoding.EncodeToString(b[:]), Agent: agent, Surface: surface, ExpiresAt: now.Add(t.ttl)}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Sweep expired tickets now and then: every 256 issues, and before refusing.
	if t.issued++; t.issued%256 == 0 || len(t.m) >= maxTickets {
		for k, v := range t.m {
			if now.After(v.ExpiresAt) {
				delete(t.m, k)
			}
		}
	}
	if len(t.m) >= maxTickets {
		return Ticket{}, ErrTooManyTickets
	}
	t.m[tk.Token] = tk
	return tk, nil
}

// Redeem uses up a ticket. agent, when not empty, must be the ticket's
// computer. Any presentation uses the ticket, even a refused one.
func (t *tickets) Redeem(token, agent string) (Ticket, error) {
	t.mu.Lock()
	tk, ok := t.m[token]
	delete(t.m, token)
	t.mu.Unlock()
	switch {
	case !ok:
		return Ticket{}, ErrTicketUnknown
	case t.now().After(tk.ExpiresAt):
		return Ticket{}, ErrTicketExpired
	case agent != "" && agent != tk.Agent:
		return Ticket{}, ErrTicketWrongAgent
	}
	return tk, nil
}

// Outstanding is the number of tickets issued and not yet redeemed or swept.
func (t *tickets) Outstanding() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
