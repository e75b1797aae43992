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
	ErrTicketUnknown    = errors.New("ticket unknown")
	ErrTicketReused     = errors.New("ticket already used: a ticket opens one viewer, once")
	ErrTicketExpired    = errors.New("ticket expired")
	ErrTicketWrongAgent = errors.New("ticket was issued for another computer")
	ErrTooManyTickets   = errors.New("too many outstanding tickets")
)

// DefaultTicketTTL is how long a watch ticket lives.
const DefaultTicketTTL = 30 * time.Second

// ticketBytes is the random part of a ticket: 192 bits.
const ticketBytes = 24

// maxTickets bounds outstanding tickets, and the used ones remembered (so
// that a second presentation is told "used" rather than "unknown").
const maxTickets = 10000

// Ticket is a one-use permission to open one viewer on one computer, with
// the access and the name its Grant gives.
type Ticket struct {
	Token string // 32 URL-safe characters, 192 random bits
	Agent string // the computer it opens
	Grant
	ExpiresAt time.Time // after this the ticket is refused
}

// newToken is 192 random bits as 32 URL-safe characters.
func newToken() (string, error) {
	var b [ticketBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// tickets issues and redeems watch tickets. It is safe for concurrent use.
type tickets struct {
	mu    sync.Mutex
	ttl   time.Duration
	now   func() time.Time
	m     map[string]Ticket
	spent map[string]time.Time // used tokens -> their expiry: a replay is "used", not "unknown"

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
	return &tickets{ttl: ttl, now: now, m: make(map[string]Ticket), spent: make(map[string]time.Time)}
}

// Issue returns a new ticket bound to agent and g (checked by the caller).
func (t *tickets) Issue(agent string, g Grant) (Ticket, error) {
	tok, err := newToken()
	if err != nil {
		return Ticket{}, err
	}
	now := t.now()
	tk := Ticket{Token: tok, Agent: agent, Grant: g.withDefaults(), ExpiresAt: now.Add(t.ttl)}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Sweep expired tickets now and then: every 256 issues, and before refusing.
	if t.issued++; t.issued%256 == 0 || len(t.m) >= maxTickets {
		t.sweepLocked(now)
	}
	if len(t.m) >= maxTickets {
		return Ticket{}, ErrTooManyTickets
	}
	t.m[tk.Token] = tk
	return tk, nil
}

func (t *tickets) sweepLocked(now time.Time) {
	for k, v := range t.m {
		if now.After(v.ExpiresAt) {
			delete(t.m, k)
		}
	}
	for k, exp := range t.spent {
		if now.After(exp) {
			delete(t.spent, k)
		}
	}
}

// Redeem uses up a ticket. agent, when not empty, must be the ticket's
// computer. Any presentation uses the ticket, even a refused one; a ticket
// presented again before it would have expired is ErrTicketReused.
func (t *tickets) Redeem(token, agent string) (Ticket, error) {
	now := t.now()
	t.mu.Lock()
	tk, ok := t.m[token]
	delete(t.m, token)
	_, used := t.spent[token]
	if ok && len(t.spent) < maxTickets {
		t.spent[token] = tk.ExpiresAt
	}
	t.mu.Unlock()
	switch {
	case !ok && used:
		return Ticket{}, ErrTicketReused
	case !ok:
		return Ticket{}, ErrTicketUnknown
	case now.After(tk.ExpiresAt):
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
