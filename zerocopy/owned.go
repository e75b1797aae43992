package zerocopy

import (
	"strings"

	"github.com/wirebench/wirebench/codec"
)

// ToOwned returns the snapshot as the codec's owned type, equal to what
// codec.Decode makes of the same bytes, with its own copies of every
// string: it outlives the frame. It fails only when the bytes under v
// changed after Parse.
func (v *Snapshot) ToOwned() (*codec.Snapshot, error) {
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
			s.Windows = append(s.Windows, w.win.ToOwned())
			open = open[:0]
			continue
		}
		n := w.Node().toOwned()
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

// ToOwned returns the window without its tree (Root nil), with its own
// copy of the title.
func (wv *WindowView) ToOwned() codec.Window {
	return codec.Window{
		ID: wv.ID, Type: wv.Type, Layer: wv.Layer, Bounds: wv.Bounds, Flags: wv.Flags,
		Title: cloneOpt(wv.Title), Package: wv.Package, EmitsEvents: wv.EmitsEvents,
		Owner: wv.Owner, Modal: wv.Modal,
	}
}

// ToOwned returns the node without its children, with its own copies of
// its strings.
func (n *NodeView) ToOwned() codec.Node {
	o := n.toOwned()
	o.Children = nil
	return o
}

// toOwned is ToOwned with room reserved for the children.
func (n *NodeView) toOwned() codec.Node {
	o := codec.Node{ID: n.ID, Class: n.Class, Bounds: n.Bounds, Flags: n.Flags, ResPkg: n.ResPkg}
	n.ownTexts(&o)
	if n.Scroll.Ok {
		sc := n.Scroll.Val
		o.Scroll = &sc
	}
	if n.kidsN > 0 {
		o.Children = make([]codec.Node, 0, n.kidsN)
	}
	return o
}

func cloneOpt(o codec.Opt[string]) codec.Opt[string] {
	return codec.Opt[string]{Val: strings.Clone(o.Val), Ok: o.Ok}
}
