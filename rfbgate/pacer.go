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
// From those it keeps the bytes in flight (sent, not acknowledged) to
// about one round trip of the link's rate, so that the queue stays in
// glass, where what a viewer owes is a region of the screen, sent fresh
// when the link can take it, and not a list of stale updates in sockets.
// While the rate it knows grows as fast as it can send (the start, or a
// link that got faster), it lets twice that in flight, to find the
// link's rate.
//
// A pacer is not safe for concurrent use (the shareViewer's mu guards it).
type pacer struct {
	sent      []sentUpdate // in flight, oldest first
	inflight  int          // bytes of sent
	delivered int64        // bytes acknowledged so far
	lastAck   time.Time    // when the last acknowledgement came (or the first send)
	firstTx   time.Time    // when the update acknowledged last was sent
	minRTT    winFilter    // the least round trip, over pacerRTTWindow
	rate      winFilter    // the most delivery rate, bytes a second, over pacerRateWindow
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
}

// Bounds of a pacer's estimates and window.
const (
	pacerRTTWindow  = 10 * time.Second
	pacerRateWindow = 2 * time.Second
	// pacerWindowMin is the least a viewer may have in flight: a
	// FramebufferUpdate of a few tiles, whatever the link.
	pacerWindowMin = 32 << 10
	// pacerWindowMax bounds a viewer on the fastest link: it is a
	// viewer's queue in the network at most.
	pacerWindowMax = 16 << 20
	// pacerWindowStart is the window before the first estimate.
	pacerWindowStart = 128 << 10
	// pacerChunkMax bounds one FramebufferUpdate pulled from the screen:
	// noVNC shows an update only once it has all of it.
	pacerChunkMax = 256 << 10
	// pacerChunkMin is the least a pull may carry.
	pacerChunkMin = 16 << 10
	// pacerSentMax bounds the updates a pacer remembers in flight: a
	// viewer that stops asking is not sent more than this.
	pacerSentMax = 256
)

func newPacer(now time.Time) *pacer {
	return &pacer{lastAck: now, firstTx: now, startup: true, minRTT: winFilter{min: true}}
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
	p.sent = append(p.sent, sentUpdate{seq: p.seq, n: n, at: now, delivered: p.delivered, ackAt: p.lastAck, firstTx: p.firstTx, limited: limited})
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
	rtt := now.Sub(s.at)
	p.minRTT.update(now, pacerRTTWindow, float64(max(rtt, 50*time.Microsecond)))
	// The rate over the longer of the time the bytes took to be sent and
	// to be acknowledged: acknowledgements that come in a burst do not
	// make the link look faster than it sent.
	if span := max(now.Sub(s.ackAt), s.at.Sub(s.firstTx)); span > 0 {
		r := float64(p.delivered-s.delivered) / span.Seconds()
		if !s.limited || r > p.rate.get() {
			p.rate.update(now, pacerRateWindow, r)
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

// rtt is the least round trip seen lately, or d when none was.
func (p *pacer) rttOr(d time.Duration) time.Duration {
	if v := p.minRTT.get(); v > 0 {
		return time.Duration(v)
	}
	return d
}

// sampleRTT adds a round trip measured elsewhere (a WebSocket ping).
func (p *pacer) sampleRTT(d time.Duration, now time.Time) {
	if d > 0 {
		p.minRTT.update(now, pacerRTTWindow, float64(d))
	}
}

// bdp is the link's rate times its round trip: the bytes that fill it.
func (p *pacer) bdp() float64 {
	r := p.rate.get()
	rtt := p.minRTT.get()
	if r <= 0 || rtt <= 0 {
		return 0
	}
	return r * rtt / 1e9
}

// window is how many bytes may be in flight.
func (p *pacer) window() int {
	bdp := p.bdp()
	if bdp == 0 {
		return pacerWindowStart
	}
	gain := 1.25
	if p.startup {
		gain = 2
	}
	return int(min(max(gain*bdp+float64(p.chunk()), pacerWindowMin), pacerWindowMax))
}

// room is how many more bytes may go now (queued counts as sent).
func (p *pacer) room(queued int) int { return p.window() - p.inflight - queued }

// chunk bounds one pulled update: about one round trip of the link, so
// that a key's pixels never wait behind more than that.
func (p *pacer) chunk() int {
	bdp := p.bdp()
	if bdp == 0 {
		return pacerChunkMin * 4
	}
	return int(min(max(bdp, pacerChunkMin), pacerChunkMax))
}

// stuck reports whether the viewer has stopped acknowledging: it has the
// most updates in flight a pacer remembers.
func (p *pacer) stuck() bool { return len(p.sent) >= pacerSentMax }

// link is the pacer's estimates for the status, the page and metrics:
// the delivery rate in bytes a second and the round trip (0 when not
// measured yet).
func (p *pacer) link() (rate float64, rtt time.Duration) {
	return p.rate.get(), time.Duration(p.minRTT.get())
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
