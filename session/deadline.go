package session

import "time"

// timer is one armed deadline: at at, for the request with key id, armed
// by arming number gen. A timer whose request is gone, or whose id now
// names a later request (gen differs), is stale and skipped when it fires.
type timer struct {
	at  time.Time
	id  uint64
	gen uint64
}

// timers is a min-heap of timers by time. Cancelling is lazy: callers
// check a popped timer against their own table.
type timers struct {
	h []timer
}

func (t *timers) len() int { return len(t.h) }

func (t *timers) push(x timer) {
	t.h = append(t.h, x)
	for i := len(t.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !t.h[i].at.Before(t.h[p].at) {
			break
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

// peek returns the earliest timer.
func (t *timers) peek() (timer, bool) {
	if len(t.h) == 0 {
		return timer{}, false
	}
	return t.h[0], true
}

// pop removes and returns the earliest timer.
func (t *timers) pop() timer {
	top := t.h[0]
	n := len(t.h) - 1
	t.h[0] = t.h[n]
	t.h = t.h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && t.h[l].at.Before(t.h[m].at) {
			m = l
		}
		if r < n && t.h[r].at.Before(t.h[m].at) {
			m = r
		}
		if m == i {
			break
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
	return top
}

// next drops stale timers from the top (live reports whether a timer
// still counts) and returns the earliest live one's time.
func (t *timers) next(live func(timer) bool) (time.Time, bool) {
	for len(t.h) > 0 {
		if live(t.h[0]) {
			return t.h[0].at, true
		}
		t.pop()
	}
	return time.Time{}, false
}

// deadlineMS converts a relative deadline to the wire's milliseconds,
// rounding up so the agent never gives up before the caller asked.
func deadlineMS(d time.Duration) uint32 {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	if ms > 0xffffffff {
		return 0xffffffff
	}
	return uint32(ms)
}

// earliest returns the earlier of a and b, where ok says whether a time is
// set at all.
func earliest(a time.Time, aok bool, b time.Time, bok bool) (time.Time, bool) {
	switch {
	case !aok:
		return b, bok
	case !bok:
		return a, aok
	case b.Before(a):
		return b, true
	}
	return a, true
}
