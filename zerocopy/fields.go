package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// Field readers shared by the validation pass and the walk, so that both
// read a map exactly as the codec's decoder does: keys in any order, the
// last of a repeated key wins, a null value counts as absent, unknown keys
// are skipped.

var (
	snapshotNames = [...]string{"strings", "windows", "truncated", "seq", "display"}
	windowNames   = [...]string{"id", "type", "layer", "bounds", "flags", "title", "package", "root", "emits_events", "owner", "modal"}
	nodeNames     = [...]string{"id", "class", "bounds", "flags", "text", "desc", "res_pkg", "res_name", "children", "scroll", "hint", "state"}
	scrollNames   = [...]string{"axis", "flags", "range", "position"}
	displayNames  = [...]string{"width", "height", "density_dpi", "rotation"}
	errorNames    = [...]string{"code", "message", "retryable"}
	responseNames = [...]string{"kind", "id", "method", "result", "error"}
)

// Smallest encodings, as the codec caps counts by the bytes left.
const (
	minWindowLen = 15
	minNodeLen   = 13
)

func named(err error, k uint64, names []string) error {
	if k < uint64(len(names)) {
		return cbor.In(err, names[k])
	}
	return err
}

func optText(d *dec) (codec.Opt[string], error) {
	s, err := text(d)
	return codec.Opt[string]{Val: s, Ok: err == nil}, err
}

func optU32(d *dec) (codec.Opt[uint32], error) {
	v, err := d.Uint32()
	return codec.Opt[uint32]{Val: v, Ok: err == nil}, err
}

// bounds reads [left, top, right, bottom], skipping elements past those.
func bounds(d *dec, b *codec.Bounds) error {
	var v [4]int32
	if err := d.Int32s(v[:], "bounds"); err != nil {
		return err
	}
	*b = codec.Bounds{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]}
	return nil
}

// nodeField reads the value of key k of a node into nv; key 8 (children)
// is the caller's. seen collects the keys present.
func nodeField(d *dec, nv *NodeView, k uint64, seen *uint32) (err error) {
	if d.Null() {
		switch k {
		case 4:
			nv.Text = codec.Opt[string]{}
		case 5:
			nv.Desc = codec.Opt[string]{}
		case 6:
			nv.ResPkg = codec.Opt[uint32]{}
		case 7:
			nv.ResName = codec.Opt[string]{}
		case 9:
			nv.Scroll = codec.Opt[codec.Scroll]{}
		case 10:
			nv.Hint = codec.Opt[string]{}
		case 11:
			nv.State = codec.Opt[string]{}
		}
		if k < 32 {
			*seen &^= 1 << k
		}
		return nil
	}
	switch k {
	case 0:
		nv.ID, err = d.Uint32()
	case 1:
		nv.Class, err = d.Uint32()
	case 2:
		err = bounds(d, &nv.Bounds)
	case 3:
		nv.Flags, err = d.Uint32()
	case 4:
		nv.Text, err = optText(d)
	case 5:
		nv.Desc, err = optText(d)
	case 6:
		nv.ResPkg, err = optU32(d)
	case 7:
		nv.ResName, err = optText(d)
	case 9:
		nv.Scroll = codec.Opt[codec.Scroll]{Ok: true}
		err = scroll(d, &nv.Scroll.Val)
	case 10:
		nv.Hint, err = optText(d)
	case 11:
		nv.State, err = optText(d)
	default:
		err = d.Skip()
	}
	if err != nil {
		return named(err, k, nodeNames[:])
	}
	if k < 32 {
		*seen |= 1 << k
	}
	return nil
}

// scroll reads a Scroll map.
func scroll(d *dec, s *codec.Scroll) error {
	start := d.Offset()
	n, err := d.MapHead()
	if err != nil {
		return err
	}
	var seen uint32
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return err
		}
		known := k < uint64(len(scrollNames))
		if d.Null() {
			if known {
				seen &^= 1 << k
				switch k {
				case 2:
					s.Range = codec.Opt[codec.ScrollRange]{}
				case 3:
					s.Position = codec.Opt[codec.ScrollPosition]{}
				}
			}
			continue
		}
		switch k {
		case 0:
			s.Axis, err = d.Uint32()
		case 1:
			s.Flags, err = d.Uint32()
		case 2:
			s.Range.Ok = true
			err = scrollRange(d, &s.Range.Val)
		case 3:
			s.Position.Ok = true
			err = scrollPosition(d, &s.Position.Val)
		default:
			err = d.Skip()
		}
		if err != nil {
			return named(err, k, scrollNames[:])
		}
		if known {
			seen |= 1 << k
		}
	}
	return cbor.Missing(3, seen, scrollNames[:], start)
}

func scrollRange(d *dec, r *codec.ScrollRange) error {
	return d.Fixed("a scroll range", []string{"unit", "lo", "hi"}, func(i int) (err error) {
		switch i {
		case 0:
			r.Unit, err = d.Uint32()
		case 1:
			r.Lo, err = d.Int()
		default:
			r.Hi, err = d.Int()
		}
		return err
	})
}

func scrollPosition(d *dec, p *codec.ScrollPosition) error {
	return d.Fixed("a scroll position", []string{"lo", "hi"}, func(i int) (err error) {
		if i == 0 {
			p.Lo, err = d.Int()
		} else {
			p.Hi, err = d.Int()
		}
		return err
	})
}

// windowField reads the value of key k of a window into wv; key 7 (root)
// is the caller's.
func windowField(d *dec, wv *WindowView, k uint64, seen *uint32) (err error) {
	if d.Null() {
		switch k {
		case 5:
			wv.Title = codec.Opt[string]{}
		case 6:
			wv.Package = codec.Opt[uint32]{}
		case 8:
			wv.EmitsEvents = codec.Opt[bool]{}
		case 9:
			wv.Owner = codec.Opt[uint32]{}
		case 10:
			wv.Modal = false
		}
		if k < 32 {
			*seen &^= 1 << k
		}
		return nil
	}
	switch k {
	case 0:
		wv.ID, err = d.Uint32()
	case 1:
		wv.Type, err = d.Uint32()
	case 2:
		wv.Layer, err = d.Int32()
	case 3:
		err = bounds(d, &wv.Bounds)
	case 4:
		wv.Flags, err = d.Uint32()
	case 5:
		wv.Title, err = optText(d)
	case 6:
		wv.Package, err = optU32(d)
	case 8:
		var b bool
		b, err = d.Bool()
		wv.EmitsEvents = codec.Opt[bool]{Val: b, Ok: err == nil}
	case 9:
		wv.Owner, err = optU32(d)
	case 10:
		wv.Modal, err = d.Bool()
	default:
		err = d.Skip()
	}
	if err != nil {
		return named(err, k, windowNames[:])
	}
	if k < 32 {
		*seen |= 1 << k
	}
	return nil
}

// display reads a Display map.
func display(d *dec, v *codec.Display) error {
	start := d.Offset()
	n, err := d.MapHead()
	if err != nil {
		return err
	}
	var seen uint32
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return err
		}
		if d.Null() {
			if k < 32 {
				seen &^= 1 << k
			}
			continue
		}
		switch k {
		case 0:
			v.Width, err = d.Uint32()
		case 1:
			v.Height, err = d.Uint32()
		case 2:
			v.DensityDPI, err = d.Uint32()
		case 3:
			v.Rotation, err = d.Uint32()
		default:
			err = d.Skip()
		}
		if err != nil {
			return named(err, k, displayNames[:])
		}
		if k < 32 {
			seen |= 1 << k
		}
	}
	return cbor.Missing(0xf, seen, displayNames[:], start)
}

// protoError validates an Error map and returns its code, borrowed.
func protoError(d *dec) (string, error) {
	start := d.Offset()
	n, err := d.MapHead()
	if err != nil {
		return "", err
	}
	var seen uint32
	var code string
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return "", err
		}
		if d.Null() {
			if k < 32 {
				seen &^= 1 << k
			}
			continue
		}
		switch k {
		case 0:
			code, err = text(d)
		case 1:
			_, err = text(d)
		case 2:
			_, err = d.Bool()
		default:
			err = d.Skip()
		}
		if err != nil {
			return "", named(err, k, errorNames[:])
		}
		if k < 32 {
			seen |= 1 << k
		}
	}
	return code, cbor.Missing(7, seen, errorNames[:], start)
}
