package support

import (
	"bytes"
	"image/png"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/wirebench/wirebench/bench/twins"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

var snapshotSizes = []int{0, 1, 2, 3, 5, 8, 9, 13, 40, 59, 60, 99, 100, 150, 500, 1234, 5000}

func snapshotResponse(s *codec.Snapshot) *codec.Response {
	return &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s}
}

func TestSnapshotDeterministic(t *testing.T) {
	for _, n := range []int{1, 100, 500} {
		a, b := Snapshot(n, 7), Snapshot(n, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%d nodes: two snapshots of seed 7 differ", n)
		}
		ea, _ := codec.Marshal(snapshotResponse(a))
		eb, _ := codec.Marshal(snapshotResponse(b))
		if !bytes.Equal(ea, eb) {
			t.Errorf("%d nodes: two encodings of seed 7 differ", n)
		}
		if n > 1 && reflect.DeepEqual(a, Snapshot(n, 8)) {
			t.Errorf("%d nodes: seeds 7 and 8 give the same snapshot", n)
		}
	}
}

func TestSnapshotExactNodes(t *testing.T) {
	for _, n := range snapshotSizes {
		for seed := int64(1); seed <= 8; seed++ {
			s := Snapshot(n, seed)
			if got := CountNodes(s); got != n {
				t.Errorf("Snapshot(%d, %d) has %d nodes", n, seed, got)
			}
			// Ids are 1..n, each once, in depth-first order per window.
			seen := make([]bool, n+1)
			walk(s, func(_ *codec.Window, _ *codec.Node, n *codec.Node, _ int) {
				if int(n.ID) >= len(seen) || n.ID == 0 || seen[n.ID] {
					t.Errorf("Snapshot: node id %d repeated or out of range", n.ID)
					return
				}
				seen[n.ID] = true
			})
		}
	}
}

// walk calls f for every node with its window, parent (nil for a root)
// and level (a root is 1).
func walk(s *codec.Snapshot, f func(w *codec.Window, parent, n *codec.Node, level int)) {
	type item struct {
		parent, n *codec.Node
		level     int
	}
	for i := range s.Windows {
		w := &s.Windows[i]
		if w.Root == nil {
			continue
		}
		stack := []item{{nil, w.Root, 1}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			f(w, it.parent, it.n, it.level)
			for j := len(it.n.Children) - 1; j >= 0; j-- {
				stack = append(stack, item{it.n, &it.n.Children[j], it.level + 1})
			}
		}
	}
}

func inside(in, out codec.Bounds) bool {
	return in.Left >= out.Left && in.Top >= out.Top && in.Right <= out.Right && in.Bottom <= out.Bottom &&
		in.Left <= in.Right && in.Top <= in.Bottom
}

func TestSnapshotShape(t *testing.T) {
	var ime, dialog int
	for _, n := range snapshotSizes {
		for seed := int64(1); seed <= 8; seed++ {
			s := Snapshot(n, seed)
			d := Depth(s)
			if d > 25 || d > schema.MaxNodeDepth {
				t.Errorf("Snapshot(%d, %d): depth %d, want at most 25", n, seed, d)
			}
			if n >= 100 && d < 8 {
				t.Errorf("Snapshot(%d, %d): depth %d, want at least 8", n, seed, d)
			}
			if !s.Display.Ok || len(s.Windows) < 3 {
				t.Fatalf("Snapshot(%d, %d): no display or fewer than 3 windows", n, seed)
			}
			str := func(i uint32) string {
				if int(i) >= len(s.Strings) {
					t.Fatalf("Snapshot(%d, %d): string index %d of %d", n, seed, i, len(s.Strings))
				}
				return s.Strings[i]
			}
			var status, focused bool
			ids := map[uint32]bool{}
			for i := range s.Windows {
				w := &s.Windows[i]
				if ids[w.ID] {
					t.Errorf("Snapshot(%d, %d): window id %d twice", n, seed, w.ID)
				}
				ids[w.ID] = true
				if w.Owner.Ok && str(w.Owner.Val) == "com.android.systemui" && w.Type == 3 && w.Title.Or("") == "Status bar" {
					status = true
				}
				if w.Package.Ok {
					str(w.Package.Val)
				}
				if w.Type == 2 {
					ime++
				}
				if w.Modal {
					dialog++
				}
				if w.Flags&schema.WindowFocused != 0 {
					if focused {
						t.Errorf("Snapshot(%d, %d): two focused windows", n, seed)
					}
					focused = true
				}
				if !inside(w.Bounds, codec.Bounds{Right: int32(s.Display.Val.Width), Bottom: int32(s.Display.Val.Height)}) {
					t.Errorf("Snapshot(%d, %d): window %d bounds %v off the display", n, seed, w.ID, w.Bounds)
				}
			}
			if !status || !focused {
				t.Errorf("Snapshot(%d, %d): status bar %v, focused window %v", n, seed, status, focused)
			}
			walk(s, func(w *codec.Window, parent, nd *codec.Node, _ int) {
				out := w.Bounds
				if parent != nil {
					out = parent.Bounds
				}
				if !inside(nd.Bounds, out) {
					t.Errorf("Snapshot(%d, %d): node %d bounds %v outside %v", n, seed, nd.ID, nd.Bounds, out)
				}
				str(nd.Class)
				if nd.ResPkg.Ok != nd.Has(codec.NodeResName) {
					t.Errorf("Snapshot(%d, %d): node %d has a resource package without a name or back", n, seed, nd.ID)
				}
				if nd.ResPkg.Ok {
					str(nd.ResPkg.Val)
				}
				if (nd.Scroll != nil) != (nd.Flags&schema.NodeScrollable != 0) {
					t.Errorf("Snapshot(%d, %d): node %d: scroll semantics %v, scrollable flag %v", n, seed, nd.ID, nd.Scroll != nil, nd.Flags&schema.NodeScrollable != 0)
				}
				if sc := nd.Scroll; sc != nil {
					r, p := sc.Range.Val, sc.Position.Val
					if !sc.Range.Ok || !sc.Position.Ok || p.Lo < r.Lo || p.Hi > r.Hi || p.Lo > p.Hi {
						t.Errorf("Snapshot(%d, %d): node %d: position %v outside range %v", n, seed, nd.ID, sc.Position, sc.Range)
					}
				}
			})
		}
	}
	if ime == 0 || dialog == 0 {
		t.Errorf("no seed gave an input method (%d) or a dialog (%d)", ime, dialog)
	}
}

func TestSnapshotContent(t *testing.T) {
	s := Snapshot(SnapshotSmall, Seed)
	classes := map[string]bool{}
	var texts, nonASCII, multiByte4, scrolls, clickable int
	walk(s, func(_ *codec.Window, _ *codec.Node, n *codec.Node, _ int) {
		classes[s.Strings[n.Class]] = true
		for _, o := range []string{n.Text, n.Desc, n.Hint, n.State} {
			if o == "" {
				continue
			}
			texts++
			if len(o) != utf8.RuneCountInString(o) {
				nonASCII++
			}
			for _, r := range o {
				if utf8.RuneLen(r) == 4 {
					multiByte4++
					break
				}
			}
		}
		if n.Scroll != nil {
			scrolls++
		}
		if n.Flags&schema.NodeClickable != 0 {
			clickable++
		}
	})
	for _, c := range []string{"android.widget.TextView", "android.widget.ImageView", "androidx.recyclerview.widget.RecyclerView", "android.widget.FrameLayout"} {
		if !classes[c] {
			t.Errorf("no %s among %d classes", c, len(classes))
		}
	}
	if len(classes) < 10 {
		t.Errorf("only %d classes", len(classes))
	}
	if texts < SnapshotSmall/3 || nonASCII < texts/10 || nonASCII > texts*3/4 || multiByte4 == 0 {
		t.Errorf("%d texts, %d with non-ASCII, %d with emoji: want some non-ASCII, not all", texts, nonASCII, multiByte4)
	}
	if scrolls < 2 || clickable < SnapshotSmall/10 {
		t.Errorf("%d scrolling nodes, %d clickable", scrolls, clickable)
	}
}

// roundTrip checks that m encodes, decodes to itself with our codec, and
// that fxamacker decodes our bytes to the same message and encodes it to
// the same bytes.
func roundTrip(t *testing.T, name string, m codec.Message) {
	t.Helper()
	b, err := codec.Marshal(m)
	if err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	got, err := codec.Decode(b)
	if err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("%s: our decode differs from the message", name)
	}
	ref, err := twins.Unmarshal(b)
	if err != nil {
		t.Fatalf("%s: fxamacker decode: %v", name, err)
	}
	if !reflect.DeepEqual(ref, m) {
		t.Errorf("%s: fxamacker's decode differs from the message", name)
	}
	rb, err := twins.Marshal(m)
	if err != nil {
		t.Fatalf("%s: fxamacker encode: %v", name, err)
	}
	if !bytes.Equal(rb, b) {
		t.Errorf("%s: fxamacker encodes %d bytes, we encode %d, not the same", name, len(rb), len(b))
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, n := range snapshotSizes {
		for seed := int64(1); seed <= 3; seed++ {
			roundTrip(t, "snapshot", snapshotResponse(Snapshot(n, seed)))
		}
	}
}

func TestSeeded(t *testing.T) {
	a, b := Seeded(), Seeded()
	want := []string{"response_bounds_64", "response_snapshot_500", "response_snapshot_5000", "response_screenshot_256k"}
	if len(a) != len(want) {
		t.Fatalf("%d seeded messages, want %d", len(a), len(want))
	}
	for i, s := range a {
		if s.Name != want[i] {
			t.Errorf("seeded message %d is %s, want %s", i, s.Name, want[i])
		}
		if !reflect.DeepEqual(s.Msg, b[i].Msg) {
			t.Errorf("%s: not deterministic", s.Name)
		}
		roundTrip(t, s.Name, s.Msg)
	}
	if got := len(a[0].Msg.(*codec.Response).Result.(*codec.BoundsResult).Nodes); got != 64 {
		t.Errorf("response_bounds_64 has %d nodes", got)
	}
}

func TestBoundsResult(t *testing.T) {
	r := BoundsResult(64, 3)
	if len(r.Nodes) != 64 || !reflect.DeepEqual(r, BoundsResult(64, 3)) {
		t.Fatalf("BoundsResult(64, 3): %d nodes, or not deterministic", len(r.Nodes))
	}
	screen := codec.Bounds{Right: 1080, Bottom: 2400}
	for i, nb := range r.Nodes {
		if i > 0 && nb.Node <= r.Nodes[i-1].Node {
			t.Errorf("node ids not ascending at %d", i)
		}
		if !inside(nb.Bounds, screen) || nb.Bounds.Right == nb.Bounds.Left {
			t.Errorf("node %d: bounds %v off screen or empty", nb.Node, nb.Bounds)
		}
	}
}

func TestScreenshot(t *testing.T) {
	p := ScreenshotPNG(40, 30, 9)
	img, err := png.Decode(bytes.NewReader(p))
	if err != nil || img.Bounds().Dx() != 40 || img.Bounds().Dy() != 30 {
		t.Fatalf("ScreenshotPNG: %v, %v", err, img)
	}
	if !bytes.Equal(p, ScreenshotPNG(40, 30, 9)) || bytes.Equal(p, ScreenshotPNG(40, 30, 10)) {
		t.Error("ScreenshotPNG is not deterministic for a seed, or ignores the seed")
	}
	if len(p) < 40*30*3 {
		t.Errorf("ScreenshotPNG compressed noise to %d bytes, below 3 a pixel", len(p))
	}
	padded := PadPNG(p, len(p)+100)
	if len(padded) != len(p)+100 {
		t.Fatalf("PadPNG: %d bytes, want %d", len(padded), len(p)+100)
	}
	if img2, err := png.Decode(bytes.NewReader(padded)); err != nil || !reflect.DeepEqual(img2, img) {
		t.Errorf("padded PNG: %v, or another image", err)
	}

	m := ScreenshotResponse(ScreenshotFrameLen, Seed)
	f, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame)
	if err != nil || len(f) != ScreenshotFrameLen {
		t.Fatalf("screenshot frame: %d bytes (%v), want %d", len(f), err, ScreenshotFrameLen)
	}
	res := m.Result.(*codec.ScreenshotResult)
	cfg, err := png.DecodeConfig(bytes.NewReader(res.Image))
	if err != nil || cfg.Width != int(res.Width) || cfg.Height != int(res.Height) {
		t.Errorf("screenshot image: %v, %dx%d, result says %dx%d", err, cfg.Width, cfg.Height, res.Width, res.Height)
	}
	if len(res.Image) < ScreenshotFrameLen-64 || len(res.Image)-len(ScreenshotPNG(int(res.Width), int(res.Height), Seed)) > 4096 {
		t.Errorf("screenshot image of %d bytes: too small, or mostly padding", len(res.Image))
	}
	roundTrip(t, "screenshot", m)
}
