package wirejson

import (
	"fmt"
	"reflect"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// PayloadLen is the length of the CBOR payload codec.Append writes for m,
// found from the schema without encoding: a map per struct with a table
// (its present fields, each a one-byte key and its value), an array per
// positional struct and list, every integer and length in its shortest
// head. wire encode sizes a frame's buffer by it, and refuses a message
// over the frame limit before encoding it. TestPayloadLen checks it
// against codec.Append.
func PayloadLen(m codec.Message) (int, error) {
	switch m := m.(type) {
	case *codec.Event:
		n := cbor.HeadLen(uint64(4)) + cbor.HeadLen(uint64(codec.KindEvent)) + cbor.HeadLen(uint64(m.Stream)) + cbor.HeadLen(m.Seq) + cbor.HeadLen(uint64(m.Type))
		if m.Body == nil {
			return n, nil
		}
		v := reflect.ValueOf(m.Body)
		p, err := planOf(v.Type().Elem())
		if err != nil {
			return 0, err
		}
		for _, f := range p.fields {
			n += cborLen(f.p, v.Elem().Field(f.index))
		}
		return n, nil // the array head counts 4+fields, still one byte
	case *codec.UnknownKind, nil:
		return 0, fmt.Errorf("no encoding for message %T", m)
	}
	v := reflect.ValueOf(m).Elem()
	p, err := planOf(v.Type())
	if err != nil {
		return 0, err
	}
	return cborLen(p, v) + 1 + cbor.HeadLen(uint64(m.Kind())), nil // key 0, the kind (the map head counts it)
}

// cborLen is the length of v's CBOR encoding by p.
func cborLen(p *plan, v reflect.Value) int {
	switch p.kind {
	case pUint, pCaps, pMethod, pStream:
		return cbor.HeadLen(v.Uint())
	case pInt:
		if i := v.Int(); i < 0 {
			return cbor.HeadLen(uint64(-1 - i))
		}
		return cbor.HeadLen(uint64(v.Int()))
	case pBool:
		return 1
	case pString, pBytes:
		return cbor.HeadLen(uint64(v.Len())) + v.Len()
	case pSlice:
		n := cbor.HeadLen(uint64(v.Len()))
		for i := range v.Len() {
			n += cborLen(p.elem, v.Index(i))
		}
		return n
	case pOpt:
		return cborLen(p.elem, v.Field(0))
	case pPtr:
		return cborLen(p.elem, v.Elem())
	case pParams, pResult:
		if v.IsNil() {
			return 1 // {}
		}
		ep, err := planOf(v.Elem().Type().Elem())
		if err != nil {
			return 0
		}
		return cborLen(ep, v.Elem().Elem())
	}
	// A struct: a map of its present fields, or the array of a
	// positional one.
	_, keyed := tables[p.typ]
	n, count := 0, 0
	if keyed && keyBase(p.typ) == 1 {
		count = 1 // the kind, which PayloadLen adds
	}
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		if keyed && !present(f, fv, v) {
			continue
		}
		count++
		n += cborLen(f.p, fv)
		if keyed {
			n++ // the key, below 24
		}
	}
	return cbor.HeadLen(uint64(count)) + n
}
