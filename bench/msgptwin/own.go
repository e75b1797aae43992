package msgptwin

import (
	"fmt"

	"github.com/wirebench/wirebench/codec"
)

// Conversions between our messages and the twins, outside any timed loop.

func bounds(b codec.Bounds) [4]int32 { return [4]int32{b.Left, b.Top, b.Right, b.Bottom} }

func ownBounds(b [4]int32) codec.Bounds {
	return codec.Bounds{Left: b[0], Top: b[1], Right: b[2], Bottom: b[3]}
}

func twinDevice(d codec.Device) Device {
	return Device{Model: d.Model, SDK: d.SDK, ABI: d.ABI, Display: Display(d.Display)}
}

func twinSnapshot(s *codec.Snapshot) *Snapshot {
	t := &Snapshot{Strings: s.Strings, Windows: make([]Window, len(s.Windows)), Truncated: s.Truncated, Seq: s.Seq}
	if s.Display.Ok {
		d := Display(s.Display.Val)
		t.Display = &d
	}
	for i := range s.Windows {
		w := &s.Windows[i]
		t.Windows[i] = Window{ID: w.ID, Type: w.Type, Layer: w.Layer, Bounds: bounds(w.Bounds), Flags: w.Flags, Title: w.Title.Ptr(),
			Package: w.Package.Ptr(), EmitsEvents: w.EmitsEvents.Ptr(), Owner: w.Owner.Ptr(), Modal: w.Modal}
		if w.Root != nil {
			n := twinNode(w.Root)
			t.Windows[i].Root = &n
		}
	}
	return t
}

func twinNode(n *codec.Node) Node {
	t := Node{ID: n.ID, Class: n.Class, Bounds: bounds(n.Bounds), Flags: n.Flags, Text: n.Text.Ptr(), Desc: n.Desc.Ptr(),
		ResPkg: n.ResPkg.Ptr(), ResName: n.ResName.Ptr(), Hint: n.Hint.Ptr(), State: n.State.Ptr()}
	if s := n.Scroll; s != nil {
		t.Scroll = &Scroll{Axis: s.Axis, Flags: s.Flags}
		if s.Range.Ok {
			t.Scroll.Range = &ScrollRange{Unit: s.Range.Val.Unit, Lo: s.Range.Val.Lo, Hi: s.Range.Val.Hi}
		}
		if s.Position.Ok {
			t.Scroll.Position = &ScrollPosition{Lo: s.Position.Val.Lo, Hi: s.Position.Val.Hi}
		}
	}
	if len(n.Children) > 0 {
		t.Children = make([]Node, len(n.Children))
		for i := range n.Children {
			t.Children[i] = twinNode(&n.Children[i])
		}
	}
	return t
}

// Own converts twins decoded by Case.Decode back to our message, so that a
// check can compare it with the message encoded.
func Own(env, body any) (codec.Message, error) {
	switch e := env.(type) {
	case *Hello:
		h := &codec.Hello{Versions: e.Versions, MaxFrame: e.MaxFrame, Capabilities: codec.Capabilities(e.Capabilities), Token: codec.OptFrom(e.Token), Agent: e.Agent}
		if d := e.Device; d != nil {
			h.Device = codec.Some(codec.Device{Model: d.Model, SDK: d.SDK, ABI: d.ABI, Display: codec.Display(d.Display)})
		}
		return h, nil
	case *Request:
		r := &codec.Request{ID: e.ID, Method: codec.Method(e.Method), DeadlineMS: codec.OptFrom(e.DeadlineMS)}
		switch p := body.(type) {
		case *TapParams:
			r.Params = &codec.TapParams{X: p.X, Y: p.Y}
		case *SnapshotParams:
			if p.Evict == nil {
				p.Evict = []uint32{}
			}
			r.Params = &codec.SnapshotParams{MaxDepth: codec.OptFrom(p.MaxDepth), MaxNodes: codec.OptFrom(p.MaxNodes), MaxWindows: codec.OptFrom(p.MaxWindows),
				EvictEventLess: codec.OptFrom(p.EvictEventLess), Evict: p.Evict}
		default:
			return nil, fmt.Errorf("msgptwin: no params for %T", body)
		}
		return r, nil
	case *Response:
		r := &codec.Response{ID: e.ID, Method: codec.Method(e.Method)}
		switch t := body.(type) {
		case *Snapshot:
			r.Result = ownSnapshot(t)
		case *BoundsResult:
			out := &codec.BoundsResult{Nodes: make([]codec.NodeBounds, len(t.Nodes))}
			for i, nb := range t.Nodes {
				out.Nodes[i] = codec.NodeBounds{Node: nb.Node, Bounds: ownBounds(nb.Bounds)}
			}
			r.Result = out
		case *ScreenshotResult:
			r.Result = &codec.ScreenshotResult{Width: t.Width, Height: t.Height, Format: t.Format, Image: t.Image}
		default:
			return nil, fmt.Errorf("msgptwin: no result for %T", body)
		}
		return r, nil
	case *ContentChanged:
		return &codec.Event{Stream: codec.Stream(e.Stream), Seq: e.Seq, Type: codec.EventType(e.Type),
			Body: &codec.ContentChanged{Window: e.Window, Node: e.Node, Change: e.Change}}, nil
	case *WindowChanged:
		return &codec.Event{Stream: codec.Stream(e.Stream), Seq: e.Seq, Type: codec.EventType(e.Type),
			Body: &codec.WindowChanged{Window: e.Window, Change: e.Change}}, nil
	}
	return nil, fmt.Errorf("msgptwin: no message for %T", env)
}

func ownSnapshot(t *Snapshot) *codec.Snapshot {
	s := &codec.Snapshot{Strings: t.Strings, Windows: make([]codec.Window, len(t.Windows)), Truncated: t.Truncated, Seq: t.Seq}
	if s.Strings == nil {
		s.Strings = []string{}
	}
	if t.Display != nil {
		s.Display = codec.Some(codec.Display(*t.Display))
	}
	for i := range t.Windows {
		w := &t.Windows[i]
		s.Windows[i] = codec.Window{ID: w.ID, Type: w.Type, Layer: w.Layer, Bounds: ownBounds(w.Bounds), Flags: w.Flags, Title: codec.OptFrom(w.Title),
			Package: codec.OptFrom(w.Package), EmitsEvents: codec.OptFrom(w.EmitsEvents), Owner: codec.OptFrom(w.Owner), Modal: w.Modal}
		if w.Root != nil {
			n := ownNode(w.Root)
			s.Windows[i].Root = &n
		}
	}
	return s
}

func ownNode(t *Node) codec.Node {
	n := codec.Node{ID: t.ID, Class: t.Class, Bounds: ownBounds(t.Bounds), Flags: t.Flags, Text: codec.OptFrom(t.Text), Desc: codec.OptFrom(t.Desc),
		ResPkg: codec.OptFrom(t.ResPkg), ResName: codec.OptFrom(t.ResName), Hint: codec.OptFrom(t.Hint), State: codec.OptFrom(t.State)}
	if s := t.Scroll; s != nil {
		n.Scroll = &codec.Scroll{Axis: s.Axis, Flags: s.Flags}
		if s.Range != nil {
			n.Scroll.Range = codec.Some(codec.ScrollRange{Unit: s.Range.Unit, Lo: s.Range.Lo, Hi: s.Range.Hi})
		}
		if s.Position != nil {
			n.Scroll.Position = codec.Some(codec.ScrollPosition{Lo: s.Position.Lo, Hi: s.Position.Hi})
		}
	}
	if len(t.Children) > 0 {
		n.Children = make([]codec.Node, len(t.Children))
		for i := range t.Children {
			n.Children[i] = ownNode(&t.Children[i])
		}
	}
	return n
}
