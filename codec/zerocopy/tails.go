package zerocopy

// A walk visits a node before its children, but canonical encoding puts a
// node's scroll, hint and state after its children array (and a window's
// emits_events, owner and modal after its root). The validation pass,
// which reads everything anyway, records where such an item ends, so that
// the walk jumps over it instead of skipping it item by item.
//
// The pass meets the items in the order of their offsets, and so does a
// walk (which only ever moves forward through the payload, also when it
// skips children), so the table is an array sorted by offset that a walk
// reads with a cursor: a lookup costs a comparison or two, and nothing is
// hashed or cleared. When the table is full the walk skips.

// tailSlots is how many items a Snapshot records: a node with both
// children and pairs after them, or a window with pairs after its root.
const tailSlots = 1024

type tailTable struct {
	n    int
	slot [tailSlots]struct{ at, end uint32 }
}

func (t *tailTable) clear() { t.n = 0 }

// copyFrom makes t a copy of u, copying only the slots in use.
func (t *tailTable) copyFrom(u *tailTable) {
	t.n = min(max(u.n, 0), tailSlots)
	copy(t.slot[:t.n], u.slot[:t.n])
}

// reserve notes that an item begins at at, in a slot whose end set fills
// in once the pass has read the item; it returns the slot, or -1 when the
// table is full or at cannot be recorded.
func (t *tailTable) reserve(at int) int {
	if t.n >= tailSlots || at < 0 || at > 1<<32-1 || (t.n > 0 && uint32(at) <= t.slot[t.n-1].at) {
		return -1
	}
	s := t.n
	t.slot[s].at, t.slot[s].end = uint32(at), 0
	t.n++
	return s
}

// set records that the item of slot s (from reserve) ends at end.
func (t *tailTable) set(s, end int) {
	if s < 0 || s >= t.n {
		return
	}
	if end < 0 || end > 1<<32-1 {
		end = 0 // unknown: the walk skips
	}
	t.slot[s].end = uint32(end)
}

// get returns where the item beginning at at ends, if recorded. cur is
// the caller's cursor, 0 at the start of a walk: lookups at increasing
// offsets (or at the same one again) find every recorded item, and move
// cur only forward.
func (t *tailTable) get(at int, cur *int) (int, bool) {
	i, n := *cur, min(t.n, tailSlots)
	if at < 0 || at > 1<<32-1 || i < 0 {
		return 0, false
	}
	for i < n && t.slot[i].at < uint32(at) {
		i++
	}
	*cur = i
	if i < n && t.slot[i].at == uint32(at) && t.slot[i].end != 0 {
		return int(t.slot[i].end), true
	}
	return 0, false
}
