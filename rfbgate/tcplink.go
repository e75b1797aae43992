package rfbgate

// tcpLink is what the kernel knows of a viewer's TCP connection
// (TCP_INFO, read by kernelLink where the platform has it): the status
// shows it beside glass's own measure of the link, so an operator can see
// whether the two agree.
type tcpLink struct {
	rttUS   uint32 // smoothed round trip, µs
	rateBps uint64 // delivery rate, bytes a second
	notsent uint32 // bytes written and not yet sent
}

// kernelStatus fills vs's kernel fields from l.
func (l tcpLink) kernelStatus(vs *ViewerStatus) {
	vs.KernelRTTms = float64(l.rttUS) / 1e3
	vs.KernelRateBps = float64(l.rateBps) * 8
	vs.UnsentBytes = ptr(int64(l.notsent))
}
