package bench

import (
	"testing"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/zerocopy"
)

// The zerocopy views in BenchmarkDecode's terms: impl=zerocopy decodes a
// message's bytes with the view that applies to it and reads every field
// it has, as a receive loop that handles the message in place would. The
// views are reused from message to message (a Snapshot and a Walker hold
// their stacks inside), and nothing is copied out of the frame.
//
//	request_*        zerocopy.RequestView.Parse, then each param by key
//	event_*          zerocopy.EventView.Parse
//	response_snapshot_*  zerocopy.Snapshot.Parse (full validation), then a
//	                 Walker over every window and node, every field read
//
// zerocopyDecoder returns nil for a message no view decodes (hello,
// bounds, screenshot: Header reads their envelope only).
//
// BenchmarkDecode in codec_test.go runs them beside impl=codec and
// impl=fxamacker, so that benchstat -col /impl puts the three side by side.

// zerocopyDecoder returns the decode of bm by the views, after checking
// once that they read bm's message.
func zerocopyDecoder(tb testing.TB, bm benchMsg) func() error {
	tb.Helper()
	switch m := bm.msg.(type) {
	case *codec.Request:
		var v zerocopy.RequestView
		if err := v.Parse(bm.enc); err != nil || v.ID != m.ID || v.Method != m.Method || v.DeadlineMS != m.DeadlineMS {
			tb.Fatalf("%s: zerocopy request view: %v, or another envelope", bm.name, err)
		}
		if p, ok := m.Params.(*codec.TapParams); ok {
			x, _ := v.Params.Int32(0)
			y, _ := v.Params.Int32(1)
			if x != p.X || y != p.Y {
				tb.Fatalf("%s: zerocopy reads tap (%d, %d), want (%d, %d)", bm.name, x, y, p.X, p.Y)
			}
		}
		return func() error {
			if err := v.Parse(bm.enc); err != nil {
				return err
			}
			sinkZC += uint64(v.ID) + uint64(v.Method) + uint64(v.DeadlineMS.Val) + zerocopyParams(&v.Params, m.Method)
			return nil
		}
	case *codec.Event:
		var e zerocopy.EventView
		if err := e.Parse(bm.enc); err != nil || e.Stream != m.Stream || e.Seq != m.Seq || e.Type != m.Type || !sameBody(&e, m.Body) {
			tb.Fatalf("%s: zerocopy event view: %v, or another event", bm.name, err)
		}
		return func() error {
			if err := e.Parse(bm.enc); err != nil {
				return err
			}
			sinkZC += uint64(e.Stream) + e.Seq + uint64(e.Type) + uint64(e.Window) + uint64(e.Node) + uint64(e.Change) +
				uint64(e.Width) + uint64(e.Height) + uint64(e.Format) + e.UptimeMS + uint64(len(e.Image))
			return nil
		}
	case *codec.Response:
		if m.Method != codec.MethodSnapshot || m.Error != nil {
			return nil
		}
		v, w := new(zerocopy.Snapshot), new(zerocopy.Walker)
		if err := v.Parse(bm.enc); err != nil {
			tb.Fatalf("%s: zerocopy snapshot view: %v", bm.name, err)
		}
		got, werr := viewSum(v, w)
		if want := ownedSum(m.ID, m.Result.(*codec.Snapshot)); werr != nil || got != want {
			tb.Fatalf("%s: zerocopy snapshot view reads another snapshot (sum %d, codec's %d; %v)", bm.name, got, want, werr)
		}
		return func() error {
			if err := v.Parse(bm.enc); err != nil {
				return err
			}
			s, err := viewSum(v, w)
			sinkZC += s
			return err
		}
	}
	return nil
}

// zerocopyParams reads each param of the methods with scalar params, by
// key, as a handler of the method would.
func zerocopyParams(p *zerocopy.ParamsView, m codec.Method) uint64 {
	var s uint64
	ints := 0
	switch m {
	case codec.MethodTap:
		ints = 2
	case codec.MethodLongPress:
		ints = 2
		d, _ := p.Uint32(2)
		s += uint64(d)
	case codec.MethodSwipe:
		ints = 4
		d, _ := p.Uint32(4)
		r, _ := p.Uint32(5)
		s += uint64(d) + uint64(r)
	case codec.MethodTypeText:
		t, _ := p.Text(0)
		s += uint64(len(t))
	default:
		s += uint64(len(p.Bytes()))
	}
	for k := 0; k < ints; k++ {
		v, _ := p.Int32(uint64(k))
		s += uint64(v)
	}
	return s
}

// viewSum reads every field of the snapshot v views, through w, as a
// handler of it would: their sum.
func viewSum(v *zerocopy.Snapshot, w *zerocopy.Walker) (uint64, error) {
	s := v.ID + uint64(v.Truncated) + v.Seq
	for it := v.Strings(); it.Next(); {
		s += uint64(len(it.String()))
	}
	for w.Reset(v); w.Next(); {
		if n := w.Node(); n != nil {
			s += zerocopyNode(n) + uint64(w.Depth())
		} else {
			win := w.Window()
			s += windowSum(win.ID, win.Type, win.Layer, win.Flags, win.Bounds, win.Title, win.Package, win.Owner)
		}
	}
	return s, w.Err()
}

func windowSum(id, typ uint32, layer int32, flags uint32, b codec.Bounds, title codec.Opt[string], pkg, owner codec.Opt[uint32]) uint64 {
	return uint64(id) + uint64(typ) + uint64(layer) + uint64(flags) + uint64(b.Bottom) + uint64(len(title.Val)) + uint64(pkg.Val) + uint64(owner.Val)
}

// ownedSum is viewSum of the codec's snapshot s of the response of id,
// depth first as a Walker visits it: equal when the view reads what the
// codec reads.
func ownedSum(id uint64, snap *codec.Snapshot) uint64 {
	s := id + uint64(snap.Truncated) + snap.Seq
	for _, str := range snap.Strings {
		s += uint64(len(str))
	}
	var node func(n *codec.Node, depth int)
	node = func(n *codec.Node, depth int) {
		s += uint64(n.ID) + uint64(n.Class) + uint64(len(snap.Strings[n.Class])) + uint64(n.Flags) +
			uint64(n.Bounds.Left) + uint64(n.Bounds.Top) + uint64(n.Bounds.Right) + uint64(n.Bounds.Bottom) +
			uint64(len(n.Text)) + uint64(len(n.Desc)) + uint64(len(n.ResName)) + uint64(len(n.Hint)) +
			uint64(len(n.State)) + uint64(n.ResPkg.Val) + uint64(depth)
		if sc := n.Scroll; sc != nil {
			s += uint64(sc.Axis) + uint64(sc.Flags) + uint64(sc.Range.Val.Lo) + uint64(sc.Range.Val.Hi) + uint64(sc.Position.Val.Lo)
		}
		for i := range n.Children {
			node(&n.Children[i], depth+1)
		}
	}
	for i := range snap.Windows {
		w := &snap.Windows[i]
		s += windowSum(w.ID, w.Type, w.Layer, w.Flags, w.Bounds, w.Title, w.Package, w.Owner)
		if w.Root != nil {
			node(w.Root, 1)
		}
	}
	return s
}

// sameBody reports whether the event e views has body b's fields.
func sameBody(e *zerocopy.EventView, b codec.EventBody) bool {
	switch b := b.(type) {
	case *codec.WindowChanged:
		return e.Known && e.Window == b.Window && e.Change == b.Change
	case *codec.ContentChanged:
		return e.Known && e.Window == b.Window && e.Node == b.Node && e.Change == b.Change
	case *codec.ScreenFrame:
		return e.Known && e.Width == b.Width && e.Height == b.Height && e.Format == b.Format && e.UptimeMS == b.UptimeMS && string(e.Image) == string(b.Image)
	}
	return !e.Known
}

func zerocopyNode(n *zerocopy.NodeView) uint64 {
	s := uint64(n.ID) + uint64(n.Class) + uint64(len(n.ClassName)) + uint64(n.Flags) +
		uint64(n.Bounds.Left) + uint64(n.Bounds.Top) + uint64(n.Bounds.Right) + uint64(n.Bounds.Bottom) +
		uint64(len(n.Text.Val)) + uint64(len(n.Desc.Val)) + uint64(len(n.ResName.Val)) + uint64(len(n.Hint.Val)) +
		uint64(len(n.State.Val)) + uint64(n.ResPkg.Val)
	if n.Scroll.Ok {
		sc := &n.Scroll.Val
		s += uint64(sc.Axis) + uint64(sc.Flags) + uint64(sc.Range.Val.Lo) + uint64(sc.Range.Val.Hi) + uint64(sc.Position.Val.Lo)
	}
	return s
}

var sinkZC uint64

// benchZerocopy times run, bm's zerocopy decode, as BenchmarkDecode times
// the others.
func benchZerocopy(b *testing.B, bm benchMsg, run func() error) {
	b.ReportAllocs()
	b.SetBytes(int64(len(bm.enc)))
	c := support.CountAllocs(b)
	for i := 0; i < b.N; i++ {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	c.Stop()
}
