package rfbgate

import (
	"sync"
	"time"
)

// A page opened from a one-use ticket link has no admin token, so it
// cannot mint a ticket when its stream closes (a reload, an Xvnc or
// network restart). Glass gives each stream that carries page events a
// resume credential of its own instead (the hello message): 192 random
// bits, bound to the stream's computer, surface, access and name, which
// opens one viewer with exactly those, once:
//
//   - it is good while its stream is open and for Config.ResumeWindow
//     after the stream closed, never longer;
//   - using it (even refused) uses it up, and the stream it opens gets
//     the next one, so a page keeps reconnecting for as long as it does so
//     within the window, and a credential copied from the page works at
//     most once, after which the page's own copy is refused ("used"): a
//     theft shows;
//   - it cannot change what the ticket granted: a watch-only link stays
//     watch-only, with its name, on its computer.
//
// It lives in glass's memory only: a restart of glass ends every link
// (the page then says to ask for a new one).

// DefaultResumeWindow is how long a resume credential outlives its stream.
const DefaultResumeWindow = 2 * time.Minute

// resumeCred is one resume credential.
type resumeCred struct {
	agent    string
	grant    Grant
	stream   string    // the stream it was given to
	closedAt time.Time // when that stream closed; zero while it is open
}

// resumes issues and redeems resume credentials. It is safe for
// concurrent use.
type resumes struct {
	mu       sync.Mutex
	window   time.Duration
	now      func() time.Time
	m        map[string]*resumeCred
	byStream map[string]string    // stream -> its credential
	spent    map[string]time.Time // used credentials -> when they could have expired at the latest
	closes   uint64
}

func newResumes(window time.Duration, now func() time.Time) *resumes {
	if window <= 0 {
		window = DefaultResumeWindow
	}
	if now == nil {
		now = time.Now
	}
	return &resumes{window: window, now: now, m: make(map[string]*resumeCred), byStream: make(map[string]string), spent: make(map[string]time.Time)}
}

// expired reports whether c can no longer be used at now.
func (s *resumes) expired(c *resumeCred, now time.Time) bool {
	return !c.closedAt.IsZero() && now.After(c.closedAt.Add(s.window))
}

// issue gives stream (of agent, with g) its credential.
func (s *resumes) issue(agent string, g Grant, stream string) (string, error) {
	tok, err := newToken()
	if err != nil {
		return "", err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxTickets {
		s.sweepLocked(now)
		if len(s.m) >= maxTickets {
			return "", ErrTooManyTickets
		}
	}
	s.m[tok] = &resumeCred{agent: agent, grant: g, stream: stream}
	s.byStream[stream] = tok
	return tok, nil
}

func (s *resumes) sweepLocked(now time.Time) {
	for k, c := range s.m {
		if s.expired(c, now) {
			delete(s.m, k)
			delete(s.byStream, c.stream)
		}
	}
	for k, exp := range s.spent {
		if now.After(exp) {
			delete(s.spent, k)
		}
	}
}

// closed starts the window of stream's credential: its stream has closed.
func (s *resumes) closed(stream string) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := s.byStream[stream]; ok {
		s.m[tok].closedAt = now
	}
	if s.closes++; s.closes%64 == 0 { // now and then, sweep those past their window
		s.sweepLocked(now)
	}
}

// redeem uses up a credential, as tickets.Redeem does a ticket.
func (s *resumes) redeem(token, agent string) (string, Grant, error) {
	now := s.now()
	s.mu.Lock()
	c, ok := s.m[token]
	_, used := s.spent[token]
	if ok {
		delete(s.m, token)
		delete(s.byStream, c.stream)
		if len(s.spent) < maxTickets {
			exp := now.Add(s.window) // the latest it could have lasted from now
			if !c.closedAt.IsZero() {
				exp = c.closedAt.Add(s.window)
			}
			s.spent[token] = exp
		}
	}
	s.mu.Unlock()
	switch {
	case !ok && used:
		return "", Grant{}, ErrTicketReused
	case !ok:
		return "", Grant{}, ErrTicketUnknown
	case s.expired(c, now):
		return "", Grant{}, ErrTicketExpired
	case agent != "" && agent != c.agent:
		return "", Grant{}, ErrTicketWrongAgent
	}
	return c.agent, c.grant, nil
}
