package rfbgate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Health is whether the relay last reached a computer's Xvnc, in words a
// page can show.
type Health struct {
	State  string `json:"computer"`                  // "up", "down" or "unknown" (not dialled yet)
	Reason string `json:"computer_reason,omitempty"` // why it is down
}

// Computer states.
const (
	stateUnknown = "unknown"
	stateUp      = "up"
	stateDown    = "down"
)

// health returns agent's last known state.
func (r *Relay) health(agent string) Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.healthOf[agent]; ok {
		return h
	}
	return Health{State: stateUnknown}
}

// setHealth records the outcome of a dial of agent: nil is up.
func (r *Relay) setHealth(agent string, err error) {
	h := Health{State: stateUp}
	if err != nil {
		h = Health{State: stateDown, Reason: dialFailure(err)}
	}
	r.mu.Lock()
	changed := r.healthOf[agent] != h
	r.healthOf[agent] = h
	r.healthAt[agent] = time.Now()
	r.mu.Unlock()
	if changed {
		r.statesChanged(agent)
	}
}

// reasonScreenEnded is why a computer is down after its screen stream
// ended, until glass reaches it again.
const reasonScreenEnded = "its screen stream ended (Xvnc stopped or restarted); glass has not reached it since"

// screenEnded marks agent down: the screen stream of a viewer opened at
// opened ended. A dial that succeeded after that viewer opened was of a
// later connection, and stands.
func (r *Relay) screenEnded(agent string, opened time.Time) {
	r.mu.Lock()
	mark := r.healthOf[agent].State == stateUp && !r.healthAt[agent].After(opened)
	if mark {
		r.healthOf[agent] = Health{State: stateDown, Reason: reasonScreenEnded}
		r.healthAt[agent] = time.Now()
	}
	r.mu.Unlock()
	if mark {
		r.statesChanged(agent)
	}
}

// dialFailure says in words why a dial failed for good.
func dialFailure(err error) string {
	var ce *connectError
	switch {
	case errors.Is(err, ErrAuthFailed):
		return "the computer refused glass's VNC password"
	case errors.As(err, &ce):
		return "glass cannot reach the computer's VNC server: " + ce.err.Error()
	}
	return "the computer's VNC server refused glass: " + err.Error()
}

// Check dials the computer named agent once, completes the RFB handshake
// and the VNC authentication, and hangs up. The error is one line naming
// the computer, its address and the cause; the outcome is what Status
// reports until a viewer dials again. A refused password holds off
// dialling as a viewer's refusal does.
func (r *Relay) Check(ctx context.Context, agent string) error {
	comp, ok := r.computers[agent]
	if !ok {
		return fmt.Errorf("rfbgate: computer %s: %w", agent, ErrUnknownComputer)
	}
	l := r.dialers[agent]
	if err := l.acquire(ctx); err != nil {
		return fmt.Errorf("rfbgate: computer %s (%s): %w", agent, comp.Addr, err)
	}
	server, _, err := r.dialOnce(ctx, comp, l, time.Now().Add(r.cfg.HandshakeTimeout))
	if err == nil {
		server.Close()
	}
	r.setHealth(agent, err)
	if err != nil {
		return fmt.Errorf("rfbgate: computer %s (%s): %s", agent, comp.Addr, dialFailure(err))
	}
	return nil
}

// Names lists the configured computers, sorted.
func (r *Relay) Names() []string { return append([]string(nil), r.names...) }
