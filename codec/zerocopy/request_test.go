package zerocopy

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
)

// checkRequest compares a request view with the codec's request, and the
// params it can read by key with the codec's typed params.
func checkRequest(t testing.TB, name string, v RequestView, r *codec.Request) {
	t.Helper()
	if v.ID != r.ID || v.Method != r.Method || v.DeadlineMS != r.DeadlineMS {
		t.Errorf("%s: view %d %v %v, codec %d %v %v", name, v.ID, v.Method, v.DeadlineMS, r.ID, r.Method, r.DeadlineMS)
	}
	switch p := r.Params.(type) {
	case *codec.TapParams:
		x, okx := v.Params.Int32(0)
		y, oky := v.Params.Int32(1)
		if !okx || !oky || x != p.X || y != p.Y {
			t.Errorf("%s: tap (%d, %d), codec (%d, %d)", name, x, y, p.X, p.Y)
		}
	case *codec.SwipeParams:
		x2, _ := v.Params.Int32(2)
		dur, _ := v.Params.Uint32(4)
		rest, ok := v.Params.Uint32(5)
		if x2 != p.X2 || dur != p.DurationMS || ok != p.RestMS.Ok || rest != p.RestMS.Val {
			t.Errorf("%s: swipe differs from the codec's %+v", name, p)
		}
	case *codec.TypeTextParams:
		if s, ok := v.Params.Text(0); !ok || s != p.Text {
			t.Errorf("%s: text %q, codec %q", name, s, p.Text)
		}
	case *codec.SnapshotParams:
		if b, ok := v.Params.Bool(3); ok != p.EvictEventLess.Ok || b != p.EvictEventLess.Val {
			t.Errorf("%s: evict_event_less %v %v, codec %v", name, b, ok, p.EvictEventLess)
		}
		if u, ok := v.Params.Uint(0); ok != p.MaxDepth.Ok || uint32(u) != p.MaxDepth.Val {
			t.Errorf("%s: max_depth %v %v, codec %v", name, u, ok, p.MaxDepth)
		}
	}
}

func TestRequestGolden(t *testing.T) {
	n := goldenViews(t, ParseRequest, func(name string, v RequestView, r *codec.Request) {
		checkRequest(t, name, v, r)
	})
	if n < 10 {
		t.Errorf("%d golden requests", n)
	}
}

func TestParamsAbsentAndWrongType(t *testing.T) {
	// {0: 2, 1: 7, 2: 3, 3: {0: 5, 1: null, 2: "a"}}
	p := []byte{0xa4, 0, 2, 1, 7, 2, 3, 3, 0xa3, 0, 5, 1, 0xf6, 2, 0x61, 'a'}
	v, err := ParseRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	if x, ok := v.Params.Int32(0); !ok || x != 5 {
		t.Errorf("key 0: %d %v", x, ok)
	}
	if _, ok := v.Params.Int32(1); ok {
		t.Error("a null key reads as present")
	}
	if _, ok := v.Params.Int32(2); ok {
		t.Error("text reads as an integer")
	}
	if _, ok := v.Params.Int32(9); ok {
		t.Error("an absent key reads as present")
	}
	if s, ok := v.Params.Text(2); !ok || s != "a" {
		t.Errorf("key 2: %q %v", s, ok)
	}
	p[8] = 0x80 // params an array
	if _, err := ParseRequest(p); err == nil {
		t.Error("params that are not a map accepted")
	}
}

// TestRequestFastPath: the canonical fast path and the general path read
// every golden request alike.
func TestRequestFastPath(t *testing.T) {
	n := 0
	for _, g := range goldenFrames(t) {
		var fast, slow RequestView
		if !fast.parseFast(g.payload) {
			continue
		}
		n++
		d := newDec(g.payload)
		if err := slow.envelope(&d, g.payload); err != nil || d.Done() != nil {
			t.Fatalf("%s: the fast path accepts what the general path refuses: %v", g.name, err)
		}
		if fast.ID != slow.ID || fast.Method != slow.Method || fast.DeadlineMS != slow.DeadlineMS ||
			fast.Params.at != slow.Params.at || string(fast.Params.b) != string(slow.Params.b) {
			t.Errorf("%s: fast %+v, general %+v", g.name, fast, slow)
		}
	}
	if n < 10 {
		t.Errorf("the fast path reads only %d golden requests", n)
	}
}
