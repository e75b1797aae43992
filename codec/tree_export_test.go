package codec

import (
	"fmt"
	"slices"

	"github.com/wirebench/wirebench/codec/schema"
)

// What the tree's tests (package codec_test) need of its insides.

// TreeReaders reads b with both of the tree's readers: fast is what the
// fast reader read (nil when it gave up), into room for anything, general the tree fill lays out
// from Decode's snapshot (nil when Decode reads no snapshot response).
func TreeReaders(b []byte) (fast, general *Tree) {
	if treeHead(b) {
		// Room for any snapshot b can hold, so that the fast reader
		// reads it without the walk of mayAllocate, whatever it holds.
		fast = new(Tree)
		fast.room(len(b), len(b)/schema.MinWindowLen+1, len(b), len(b)/schema.MinNodeLen+1, len(b)/minScrollLen+1)
		if fast.readTree(b, new(treeLearn)) {
			fast = fast.owned(b)
		} else {
			fast = nil
		}
	}
	if m, err := Decode(b); err == nil {
		if r, ok := m.(*Response); ok {
			if s, ok := r.Result.(*Snapshot); ok {
				general = new(Tree)
				if err := general.fill(r.ID, s); err != nil {
					panic(err) // Decode's snapshots always fit
				}
			}
		}
	}
	return fast, general
}

// TreesDiffer returns how trees a and b differ, "" when they hold the
// same records: the same tables, row for row, texts compared by value
// (their offsets differ between the readers).
func TreesDiffer(a, b *Tree) string {
	if a.ID != b.ID || a.Truncated != b.Truncated || a.Seq != b.Seq || a.Display != b.Display {
		return fmt.Sprintf("scalars %d %d %d %v, %d %d %d %v", a.ID, a.Truncated, a.Seq, a.Display, b.ID, b.Truncated, b.Seq, b.Display)
	}
	if len(a.nodes) != len(b.nodes) || len(a.wins) != len(b.wins) || len(a.strs) != len(b.strs) || len(a.scrolls) != len(b.scrolls) {
		return fmt.Sprintf("tables of %d %d %d %d, %d %d %d %d", len(a.nodes), len(a.wins), len(a.strs), len(a.scrolls), len(b.nodes), len(b.wins), len(b.strs), len(b.scrolls))
	}
	text := func(t *Tree, off uint32) string {
		if off == 0 {
			return "(absent)"
		}
		return "=" + textIn(t.buf, off)
	}
	for i := range a.strs {
		if x, y := text(a, a.strs[i]), text(b, b.strs[i]); x != y {
			return fmt.Sprintf("string %d %q, %q", i, x, y)
		}
	}
	for i := range a.wins {
		x, y := a.wins[i], b.wins[i]
		if tx, ty := text(a, x.title), text(b, y.title); tx != ty {
			return fmt.Sprintf("window %d title %q, %q", i, tx, ty)
		}
		x.title, y.title = 0, 0
		if x != y {
			return fmt.Sprintf("window %d %+v, %+v", i, x, y)
		}
	}
	for i := range a.nodes {
		x, y := a.nodes[i], b.nodes[i]
		for s := range x.texts {
			if tx, ty := text(a, x.texts[s]), text(b, y.texts[s]); tx != ty {
				return fmt.Sprintf("node %d text %d %q, %q", i, nodeTextKeys[s], tx, ty)
			}
		}
		x.texts, y.texts = [nodeTextCount]uint32{}, [nodeTextCount]uint32{}
		if x != y {
			return fmt.Sprintf("node %d %+v, %+v", i, x, y)
		}
	}
	if !slices.Equal(a.scrolls, b.scrolls) {
		return "scrolls differ"
	}
	return ""
}

// TreeOf is snapshot s of the response of id as a tree: what DecodeTree
// reads from the encoding of that response.
func TreeOf(id uint64, s *Snapshot) (*Tree, error) { return treeOf(id, s) }

// TreeSnapshot is t as a Snapshot, equal to Decode's of the same bytes.
func TreeSnapshot(t *Tree) *Snapshot { return t.snapshot() }
