package rfbgate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// The keyboard lives with its viewer: a take-over or renewal needs an open
// viewer stream of the surface, and when the holding stream closes the
// keyboard is handed back after LeaseGrace unless the surface opens a
// viewer again (a reload), which then inherits it.

// DefaultLeaseGrace is how long a keyboard outlives its holder's viewer
// stream, so that a reload keeps it; MaxLeaseGrace bounds Config.LeaseGrace.
const (
	DefaultLeaseGrace = 4 * time.Second
	MaxLeaseGrace     = 5 * time.Second
)

// streamID is the public name of the viewer stream a ticket opens: a page
// names its own stream in take-overs, so that of two tabs of one surface
// only the one that took over types. It reveals nothing of the ticket.
func streamID(token string) string {
	h := sha256.Sum256([]byte("rfbgate stream\x00" + token))
	return hex.EncodeToString(h[:8])
}

// streamOpenLocked reports whether agent has an open viewer of surface and,
// unless stream is "", of that stream. r.mu is held.
func (r *Relay) streamOpenLocked(agent, surface, stream string) bool {
	for v := range r.viewers[agent] {
		if v.surface == surface && (stream == "" || v.stream == stream) {
			return true
		}
	}
	return false
}

func (r *Relay) streamOpen(agent, surface, stream string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.streamOpenLocked(agent, surface, stream)
}

// TakeOver gives agent's keyboard to one open viewer stream of surface:
// stream when it names one, else the newest open viewer of the surface at
// this moment (the one opened last). Never to every tab of a surface: a
// keyboard is one stream, and a viewer of the surface opened later
// watches until it takes over itself (or inherits the keyboard as a reload
// within LeaseGrace). ErrUnknownComputer; ErrNoViewer when no such stream
// is open. It returns when the lease ends unless renewed.
func (r *Relay) TakeOver(agent, surface, stream string) (time.Time, error) {
	exp, _, err := r.takeOver(agent, surface, stream)
	return exp, err
}

// takeOver is TakeOver that also returns the stream given the keyboard.
func (r *Relay) takeOver(agent, surface, stream string) (time.Time, string, error) {
	if !r.Known(agent) {
		return time.Time{}, "", ErrUnknownComputer
	}
	return r.leases.takeOver(agent, surface, func() (string, string, error) { return r.pickStream(agent, surface, stream) })
}

// pickStream is the stream of surface a take-over naming stream gives the
// keyboard to, and its display name: stream itself if open, or for "" the
// newest open viewer of the surface; never a watch-only one.
// ErrWatchOnly when the stream named (or, for "", every open viewer of the
// surface) is watch-only; ErrNoViewer when there is none.
func (r *Relay) pickStream(agent, surface, stream string) (string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var newest *viewer
	watchOnly := false
	for v := range r.viewers[agent] {
		if v.surface != surface || (stream != "" && v.stream != stream) {
			continue
		}
		if v.access == AccessWatch {
			watchOnly = true
			continue
		}
		if newest == nil || v.seq > newest.seq {
			newest = v
		}
	}
	switch {
	case newest != nil:
		return newest.stream, newest.name, nil
	case watchOnly:
		return "", "", ErrWatchOnly
	}
	return "", "", ErrNoViewer
}

// Renew extends the take-over of agent by surface (and stream, if not
// ""): ErrNotHolder if they do not hold it, ErrNoViewer if the holding
// stream has closed (the keyboard is then handed back after LeaseGrace).
func (r *Relay) Renew(agent, surface, stream string) (time.Time, error) {
	if !r.Known(agent) {
		return time.Time{}, ErrUnknownComputer
	}
	return r.leases.renew(agent, surface, stream, func(held string) bool { return r.streamOpen(agent, surface, held) })
}

// GiveBack ends surface's take-over of agent: ErrNotHolder if it has none.
func (r *Relay) GiveBack(agent, surface string) error {
	if !r.Known(agent) {
		return ErrUnknownComputer
	}
	return r.leases.GiveBack(agent, surface)
}

// viewerOpened lets a new stream of the surface holding agent's keyboard
// inherit it when the holding stream has closed (a reload in the grace
// period), unless the new stream is watch-only.
func (r *Relay) viewerOpened(v *viewer) {
	if v.access == AccessWatch {
		return
	}
	r.leases.adopt(v.agent, v.surface, v.stream, v.name, func(held string) bool { return !r.streamOpen(v.agent, v.surface, held) })
}

// viewerClosed hands the keyboard back LeaseGrace after v closed, if by
// then the lease is still held by v's stream and it has not reopened.
// A closing relay hands nothing back: the lease table goes with it.
func (r *Relay) viewerClosed(v *viewer) {
	if r.ctx.Err() != nil || !r.leases.holds(v.agent, v.surface, v.stream) {
		return
	}
	// Say why honestly: the holder's page did not go away, its computer's
	// screen did (and the page did not come back in time).
	reason := reasonViewerClosed
	if _, _, why := v.closeStatus(); why == reasonServerEnded {
		reason = reasonComputerEnded
	}
	time.AfterFunc(r.cfg.LeaseGrace, func() {
		if r.ctx.Err() != nil {
			return
		}
		// Only the lease v held: one a reload passed to a new stream has
		// that stream's own grace period when it closes.
		// The hand-back is logged, with its cause, as every lease change is.
		r.leases.endIf(v.agent, reason, func(surface, stream string) bool {
			return surface == v.surface && stream == v.stream && !r.streamOpen(v.agent, surface, stream)
		})
	})
}

// CheckLeaseGrace reports whether d is a lease grace the relay takes:
// more than 0 and at most MaxLeaseGrace. NewRelay checks Config.LeaseGrace
// with it (after its zero took the default); a program can check a flag
// with it before it builds the relay.
func CheckLeaseGrace(d time.Duration) error {
	if d <= 0 || d > MaxLeaseGrace {
		return fmt.Errorf("lease grace %v: want more than 0 and at most %v", d, MaxLeaseGrace)
	}
	return nil
}
