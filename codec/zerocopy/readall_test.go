package zerocopy

// sink keeps the readers' sums alive, so that nothing is optimized away.
var sink uint64

// readNode reads every field of a node, the strings byte by byte, so that
// nothing is optimized away.
func readNode(n *NodeView) uint64 {
	s := uint64(n.ID) + uint64(n.Class) + uint64(n.Flags) + uint64(len(n.ClassName))
	s += uint64(n.Bounds.Left) + uint64(n.Bounds.Top) + uint64(n.Bounds.Right) + uint64(n.Bounds.Bottom)
	for k := range nodeKeys { // every text of the schema
		if o := n.textField(k); o != nil && o.Ok {
			for i := 0; i < len(o.Val); i++ {
				s += uint64(o.Val[i])
			}
		}
	}
	if v, ok := n.ResPkg.Get(); ok {
		s += uint64(v)
	}
	if sc, ok := n.Scroll.Get(); ok {
		s += uint64(sc.Axis) + uint64(sc.Flags)
		if r, ok := sc.Range.Get(); ok {
			s += uint64(r.Unit) + uint64(r.Lo) + uint64(r.Hi)
		}
		if p, ok := sc.Position.Get(); ok {
			s += uint64(p.Lo) + uint64(p.Hi)
		}
	}
	return s
}

func readWindow(w *WindowView) uint64 {
	s := uint64(w.ID) + uint64(w.Type) + uint64(w.Layer) + uint64(w.Flags) + uint64(w.Bounds.Right)
	s += uint64(len(w.Title.Val)) + uint64(w.Package.Val) + uint64(w.Owner.Val)
	if w.EmitsEvents.Val {
		s++
	}
	if w.Modal {
		s++
	}
	return s
}
