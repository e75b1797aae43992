package rfbgate

import (
	"testing"
	"time"
)

// simLink is a bottleneck link for the pacer's tests: updates leave in
// order at rate bytes a second after whatever is ahead of them, reach the
// viewer delay later, and its acknowledgement takes delay back.
type simLink struct {
	rate  float64
	delay time.Duration
	free  time.Time // when the bottleneck is free
	acks  []time.Time
}

// send puts n bytes on the link at now and schedules their
// acknowledgement.
func (l *simLink) send(now time.Time, n int) {
	start := now
	if l.free.After(start) {
		start = l.free
	}
	l.free = start.Add(time.Duration(float64(n) / l.rate * float64(time.Second)))
	l.acks = append(l.acks, l.free.Add(2*l.delay))
}

// runPacer keeps the link as busy as p lets it for d (updates of the
// pacer's chunk, sent whenever its room has one), from start, and returns
// the largest number of bytes in flight it allowed after the first
// seconds.
func runPacer(p *pacer, l *simLink, start time.Time, d time.Duration) (maxInflight int) {
	now := start
	for now.Before(start.Add(d)) {
		for len(l.acks) > 0 && !l.acks[0].After(now) {
			p.onAck(l.acks[0])
			l.acks = l.acks[1:]
		}
		for room := p.room(0, now); room > 0; room = p.room(0, now) {
			n := min(p.chunk(), max(room, 1024))
			p.onSend(n, now, false)
			l.send(now, n)
		}
		if now.Sub(start) > 3*time.Second && !p.probing(now) {
			maxInflight = max(maxInflight, p.inflight)
		}
		now = now.Add(time.Millisecond)
	}
	return maxInflight
}

// TestPacerLearnsTheLink: on links from a phone's to a LAN's, a pacer that
// keeps its link busy measures the link's rate and round trip, and keeps
// no more than about one and a half round trips of the link, and a
// chunk, in flight (the queue stays in glass).
func TestPacerLearnsTheLink(t *testing.T) {
	for _, c := range []struct {
		name  string
		rate  float64
		delay time.Duration
	}{
		{"phone 2 Mbit/s 40 ms", 250e3, 40 * time.Millisecond},
		{"10 Mbit/s 20 ms", 1.25e6, 20 * time.Millisecond},
		{"LAN 100 Mbit/s 1 ms", 12.5e6, time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Unix(1e9, 0)
			p := newPacer(start)
			l := &simLink{rate: c.rate, delay: c.delay}
			most := runPacer(p, l, start, 20*time.Second)
			rate, rtt := p.link()
			bdp := c.rate * (2 * c.delay).Seconds()
			t.Logf("rate %.0f B/s (link %.0f), round trip %v (link %v), most in flight %d (BDP %.0f), startup %v",
				rate, c.rate, rtt, 2*c.delay, most, bdp, p.startup)
			if rate < 0.9*c.rate || rate > 1.5*c.rate {
				t.Errorf("measured rate %.0f B/s on a link of %.0f", rate, c.rate)
			}
			if rtt < 2*c.delay || rtt > 2*c.delay+2*time.Millisecond+time.Duration(float64(p.chunk())/c.rate*float64(time.Second)) {
				t.Errorf("measured round trip %v on a link of %v", rtt, 2*c.delay)
			}
			// (a round trip counts an update's own time on the link, and the
			// window a chunk more: see pacer.window)
			if limit := max(1.6*rate*rtt.Seconds()+2*float64(p.chunk()), 2*pacerWindowMin); float64(most) > limit {
				t.Errorf("%d bytes in flight, over %.0f (BDP %.0f)", most, limit, bdp)
			}
			if p.startup {
				t.Errorf("still in startup after 20 s")
			}
		})
	}
}

// TestPacerProbesRTT: a link kept busy for longer than pacerRTTWindow is
// drained (the window falls to pacerProbeWindow) and its round trip
// measured again; when the path's round trip grew meanwhile, the pacer
// takes the new one.
func TestPacerProbesRTT(t *testing.T) {
	start := time.Unix(1e9, 0)
	p := newPacer(start)
	l := &simLink{rate: 250e3, delay: 20 * time.Millisecond}
	runPacer(p, l, start, 5*time.Second)
	// (an update's round trip includes its own bytes' time on the link)
	if _, rtt := p.link(); rtt > 40*time.Millisecond+time.Duration(float64(pacerChunkMin)/l.rate*float64(time.Second))+2*time.Millisecond {
		t.Fatalf("round trip %v on a 40 ms link", rtt)
	}
	l.delay = 50 * time.Millisecond // the path got longer
	probed := false
	now := start.Add(5 * time.Second)
	for end := now.Add(20 * time.Second); now.Before(end); now = now.Add(time.Millisecond) {
		for len(l.acks) > 0 && !l.acks[0].After(now) {
			p.onAck(l.acks[0])
			l.acks = l.acks[1:]
		}
		if p.window(now) == pacerProbeWindow {
			probed = true
		}
		for room := p.room(0, now); room > 0; room = p.room(0, now) {
			n := min(p.chunk(), max(room, 1024))
			p.onSend(n, now, false)
			l.send(now, n)
		}
	}
	if !probed {
		t.Fatal("the pacer never drained the link to measure its round trip")
	}
	if _, rtt := p.link(); rtt < 100*time.Millisecond || rtt > 140*time.Millisecond {
		t.Fatalf("round trip %v after the path grew to 100 ms", rtt)
	}
}

// TestPacerAckBeforeWrite: an acknowledgement that comes before the
// writer saw its write done still finds its update (onSend is recorded
// before the write), and an acknowledgement of nothing is refused.
func TestPacerAckBeforeWrite(t *testing.T) {
	now := time.Unix(1e9, 0)
	p := newPacer(now)
	if p.onAck(now) {
		t.Fatal("acknowledged an update never sent")
	}
	seq := p.onSend(1000, now, false)
	if !p.onAck(now.Add(10 * time.Millisecond)) {
		t.Fatal("the acknowledgement did not find the update")
	}
	p.sentAt(seq, now.Add(20*time.Millisecond)) // the write returns after: nothing to do
	if p.inflight != 0 || len(p.sent) != 0 {
		t.Fatalf("in flight %d bytes, %d updates", p.inflight, len(p.sent))
	}
}

// TestWinFilter: the filter keeps the best sample of the last window and
// forgets older ones.
func TestWinFilter(t *testing.T) {
	now := time.Unix(1e9, 0)
	var f winFilter
	f.update(now, time.Second, 5)
	f.update(now.Add(100*time.Millisecond), time.Second, 9)
	f.update(now.Add(600*time.Millisecond), time.Second, 3)
	if got := f.get(); got != 9 {
		t.Fatalf("max %v, want 9", got)
	}
	if got := f.update(now.Add(2*time.Second), time.Second, 4); got != 4 {
		t.Fatalf("after the window: max %v, want 4", got)
	}
	m := winFilter{min: true}
	m.update(now, time.Second, 5)
	if got := m.update(now.Add(10*time.Millisecond), time.Second, 2); got != 2 {
		t.Fatalf("min %v, want 2", got)
	}
}
