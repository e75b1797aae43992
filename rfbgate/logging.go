package rfbgate

// leaseChanged logs one lease change (one record each, with its cause and
// the holder's name), counts it and tells the pages of the computer's
// viewers. The lease table calls it for every event it publishes, under
// its lock: it must not block or call back into the table.
func (r *Relay) leaseChanged(ev leaseEvent) {
	cause := leaseCause(ev)
	r.metrics.leaseChanged(ev.Agent, cause)
	if cause == "" {
		cause = ev.Reason
	}
	attrs := []any{"agent", ev.Agent, "surface", ev.Surface}
	if ev.Name != "" {
		attrs = append(attrs, "name", ev.Name)
	}
	r.log.Info("rfbgate: keyboard lease "+ev.Type, append(attrs, "cause", cause)...)
	r.tellPages(ev)
}
