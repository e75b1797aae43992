package zerocopy

import (
	"strings"

	"github.com/wirebench/wirebench/codec"
)

// What the tests compare with the codec: a view's reading as the codec's
// owned types, with copies of every string, so that it outlives the
// frame.

// toOwned returns the snapshot v views as codec.Decode makes it of the
// same bytes. It fails only when the bytes under v changed after Parse.
func toOwned(v *Snapshot) (*codec.Snapshot, error) {
	s := &codec.Snapshot{Truncated: v.Truncated, Seq: v.Seq, Display: v.Display}
	s.Strings = make([]string, 0, v.nStrings)
	for it := v.Strings(); it.Next(); {
		s.Strings = append(s.Strings, strings.Clone(it.String()))
	}
	s.Windows = make([]codec.Window, 0, v.nWindows)
	w := new(Walker)
	// open[d-1] is the node at level d of the current window's tree. A
	// parent's children are appended in order and its subtree is complete
	// before its next sibling comes, so these pointers stay valid.
	var open []*codec.Node
	for w.Reset(v); w.Next(); {
		if !w.atNode {
			s.Windows = append(s.Windows, windowOwned(&w.win))
			open = open[:0]
			continue
		}
		n := nodeOwned(w.Node())
		var p *codec.Node
		if w.depth == 1 {
			win := &s.Windows[len(s.Windows)-1]
			win.Root = new(codec.Node)
			*win.Root = n
			p = win.Root
		} else {
			if w.depth-2 >= len(open) {
				return nil, ErrReleased
			}
			parent := open[w.depth-2]
			parent.Children = append(parent.Children, n)
			p = &parent.Children[len(parent.Children)-1]
		}
		open = append(open[:w.depth-1], p)
	}
	if w.err != nil {
		return nil, w.err
	}
	return s, nil
}

// windowOwned is the window without its tree (Root nil).
func windowOwned(wv *WindowView) codec.Window {
	return codec.Window{
		ID: wv.ID, Type: wv.Type, Layer: wv.Layer, Bounds: wv.Bounds, Flags: wv.Flags,
		Title: codec.Opt[string]{Val: strings.Clone(wv.Title.Val), Ok: wv.Title.Ok}, Package: wv.Package,
		EmitsEvents: wv.EmitsEvents, Owner: wv.Owner, Modal: wv.Modal,
	}
}

// nodeOwned is the node with room for its children.
func nodeOwned(n *NodeView) codec.Node {
	o := codec.Node{ID: n.ID, Class: n.Class, Bounds: n.Bounds, Flags: n.Flags, ResPkg: n.ResPkg}
	for k := range nodeKeys {
		if t := n.textField(k); t != nil && t.Ok {
			o.SetText(k, strings.Clone(t.Val))
		}
	}
	if n.Scroll.Ok {
		sc := n.Scroll.Val
		o.Scroll = &sc
	}
	if n.kidsN > 0 {
		o.Children = make([]codec.Node, 0, n.kidsN)
	}
	return o
}

// eventOwned returns the event e views as the codec decodes it.
func eventOwned(e *EventView) *codec.Event {
	ev := &codec.Event{Stream: e.Stream, Seq: e.Seq, Type: e.Type}
	if !e.Known {
		return ev
	}
	switch {
	case e.Stream == codec.StreamTree && e.Type == codec.TypeWindowChanged:
		ev.Body = &codec.WindowChanged{Window: e.Window, Change: e.Change}
	case e.Stream == codec.StreamTree && e.Type == codec.TypeContentChanged:
		ev.Body = &codec.ContentChanged{Window: e.Window, Node: e.Node, Change: e.Change}
	case e.Stream == codec.StreamFrames && e.Type == codec.TypeFrame:
		ev.Body = &codec.ScreenFrame{Width: e.Width, Height: e.Height, Format: e.Format, UptimeMS: e.UptimeMS, Image: append([]byte{}, e.Image...)}
	}
	return ev
}

// walkEach calls fn for every window (depth 0, node zero) and every node
// of its tree (depth 1 and below), depth first, until fn returns false,
// and returns the walk's error.
func walkEach(v *Snapshot, fn func(win WindowView, node NodeView, depth int) bool) error {
	var w Walker
	for w.Reset(v); w.Next(); {
		if n := w.Node(); n != nil {
			if !fn(w.win, *n, w.depth) {
				break
			}
		} else if !fn(w.win, NodeView{}, 0) {
			break
		}
	}
	return w.err
}
