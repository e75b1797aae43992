package rfbgate

// leaseEventBuffer is how many lease events the relay's own log and
// metrics subscriber may fall behind before it resubscribes (and says so).
const leaseEventBuffer = 1024

// watchLeases logs every lease change (one record each, with its cause)
// and counts it, until the relay closes. It subscribes before returning,
// so no change after NewRelay is missed.
func (r *Relay) watchLeases() {
	ch, cancel := r.leases.Subscribe(leaseEventBuffer)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			select {
			case <-r.ctx.Done():
				cancel()
				return
			case ev, ok := <-ch:
				if !ok {
					r.log.Warn("rfbgate: lease log fell behind; some lease changes were not logged or counted", "behind", leaseEventBuffer)
					ch, cancel = r.leases.Subscribe(leaseEventBuffer)
					continue
				}
				r.logLease(ev)
				r.metrics.leaseChanged(ev)
			}
		}
	}()
}

// logLease writes the record of one lease change.
func (r *Relay) logLease(ev leaseEvent) {
	cause := leaseCause(ev)
	if cause == "" {
		cause = ev.Reason
	}
	r.log.Info("rfbgate: keyboard lease "+ev.Type, "agent", ev.Agent, "surface", ev.Surface, "cause", cause)
}
