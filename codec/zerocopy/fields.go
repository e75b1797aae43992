package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// Field readers shared by the validation pass and the walk, so that both
// read a map exactly as the codec's decoder does: keys in any order, the
// last of a repeated key wins, a null value counts as absent, unknown keys
// are skipped.

// nodeNeed is the required keys of a node map (schema.Node), as a
// constant for the fast paths.
const nodeNeed = 1<<schema.KeyNodeID | 1<<schema.KeyNodeClass | 1<<schema.KeyNodeBounds | 1<<schema.KeyNodeFlags

func optText(d *dec) (codec.Opt[string], error) {
	s, err := text(d)
	return codec.Opt[string]{Val: s, Ok: err == nil}, err
}

func optU32(d *dec) (codec.Opt[uint32], error) {
	v, err := d.Uint32()
	return codec.Opt[uint32]{Val: v, Ok: err == nil}, err
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
		err = shape.Bounds(d, boundsTwin(&nv.Bounds))
	case k == schema.KeyNodeFlags:
		nv.Flags, err = d.Uint32()
	case k == schema.KeyNodeResPkg:
		nv.ResPkg, err = optU32(d)
	case k == schema.KeyNodeScroll:
		nv.Scroll = codec.Opt[codec.Scroll]{Ok: true}
		err = shape.ReadScroll(d, scrollTwin(&nv.Scroll.Val))
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

// noReader is the error for a key that m names and the reader of its map
// has no case for (shape.NoReader).
func noReader(m schema.Map, k uint64) error { return shape.NoReader(m, k) }

// mapEnd is the outcome of a FieldIter's map m once Next reports false
// (shape.End).
func mapEnd(it *cbor.FieldIter, m schema.Map) error { return shape.End(it, m) }

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
		err = shape.Bounds(d, boundsTwin(&wv.Bounds))
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
