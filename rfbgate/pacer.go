package rfbgate

import (
	"math"
	"time"
)

// pacer is what glass knows of one shared viewer's link, learnt from the
// viewer itself: noVNC asks for the next update (an incremental
// FramebufferUpdateRequest) as soon as it has read one whole, so each
// request acknowledges the oldest update glass sent and the viewer had
// not yet acknowledged. From that it measures, as BBR does from TCP's
// acknowledgements, the round trip (an update's send to its
// acknowledgement, at its least) and the delivery rate (bytes
// acknowledged over the time they took), whatever lies between glass and
// the browser: a reverse proxy's buffers, a tailnet, a phone's radio.
//
// From those it keeps the bytes in flight (sent, not acknowledged) to a
// quarter more than one round trip of the link's rate (its window), so
// that the queue stays in glass, where what a viewer owes is a region of
// the screen, sent fresh when the link can take it, and not a list of
// stale updates in sockets. While the rate it knows grows as fast as it
// can send (the start, or a link that got faster), it lets twice that in
// flight, to find the link's rate. A link kept busy never shows its bare
// round trip (every update waits behind the ones before it), so when the
// least round trip it knows is older than pacerRTTWindow it lets the
// link drain for a moment (pacerProbe) and measures it again, as BBR's
// ProbeRTT does.
//
// A pacer is not safe for concurrent use (the shareViewer's mu guards it).
type pacer struct {
	sent      []sentUpdate // in flight, oldest first
	inflight  int          // bytes of sent
	delivered int64        // bytes acknowledged so far
	lastAck   time.Time    // when the last acknowledgement came (or the first send)
	firstTx   time.Time    // when the update acknowledged last was sent
	rate      winFilter    // the most delivery rate, bytes a second, over pacerRateWindow
	big       winFilter    // the largest update sent, over pacerBigWindow
	// rtt is the least round trip seen since rttAt, when it was last
	// measured on a link with (almost) nothing in flight. probeFrom is
	// when the pacer began to drain the link to measure it again (zero:
	// not probing), drained when it had, and probeRTT the least round
	// trip of an update sent on the drained link.
	rtt       time.Duration
	rttAt     time.Time
	probeFrom time.Time
	drained   time.Time
	probeRTT  time.Duration
	// bound is when the link last bounded what was sent: an update went
	// while the viewer had more to send, so its rate is the link's, not
	// the screen's.
	bound time.Time
	// full is the delivery rate at which startup last grew by a quarter;
	// rounds counts the rounds since.
	full    float64
	rounds  int
	startup bool
	roundAt int64 // delivered at the start of this round
	acked   uint64
	seq     uint64 // updates sent
}

// sentUpdate is a FramebufferUpdate in flight.
type sentUpdate struct {
	seq       uint64
	n         int
	at        time.Time // when its last byte went into the socket
	delivered int64     // pacer.delivered then
	ackAt     time.Time // pacer.lastAck then
	firstTx   time.Time // pacer.firstTx then
	limited   bool      // the viewer had nothing more to send then (its rate sample is a floor)
	clean     bool      // sent on a link with (almost) nothing in flight: its round trip is the link's own
}

// Bounds of a pacer's estimates and window.
const (
	// pacerRTTWindow is how long the least round trip holds before the
	// pacer drains the link to measure it again.
	pacerRTTWindow = 10 * time.Second
	// pacerProbe is how long it keeps the link drained then (and at
	// least one round trip).
	pacerProbe = 200 * time.Millisecond
	// pacerProbeWindow is what it lets in flight meanwhile: an update of
	// a tile or two.
	pacerProbeWindow = 4 << 10
	// pacerRateWindow is how long a delivery rate sample counts.
	pacerRateWindow = 2 * time.Second
	// pacerBigWindow is how long the largest update sent counts, for a
	// link that keeps up (window).
	pacerBigWindow = time.Second
	// pacerWindowMin is the least a viewer may have in flight: a few
	// updates of a few tiles, whatever the link.
	pacerWindowMin = 16 << 10
	// pacerWindowMax bounds a viewer on the fastest link: it is a
	// viewer's queue in the network at most.
	pacerWindowMax = 16 << 20
	// pacerWindowStart is the window before the first estimate.
	pacerWindowStart = 64 << 10
	// pacerChunkMax bounds one FramebufferUpdate pulled from the screen:
	// noVNC shows an update only once it has all of it.
	pacerChunkMax = 256 << 10
	// pacerChunkMin is the least a pull may carry.
	pacerChunkMin = 8 << 10
	// pacerChunkTime is the time of the link a pull may take, at least.
	pacerChunkTime = 25 * time.Millisecond
	// pacerSentMax bounds the updates a pacer remembers in flight: a
	// viewer that stops asking is not sent more than this.
	pacerSentMax = 256
)

func newPacer(now time.Time) *pacer {
	return &pacer{lastAck: now, firstTx: now, startup: true}
}

// onSend records an update of n bytes about to be written into the
// socket, at now, and returns its number for sent; limited says that the
// viewer had nothing more to send. It is recorded before the write so
// that the viewer's acknowledgement, which may come back before the
// writer sees its write done, finds it.
func (p *pacer) onSend(n int, now time.Time, limited bool) uint64 {
	if len(p.sent) == 0 && now.Sub(p.lastAck) > p.rttOr(time.Second) {
		p.lastAck, p.firstTx = now, now // an idle link's rate counts from this send
	}
	p.seq++
	// Limited by the viewer, not the link: it had nothing more to send,
	// and the window had room for this (BBR's application-limited).
	limited = limited && p.inflight+n <= p.window(now)
	p.big.update(now, pacerBigWindow, float64(n))
	p.sent = append(p.sent, sentUpdate{seq: p.seq, n: n, at: now, delivered: p.delivered, ackAt: p.lastAck, firstTx: p.firstTx,
		limited: limited, clean: p.inflight <= pacerProbeWindow})
	p.inflight += n
	return p.seq
}

// sentAt records that update seq's last byte went into the socket at now
// (the write may have waited for room): its round trip counts from then.
func (p *pacer) sentAt(seq uint64, now time.Time) {
	for i := range p.sent {
		if p.sent[i].seq == seq {
			p.sent[i].at = now
			return
		}
	}
}

// onAck records the viewer's acknowledgement of its oldest update in
// flight; false when none was in flight (a request glass did not count).
func (p *pacer) onAck(now time.Time) bool {
	if len(p.sent) == 0 {
		return false
	}
	s := p.sent[0]
	p.sent[0] = sentUpdate{}
	p.sent = p.sent[1:]
	if len(p.sent) == 0 {
		p.sent = p.sent[:0:0]
	}
	p.inflight -= s.n
	p.delivered += int64(s.n)
	p.lastAck, p.firstTx = now, s.at
	p.acked++
	p.sampleRTT(now.Sub(s.at), now, s.clean)
	// The rate over the longer of the time the bytes took to be sent and
	// to be acknowledged: acknowledgements that come in a burst do not
	// make the link look faster than it sent.
	if span := max(now.Sub(s.ackAt), s.at.Sub(s.firstTx)); span > 0 {
		r := float64(p.delivered-s.delivered) / span.Seconds()
		if !s.limited || r > p.rate.get() {
			p.rate.update(now, pacerRateWindow, r)
		}
		if !s.limited && !p.startup { // (in startup the window bounds, not the link)
			p.bound = now
		}
	}
	// A round ends when what was sent at its start is acknowledged.
	if s.delivered >= p.roundAt {
		p.roundAt = p.delivered + int64(p.inflight)
		p.round()
	}
	return true
}

// round ends startup once three rounds have not grown the rate by a
// quarter (BBR's test for a full pipe).
func (p *pacer) round() {
	if !p.startup {
		return
	}
	r := p.rate.get()
	if r >= 1.25*p.full {
		p.full, p.rounds = r, 0
		return
	}
	if p.rounds++; p.rounds >= 3 {
		p.startup = false
	}
}

// rttOr is the least round trip known, or d when none is.
func (p *pacer) rttOr(d time.Duration) time.Duration {
	if p.rtt > 0 {
		return p.rtt
	}
	return d
}

// sampleRTT adds a round trip sample d, taken at now: an update's, or
// one measured elsewhere (a WebSocket ping); clean, when what was
// measured went on a link with (almost) nothing in flight. A new least is
// the round trip at once; a clean sample also renews the round trip when
// the one known is older than pacerRTTWindow (the path may have
// changed), and one taken while probing counts towards the probe's.
func (p *pacer) sampleRTT(d time.Duration, now time.Time, clean bool) {
	d = max(d, 50*time.Microsecond)
	if clean && !p.probeFrom.IsZero() && !p.drained.IsZero() && (p.probeRTT == 0 || d < p.probeRTT) {
		p.probeRTT = d
	}
	switch {
	case p.rtt == 0 || d <= p.rtt:
		p.rtt, p.rttAt = d, now
	case clean && p.probeFrom.IsZero() && now.Sub(p.rttAt) >= pacerRTTWindow:
		p.rtt, p.rttAt = d, now
	}
}

// probing reports whether the link is being drained to measure its round
// trip: it starts when the least round trip known is older than
// pacerRTTWindow, and ends pacerProbe (and at least one round trip)
// after the link has drained, once an update sent on the drained link
// has been acknowledged.
func (p *pacer) probing(now time.Time) bool {
	if p.rtt == 0 {
		return false
	}
	if p.probeFrom.IsZero() {
		if now.Sub(p.rttAt) < pacerRTTWindow {
			return false
		}
		p.probeFrom, p.drained, p.probeRTT = now, time.Time{}, 0
	}
	if p.drained.IsZero() && p.inflight <= pacerProbeWindow {
		p.drained = now
	}
	if p.drained.IsZero() || now.Sub(p.drained) < max(pacerProbe, p.rtt) || p.probeRTT == 0 {
		return true
	}
	p.rtt, p.rttAt, p.probeFrom = p.probeRTT, now, time.Time{}
	return false
}

// bdp is the link's rate times its round trip: the bytes that fill it.
func (p *pacer) bdp() float64 {
	r := p.rate.get()
	if r <= 0 || p.rtt <= 0 {
		return 0
	}
	return r * p.rtt.Seconds()
}

// window is how many bytes may be in flight at now: a quarter more than
// the link holds (twice in startup), and a chunk.
func (p *pacer) window(now time.Time) int {
	if p.probing(now) {
		return pacerProbeWindow
	}
	bdp := p.bdp()
	if bdp == 0 {
		return pacerWindowStart
	}
	gain := 1.25
	if p.startup {
		gain = 2
	}
	// (plus a chunk: an update is acknowledged only once all of it has
	// arrived, so the link stays busy only if the next is under way)
	w := max(gain*bdp+float64(p.chunk()), float64(2*p.chunk()), pacerWindowMin)
	if p.keepsUp(now) {
		// The rate it knows is what the screen needed, a floor of the
		// link's: room for the largest updates lately, so a viewer that
		// keeps up stays in step; if the link cannot take them, the
		// window bounds the next ones, and the rate they show is the
		// link's.
		w = max(w, 2*p.big.get()+float64(p.chunk()))
	}
	return int(min(w, pacerWindowMax))
}

// room is how many more bytes may go at now (queued counts as sent).
func (p *pacer) room(queued int, now time.Time) int { return p.window(now) - p.inflight - queued }

// chunk bounds one pulled update: half a round trip of the link, or
// pacerChunkTime of its rate where that is more (a viewer on a fast link
// whose round trip is all but nothing still takes what it can read in
// that time), so that a key's pixels never wait behind more than that,
// and a few updates keep the link busy while the first are acknowledged.
func (p *pacer) chunk() int {
	bdp := p.bdp()
	if bdp == 0 {
		// Small until the link is known: an update's round trip includes
		// the time its own bytes take, which on a slow link would make
		// the first round trips look long.
		return pacerChunkMin
	}
	return int(min(max(bdp/2, p.rate.get()*pacerChunkTime.Seconds(), pacerChunkMin), pacerChunkMax))
}

// fits reports whether an update of n bytes may go now: the window has
// room for it, or has room and the update takes at most pacerChunkTime
// on the link (an update is never cut, so one larger than the window
// would otherwise never go to a viewer whose round trip is tiny next to
// what it takes to read it: noVNC on the same host decoding JPEG).
func (p *pacer) fits(n, queued int, now time.Time) bool {
	room := p.room(queued, now)
	return p.inflight+queued == 0 || room >= n || room > 0 && float64(n) <= p.rate.get()*pacerChunkTime.Seconds()
}

// stuck reports whether the viewer has stopped acknowledging: it has the
// most updates in flight a pacer remembers.
func (p *pacer) stuck() bool { return len(p.sent) >= pacerSentMax }

// keepsUp reports whether the link has not bounded what the viewer was
// sent lately: its rate is then what the screen needed, not what the
// link can do.
func (p *pacer) keepsUp(now time.Time) bool { return now.Sub(p.bound) > pacerRateWindow }

// link is the pacer's estimates for the status, the page and metrics:
// the delivery rate in bytes a second and the round trip (0 when not
// measured yet).
func (p *pacer) link() (rate float64, rtt time.Duration) {
	return p.rate.get(), p.rtt
}

// winFilter keeps the least (min) or the most of the samples of the last
// window: the best of at most winBuckets buckets, each a quarter window
// long, so it takes no memory per sample.
type winFilter struct {
	min bool
	b   [winBuckets]winBucket
	n   int
}

const winBuckets = 5

type winBucket struct {
	start time.Time
	v     float64
}

// update adds sample v at now and returns the filter's value.
func (f *winFilter) update(now time.Time, win time.Duration, v float64) float64 {
	// Drop buckets that ended more than a window ago.
	k := 0
	for i := range f.n {
		if now.Sub(f.b[i].start) < win+win/4 {
			f.b[k] = f.b[i]
			k++
		}
	}
	f.n = k
	if f.n > 0 && now.Sub(f.b[f.n-1].start) < win/4 {
		last := &f.b[f.n-1]
		if f.better(v, last.v) {
			last.v = v
		}
	} else {
		if f.n == winBuckets {
			copy(f.b[:], f.b[1:])
			f.n--
		}
		f.b[f.n] = winBucket{start: now, v: v}
		f.n++
	}
	return f.get()
}

func (f *winFilter) better(a, b float64) bool {
	if f.min {
		return a < b
	}
	return a > b
}

// get is the best sample kept (0 when none is).
func (f *winFilter) get() float64 {
	if f.n == 0 {
		return 0
	}
	best := f.b[0].v
	for _, b := range f.b[1:f.n] {
		if f.better(b.v, best) {
			best = b.v
		}
	}
	if math.IsInf(best, 0) || math.IsNaN(best) {
		return 0
	}
	return best
}
