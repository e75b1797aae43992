package rfbgate

import (
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/rfb"
)

// TestPickClass: a viewer gets the best class whose frame fits its link in
// classBudget, never better than it asked for; one that asked for no JPEG
// stays lossless, one that reads Raw stays Raw, and one whose link fits
// nothing gets the ladder's last.
func TestPickClass(t *testing.T) {
	cost := classCostStart
	frame := 200_000.0 // pixels a frame
	budget := func(c class) float64 { return frame * cost.cost(c) / classBudget.Seconds() }
	for _, c := range []struct {
		asked class
		rate  float64
		want  class
	}{
		{6, budget(6) * 2, 6},             // room to spare
		{6, budget(6) * 0.99, 4},          // q6 does not fit, q4 does
		{6, budget(0) * 1.01, 0},          // only the last fits
		{6, budget(0) * 0.5, 0},           // nothing fits: the last
		{2, budget(8) * 10, 2},            // never better than asked
		{3, budget(3) * 0.99, 2},          // between the ladder's rungs
		{9, budget(8) * 1.01, 8},          // the ladder's best under 9
		{classLossless, 1, classLossless}, // no JPEG asked: lossless
		{classRaw, 1, classRaw},
		{6, 0, 6}, // the link not measured yet
	} {
		if got := pickClass(c.asked, c.rate, frame, 1, &cost); got != c.want {
			t.Errorf("asked %v, link %.0f B/s: got %v, want %v", c.asked, c.rate, got, c.want)
		}
	}
}

// TestAskedClass: a viewer's class is the quality level its SetEncodings
// lists first, lossless with none, Raw when it cannot read Tight.
func TestAskedClass(t *testing.T) {
	if c := askedClass([]rfb.Encoding{rfb.EncodingTight, rfb.EncodingQualityLevel0 + 6, rfb.EncodingQualityLevel0 + 2}, false); c != 6 {
		t.Errorf("got %v, want q6", c)
	}
	if c := askedClass([]rfb.Encoding{rfb.EncodingTight, rfb.EncodingCompressLevel0 + 2}, false); c != classLossless {
		t.Errorf("got %v, want lossless", c)
	}
	if c := askedClass([]rfb.Encoding{rfb.EncodingQualityLevel0 + 6}, true); c != classRaw {
		t.Errorf("got %v, want raw", c)
	}
}

// TestClassCostLearns: the cost of a class follows what its encodes
// cost.
func TestClassCostLearns(t *testing.T) {
	cost := classCostStart
	for range 200 {
		cost.learn(4, 3000, 10000)
	}
	if got := cost.cost(4); got < 0.29 || got > 0.31 {
		t.Fatalf("cost %v, want about 0.3", got)
	}
	cost.learn(4, 100, 0) // no pixels: ignored
	if got := cost.cost(4); got < 0.29 || got > 0.31 {
		t.Fatalf("cost %v after an empty encode", got)
	}
}

// TestTileGrid: the tiles a rectangle touches, their versions, and which
// changes are events (after a calm).
func TestTileGrid(t *testing.T) {
	now := time.Unix(1e9, 0)
	var g tileGrid
	g.reset(300, 200, 1, now) // 3×2 tiles, the last ones partial
	if g.n() != 6 || g.rect(5) != (shareRect{256, 128, 44, 72}) {
		t.Fatalf("grid %d tiles, tile 5 %v", g.n(), g.rect(5))
	}
	set := newTileSet(g.n())
	g.mark(shareRect{120, 100, 20, 40}, 2, now.Add(time.Second), set) // across tiles 0, 1, 3, 4
	var got []int
	set.each(func(i int) { got = append(got, i) })
	if len(got) != 4 || got[0] != 0 || got[1] != 1 || got[2] != 3 || got[3] != 4 || set.count() != 4 {
		t.Fatalf("tiles %v", got)
	}
	if g.ver[0] != 2 || g.ver[2] != 1 || !g.event[0] || !g.small[0] {
		t.Fatalf("versions %v, events %v, small %v", g.ver, g.event, g.small)
	}
	g.mark(shareRect{0, 0, 10, 10}, 3, now.Add(time.Second+10*time.Millisecond), nil) // again at once: an animation
	if g.event[0] {
		t.Fatal("a tile changing again at once is taken for an event")
	}
	g.mark(shareRect{-5, -5, 1000, 1000}, 4, now.Add(2*time.Second), nil) // clipped to the screen
	for i, v := range g.ver {
		if v != 4 {
			t.Fatalf("tile %d at version %d after a change of the whole screen", i, v)
		}
	}
	s := newTileSet(130)
	s.fill(130)
	if s.count() != 130 || !s.has(129) || s.has(130) {
		t.Fatalf("fill(130): %d tiles", s.count())
	}
	s.del(64)
	s.clear()
	if !s.empty() {
		t.Fatal("clear left tiles")
	}
}
