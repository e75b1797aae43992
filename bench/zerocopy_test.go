package bench

import (
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/zerocopy"
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
		if err := e.Parse(bm.enc); err != nil || !reflect.DeepEqual(e.ToOwned(), m) {
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
		if got, err := v.ToOwned(); err != nil || !reflect.DeepEqual(got, m.Result) {
			tb.Fatalf("%s: zerocopy snapshot view reads another snapshot (%v)", bm.name, err)
		}
		return func() error {
			if err := v.Parse(bm.enc); err != nil {
				return err
			}
			s := v.ID + uint64(v.Truncated) + v.Seq
			for it := v.Strings(); it.Next(); {
				s += uint64(len(it.String()))
			}
			for w.Reset(v); w.Next(); {
				if n := w.Node(); n != nil {
					s += zerocopyNode(n) + uint64(w.Depth())
				} else {
					win := w.Window()
					s += uint64(win.ID) + uint64(win.Type) + uint64(win.Layer) + uint64(win.Flags) + uint64(win.Bounds.Bottom) +
						uint64(len(win.Title.Val)) + uint64(win.Package.Val) + uint64(win.Owner.Val)
				}
			}
			sinkZC += s
			return w.Err()
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
