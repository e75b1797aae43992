package zerocopy

import (
	"math/rand/v2"
	"testing"
)

// walkAll uses every reading method of a view.
func walkAll(v *Snapshot) {
	var w Walker
	for w.Reset(v); w.Next(); {
		if n := w.Node(); n != nil {
			sink += readNode(n)
			if n.ID%7 == 0 {
				w.SkipChildren()
			}
		} else {
			sink += readWindow(w.Window())
		}
	}
	for it := v.Strings(); it.Next(); {
		sink += uint64(len(it.String()))
	}
	for i := uint32(0); i < uint32(v.NumStrings())+2; i++ {
		s, _ := v.String(i)
		sink += uint64(len(s))
	}
	toOwned(v)
	v.Check()
}

// TestViewOfChangedBytes: a view whose bytes change after Parse (a frame
// released and its buffer poisoned or reused) may read garbage, but never
// panics or hangs, and Check reports it; whether its walks read the bytes
// (a fresh view) or its node table (a reused one, every other round).
func TestViewOfChangedBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	orig := snapshotPayload(t, 300, 6)
	buf := make([]byte, len(orig))
	for round := 0; round < 800; round++ {
		copy(buf, orig)
		var v Snapshot
		if round%2 == 1 {
			if err := v.Parse(buf); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Parse(buf); err != nil {
			t.Fatal(err)
		}
		if (v.nRecs > 0) != (round%2 == 1) {
			t.Fatalf("round %d: %d nodes in the table", round, v.nRecs)
		}
		switch round / 2 % 4 {
		case 0: // poisoned
			for i := range buf {
				buf[i] = 0xDB
			}
		case 1: // another frame's bytes
			other := snapshotPayload(t, 300, int64(round))
			copy(buf, other)
		default: // a few bytes changed
			for j := 0; j < 1+r.IntN(8); j++ {
				buf[r.IntN(len(buf))] = byte(r.Uint32())
			}
		}
		walkAll(&v)
		if round/2%4 == 0 && v.Check() == nil {
			t.Fatal("Check passes on a poisoned buffer")
		}
	}
}
