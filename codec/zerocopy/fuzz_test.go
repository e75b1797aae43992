package zerocopy

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// FuzzView checks that the views and codec.Decode agree on any payload:
// both fail, or both succeed and the view's owned copy equals the codec's
// message; and that the views allocate at most allocbound.Hostile of the
// payload's size. Seeded from the golden frames, generated snapshots and
// the hostile frames' first 4 KiB.
func FuzzView(f *testing.F) {
	for _, g := range goldenFrames(f) {
		f.Add(g.payload)
	}
	f.Add(snapshotPayload(f, 40, 5))
	f.Add(chain(schema.MaxNodeDepth))
	for _, frame := range allocbound.Frames(f, "../testdata/hostile") {
		f.Add(frame[4:min(len(frame), 4<<10)])
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		// The views reserve nothing, whatever a head claims.
		allocbound.Check(t, "views", len(p), allocbound.Hostile(len(p)), func() {
			var v Snapshot
			var ev EventView
			Header(p)
			ParseRequest(p)
			ev.Parse(p)
			v.Parse(p)
		})
		m, derr := codec.Decode(p)
		h, herr := Header(p)
		if derr == nil {
			if herr != nil {
				t.Fatalf("codec decodes %T, Header fails: %v", m, herr)
			}
			if !repeatsTopKey(p, 1) {
				checkHeader(t, "fuzz", h, m)
			} else if h.Kind != m.Kind() {
				t.Fatalf("kind %v, codec %v", h.Kind, m.Kind())
			}
		}
		// The request view checks params less than the codec: it must
		// accept what the codec decodes, and read it alike.
		if r, ok := m.(*codec.Request); ok && derr == nil {
			rv, err := ParseRequest(p)
			if err != nil {
				t.Fatalf("codec decodes a request, the view fails: %v", err)
			}
			checkRequest(t, "fuzz", rv, r)
		} else {
			ParseRequest(p)
		}
		// The event view.
		var ev EventView
		everr := ev.Parse(p)
		if e, ok := m.(*codec.Event); ok && derr == nil {
			switch {
			case errors.Is(everr, cbor.ErrIndefinite):
			case everr != nil:
				t.Fatalf("codec decodes an event, the view fails: %v", everr)
			case !reflect.DeepEqual(eventOwned(&ev), e):
				t.Fatalf("event: owned %+v, codec %+v", eventOwned(&ev), e)
			}
		} else if everr == nil {
			t.Fatalf("the view accepts an event the codec decodes as %T, %v", m, derr)
		}
		// The snapshot view.
		checkSnapshot(t, "fuzz", p)
	})
}

// repeatsTopKey reports whether the top-level map of p holds key k more
// than once (Header stops early and may miss a later repetition).
func repeatsTopKey(p []byte, k uint64) bool {
	d := cbor.NewDecoder(p)
	n, err := d.MapHead()
	if err != nil {
		return false
	}
	seen := 0
	for i := 0; d.More(n, i); i++ {
		if b, ok := d.PeekByte(); ok && b>>5 == byte(cbor.MajorUint) {
			v, _ := d.Uint()
			if v == k {
				seen++
			}
		} else if d.Skip() != nil {
			return false
		}
		if d.Skip() != nil {
			return false
		}
	}
	return seen > 1
}
