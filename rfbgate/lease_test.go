package rfbgate

import "time"

// TakeOver gives agent's keyboard to stream of surface, whether or not it
// is open (the relay's take-over checks that: Relay.TakeOver), moving it
// from another holder if one holds it, and returns when the lease expires
// unless renewed.
func (l *leases) TakeOver(agent, surface, stream string) time.Time {
	exp, _, _ := l.takeOver(agent, surface, func() (string, string, error) { return stream, "", nil })
	return exp
}
