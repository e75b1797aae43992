package rfbgate

// tcpLink is what the kernel knows of a viewer's TCP connection
// (TCP_INFO; downstream.link).
type tcpLink struct {
	rttUS      uint32 // smoothed round trip, µs
	minRTTUS   uint32 // the least round trip seen, µs
	rateBps    uint64 // delivery rate, bytes a second
	notsent    uint32 // bytes not yet sent
	unacked    uint32 // segments in flight
	sndCwnd    uint32 // congestion window, segments
	bytesAcked uint64
}
