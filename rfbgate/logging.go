package rfbgate

// leaseChanged logs one lease change (one record each, with its cause)
// and counts it. The lease table calls it for every event it publishes,
// under its lock: it must not block or call back into the table.
func (r *Relay) leaseChanged(ev leaseEvent) {
	cause := leaseCause(ev)
	r.metrics.leaseChanged(ev.Agent, cause)
	if cause == "" {
		cause = ev.Reason
	}
	r.log.Info("rfbgate: keyboard lease "+ev.Type, "agent", ev.Agent, "surface", ev.Surface, "cause", cause)
}
