package zerocopy

// A walk visits a node before its children, but canonical encoding puts a
// node's scroll, hint and state after its children array (and a window's
// emits_events, owner and modal after its root). The validation pass,
// which reads everything anyway, records where such an item ends, keyed
// by where it begins, so that the walk jumps over it instead of skipping
// it item by item. When the table is full the walk skips.

const (
	tailBits  = 10
	tailSlots = 1 << tailBits
)

type tailTable struct {
	n    int
	slot [tailSlots]struct{ at, end uint32 } // at+1, so that 0 is empty
}

func (t *tailTable) clear() {
	if t.n > 0 {
		t.slot = [tailSlots]struct{ at, end uint32 }{}
		t.n = 0
	}
}

func tailHash(at int) uint32 { return (uint32(at) * 2654435761) >> (32 - tailBits) }

// put records that the item beginning at at ends at end.
func (t *tailTable) put(at, end int) {
	if t.n >= tailSlots*3/4 || at < 0 || at >= 1<<32-1 || end < 0 || end >= 1<<32 {
		return
	}
	k := uint32(at) + 1
	for h := tailHash(at); ; h = (h + 1) & (tailSlots - 1) {
		s := &t.slot[h]
		if s.at == 0 {
			s.at, s.end = k, uint32(end)
			t.n++
			return
		}
		if s.at == k {
			s.end = uint32(end)
			return
		}
	}
}

// get returns where the item beginning at at ends, if recorded.
func (t *tailTable) get(at int) (int, bool) {
	if t.n == 0 || at < 0 || at >= 1<<32-1 {
		return 0, false
	}
	k := uint32(at) + 1
	for h := tailHash(at); ; h = (h + 1) & (tailSlots - 1) {
		s := &t.slot[h]
		if s.at == k {
			return int(s.end), true
		}
		if s.at == 0 {
			return 0, false
		}
	}
}
