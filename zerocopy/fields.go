package zerocopy

import (
	"strconv"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Field readers shared by the validation pass and the walk, so that both
// read a map exactly as the codec's decoder does: keys in any order, the
// last of a repeated key wins, a null value counts as absent, unknown keys
// are skipped.

// The required keys of a node and a scroll map (schema.Node and
// schema.Scroll), as constants for the fast paths.
const (
	nodeNeed   = 1<<schema.KeyNodeID | 1<<schema.KeyNodeClass | 1<<schema.KeyNodeBounds | 1<<schema.KeyNodeFlags
	scrollNeed = 1<<schema.KeyScrollAxis | 1<<schema.KeyScrollFlags
)

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
	if err := d.Int32Array(v[:], "bounds"); err != nil {
		return err
	}
	*b = codec.Bounds{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]}
	return nil
}

// nodeField reads the value of key k of a node into nv; the children are
// the caller's. seen collects the keys present.
func nodeField(d *dec, nv *NodeView, k uint64, seen *uint32) (err error) {
	if d.Null() {
		switch {
		case k < nodeKeys && nodeTexts&(1<<k) != 0:
			*nv.textField(int(k)) = codec.Opt[string]{}
		case k == schema.KeyNodeResPkg:
			nv.ResPkg = codec.Opt[uint32]{}
		case k == schema.KeyNodeScroll:
			nv.Scroll = codec.Opt[codec.Scroll]{}
		}
		if k < 32 {
			*seen &^= 1 << k
		}
		return nil
	}
	switch {
	case k < nodeKeys && nodeTexts&(1<<k) != 0:
		*nv.textField(int(k)), err = optText(d)
	case k == schema.KeyNodeID:
		nv.ID, err = d.Uint32()
	case k == schema.KeyNodeClass:
		nv.Class, err = d.Uint32()
	case k == schema.KeyNodeBounds:
		err = bounds(d, &nv.Bounds)
	case k == schema.KeyNodeFlags:
		nv.Flags, err = d.Uint32()
	case k == schema.KeyNodeResPkg:
		nv.ResPkg, err = optU32(d)
	case k == schema.KeyNodeScroll:
		nv.Scroll = codec.Opt[codec.Scroll]{Ok: true}
		err = scroll(d, &nv.Scroll.Val)
	default:
		err = d.Skip()
	}
	if err != nil {
		return schema.Node.In(err, k)
	}
	if k < 32 {
		*seen |= 1 << k
	}
	return nil
}

// scroll reads a Scroll map.
func scroll(d *dec, s *codec.Scroll) error {
	it, err := d.Fields(schema.Scroll.Len())
	if err != nil {
		return err
	}
	for it.Next(d) {
		switch k := it.Key(); {
		case it.Null():
			switch k {
			case schema.KeyScrollRange:
				s.Range = codec.Opt[codec.ScrollRange]{}
			case schema.KeyScrollPosition:
				s.Position = codec.Opt[codec.ScrollPosition]{}
			}
		case k == schema.KeyScrollAxis:
			s.Axis, err = d.Uint32()
		case k == schema.KeyScrollFlags:
			s.Flags, err = d.Uint32()
		case k == schema.KeyScrollRange:
			s.Range.Ok = true
			err = scrollRange(d, &s.Range.Val)
		case k == schema.KeyScrollPosition:
			s.Position.Ok = true
			err = scrollPosition(d, &s.Position.Val)
		default:
			err = noReader(schema.Scroll, k)
		}
		if err != nil {
			return schema.Scroll.In(err, it.Key())
		}
	}
	return mapEnd(&it, schema.Scroll)
}

// noReader is the error for a key that f names and the reader of its
// map has no case for: a key added to the schema without the code that
// reads it. It fails the parse (and so the golden sample that carries
// the key) instead of reading the value into another field.
func noReader(f schema.Map, k uint64) error {
	return cbor.Errorf(cbor.ErrInvalid, 0, "zerocopy: no reader for key "+strconv.FormatUint(k, 10)+" ("+f.Name(k)+")")
}

// mapEnd is the outcome of a FieldIter's map of f once Next reports
// false: the iteration's error, or the first required key missing.
func mapEnd(it *cbor.FieldIter, f schema.Map) error {
	if err := it.Err(); err != nil {
		return err
	}
	return f.Missing(it.Seen(), it.Start())
}

func scrollRange(d *dec, r *codec.ScrollRange) error {
	return d.FixedArray("a scroll range", []string{"unit", "lo", "hi"}, func(i int) (err error) {
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
	return d.FixedArray("a scroll position", []string{"lo", "hi"}, func(i int) (err error) {
		if i == 0 {
			p.Lo, err = d.Int()
		} else {
			p.Hi, err = d.Int()
		}
		return err
	})
}

// clearWindowField clears the field of key k of a window, whose value is
// null.
func clearWindowField(wv *WindowView, k uint64) {
	switch k {
	case schema.KeyWindowTitle:
		wv.Title = codec.Opt[string]{}
	case schema.KeyWindowPackage:
		wv.Package = codec.Opt[uint32]{}
	case schema.KeyWindowEmitsEvents:
		wv.EmitsEvents = codec.Opt[bool]{}
	case schema.KeyWindowOwner:
		wv.Owner = codec.Opt[uint32]{}
	case schema.KeyWindowModal:
		wv.Modal = false
	}
}

// windowField reads the value of key k of a window into wv; the root is
// the caller's.
func windowField(d *dec, wv *WindowView, k uint64) (err error) {
	switch k {
	case schema.KeyWindowID:
		wv.ID, err = d.Uint32()
	case schema.KeyWindowType:
		wv.Type, err = d.Uint32()
	case schema.KeyWindowLayer:
		wv.Layer, err = d.Int32()
	case schema.KeyWindowBounds:
		err = bounds(d, &wv.Bounds)
	case schema.KeyWindowFlags:
		wv.Flags, err = d.Uint32()
	case schema.KeyWindowTitle:
		wv.Title, err = optText(d)
	case schema.KeyWindowPackage:
		wv.Package, err = optU32(d)
	case schema.KeyWindowEmitsEvents:
		var b bool
		b, err = d.Bool()
		wv.EmitsEvents = codec.Opt[bool]{Val: b, Ok: err == nil}
	case schema.KeyWindowOwner:
		wv.Owner, err = optU32(d)
	case schema.KeyWindowModal:
		wv.Modal, err = d.Bool()
	default:
		err = d.Skip()
	}
	if err != nil {
		return schema.Window.In(err, k)
	}
	return nil
}

// display reads a Display map.
func display(d *dec, v *codec.Display) error {
	it, err := d.Fields(schema.Display.Len())
	if err != nil {
		return err
	}
	for it.Next(d) {
		if it.Null() {
			continue
		}
		dst := [...]*uint32{schema.KeyDisplayWidth: &v.Width, schema.KeyDisplayHeight: &v.Height, schema.KeyDisplayDensityDPI: &v.DensityDPI, schema.KeyDisplayRotation: &v.Rotation}[it.Key()]
		if *dst, err = d.Uint32(); err != nil {
			return schema.Display.In(err, it.Key())
		}
	}
	return mapEnd(&it, schema.Display)
}

// protoError validates an Error map and returns its code, borrowed.
func protoError(d *dec) (string, error) {
	it, err := d.Fields(schema.Error.Len())
	if err != nil {
		return "", err
	}
	var code string
	for it.Next(d) {
		switch k := it.Key(); {
		case it.Null():
			if k == schema.KeyErrorCode {
				code = ""
			}
		case k == schema.KeyErrorCode:
			code, err = text(d)
		case k == schema.KeyErrorMessage:
			_, err = text(d)
		case k == schema.KeyErrorRetryable:
			_, err = d.Bool()
		default:
			err = noReader(schema.Error, k)
		}
		if err != nil {
			return "", schema.Error.In(err, it.Key())
		}
	}
	return code, mapEnd(&it, schema.Error)
}
