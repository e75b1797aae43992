package session

import (
	"slices"
	"time"

	"github.com/wirebench/wirebench/codec"
)

// sequence tracks one stream's sequence numbers on the host. Every stream
// numbers its events from 1 on each connection. A lossless stream must
// go up by one each time; any other number puts it out of sync until a
// resync names the number it is in sync from. A lossy stream must only
// go up; the numbers it skips are dropped frames.
type sequence struct {
	lossy   bool
	next    uint64 // the number due next (lossless) or the lowest acceptable (lossy)
	inSync  bool
	dropped uint64 // numbers reported dropped so far
}

func newSequence(s codec.Stream) sequence {
	return sequence{lossy: s.Lossy(), next: 1, inSync: true}
}

// verdict is what the host does with one event.
type verdict struct {
	deliver  bool
	gap      uint64 // lossy: numbers skipped before this one, from gapFrom
	gapFrom  uint64
	lostSync bool   // lossless: this event put the stream out of sync
	want     uint64 // with lostSync: the number that was due
}

// observe classifies the event numbered seq.
func (s *sequence) observe(seq uint64) verdict {
	if s.lossy {
		if seq < s.next {
			s.dropped++
			return verdict{}
		}
		v := verdict{deliver: true, gap: seq - s.next, gapFrom: s.next}
		s.dropped += v.gap
		s.next = seq + 1
		return v
	}
	if !s.inSync {
		s.dropped++
		return verdict{}
	}
	if seq == s.next {
		s.next++
		return verdict{deliver: true}
	}
	s.inSync = false
	s.dropped++
	return verdict{lostSync: true, want: s.next}
}

// resynced puts the stream in sync from number from on.
func (s *sequence) resynced(from uint64) {
	s.next = from
	s.inSync = true
}

// seqs is the set of streams a host has seen, created on first sight.
type seqs struct {
	m     map[codec.Stream]*streamState
	order []codec.Stream // the keys of m, ascending, for a deterministic walk
}

// streamState is a stream's sequence and its resync.
type streamState struct {
	seq sequence
	// resyncID is the resync request in flight for the stream (0: none);
	// explicit says the caller asked for it with Host.Resync.
	resyncID uint64
	explicit bool
	failures int       // automatic resync failures in a row
	retryAt  time.Time // when the next automatic resync goes out, if retry
	retry    bool
}

func (q *seqs) get(s codec.Stream) *streamState {
	if q.m == nil {
		q.m = make(map[codec.Stream]*streamState)
	}
	st := q.m[s]
	if st == nil {
		st = &streamState{seq: newSequence(s)}
		q.m[s] = st
		i, _ := slices.BinarySearch(q.order, s)
		q.order = slices.Insert(q.order, i, s)
	}
	return st
}
