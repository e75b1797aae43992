// Package shape reads the protocol's small shapes, the positional and
// keyed items that the messages are made of (bounds, a scroll, a
// display), once for every reader: the codec's owned messages, its Tree
// and the borrowed views of codec/zerocopy fill the same Go types, and
// read each shape with the functions here, whatever they fill.
//
// Each shape has two readers: one at an offset (...At), for the fast
// paths, which reads the canonical layout straight from the bytes and
// returns the offset past the item, or 0 at anything else; and one on a
// cbor.Decoder, which reads any layout the protocol allows (keys in any
// order, nulls, indefinite lengths, elements and keys past the known
// ones) and reports what is wrong with the item's field path.
//
// The readers fill layout twins of codec's types (Bounds as [4]int32,
// Scroll, Display as [4]uint32): package codec's TestShapeLayouts holds
// each twin to the type it stands for, field by field, so that a caller
// passes its own value through an unsafe.Pointer conversion at no cost.
// The twins exist because codec imports this package: it cannot name
// codec's types.
package shape

import (
	"strconv"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Opt is codec.Opt's layout.
type Opt[T any] struct {
	Val T
	Ok  bool
}

// Scroll is codec.Scroll's layout.
type Scroll struct {
	Axis, Flags uint32
	Range       Opt[Range]
	Position    Opt[Position]
}

// Range is codec.ScrollRange's layout.
type Range struct {
	Unit   uint32
	Lo, Hi int64
}

// Position is codec.ScrollPosition's layout.
type Position struct{ Lo, Hi int64 }

// U32At reads a u32 at b[i] (which exists), returning the offset past it
// or 0. Heads of up to three bytes are read without a call.
func U32At(b []byte, i int) (uint32, int) {
	switch c := b[i]; {
	case c < 24:
		return uint32(c), i + 1
	case c == 0x18 && i+1 < len(b):
		return uint32(b[i+1]), i + 2
	case c == 0x19 && i+2 < len(b):
		return uint32(b[i+1])<<8 | uint32(b[i+2]), i + 3
	}
	v, n := cbor.Uint32At(b, i)
	if n == 0 {
		return 0, 0
	}
	return v, i + n
}

// I32At reads an i32 at b[i] (which exists), returning the offset past it
// or 0. Heads of up to three bytes are read without a call.
func I32At(b []byte, i int) (int32, int) {
	c := b[i]
	var u int32
	switch c & 0x1f {
	case 24:
		if i+1 >= len(b) {
			return 0, 0
		}
		u, i = int32(b[i+1]), i+2
	case 25:
		if i+2 >= len(b) {
			return 0, 0
		}
		u, i = int32(b[i+1])<<8|int32(b[i+2]), i+3
	default:
		if c&0x1f > 24 || c >= 0x40 {
			v, n := cbor.Int32At(b, i)
			if n == 0 {
				return 0, 0
			}
			return v, i + n
		}
		u, i = int32(c&0x1f), i+1
	}
	switch c >> 5 {
	case 0:
		return u, i
	case 1:
		return -1 - u, i
	}
	return 0, 0
}

// I64At reads an integer that fits in an int64 at b[i], returning the
// offset past it or 0.
func I64At(b []byte, i int) (int64, int) {
	v, n := cbor.IntAt(b, i)
	if n == 0 {
		return 0, 0
	}
	return v, i + n
}

// BoundsAt reads a canonical bounds array, [left, top, right, bottom] of
// i32 values, at b[i] into out, returning the offset past it or 0 (out
// untouched).
func BoundsAt(b []byte, i int, out *[4]int32) int {
	if i+4 >= len(b) || b[i] != 0x84 {
		return 0
	}
	i++
	var v [4]int32
	for j := range v {
		if i >= len(b) {
			return 0
		}
		if v[j], i = I32At(b, i); i == 0 {
			return 0
		}
	}
	*out = v
	return i
}

// Bounds reads [left, top, right, bottom] into out, skipping elements
// past those.
func Bounds(d *cbor.Decoder, out *[4]int32) error {
	var v [4]int32
	if err := d.Int32Array(v[:], "bounds"); err != nil {
		return err
	}
	*out = v
	return nil
}

// ScrollAt reads a canonical scroll map at b[i], {0: axis, 1: flags, 2?:
// [unit, lo, hi], 3?: [lo, hi]}, into s (zeroed by the caller),
// returning the offset past it or 0 (s partly written).
func ScrollAt(b []byte, i int, s *Scroll) int {
	if i+4 >= len(b) || b[i] < 0xa2 || b[i] > 0xa4 || b[i+1] != schema.KeyScrollAxis {
		return 0
	}
	pairs := int(b[i] - 0xa0)
	if s.Axis, i = U32At(b, i+2); i == 0 || i+2 >= len(b) || b[i] != schema.KeyScrollFlags {
		return 0
	}
	if s.Flags, i = U32At(b, i+1); i == 0 {
		return 0
	}
	read := 2
	if read < pairs && i+2 < len(b) && b[i] == schema.KeyScrollRange && b[i+1] == 0x83 {
		r := &s.Range.Val
		if r.Unit, i = U32At(b, i+2); i == 0 || i >= len(b) {
			return 0
		}
		if r.Lo, i = I64At(b, i); i == 0 {
			return 0
		}
		if r.Hi, i = I64At(b, i); i == 0 {
			return 0
		}
		s.Range.Ok = true
		read++
	}
	if read < pairs && i+2 < len(b) && b[i] == schema.KeyScrollPosition && b[i+1] == 0x82 {
		p := &s.Position.Val
		if p.Lo, i = I64At(b, i+2); i == 0 {
			return 0
		}
		if p.Hi, i = I64At(b, i); i == 0 {
			return 0
		}
		s.Position.Ok = true
		read++
	}
	if read != pairs || s.Position.Ok && !s.Range.Ok { // (ReadScroll says why)
		return 0
	}
	return i
}

// ReadScroll reads a scroll map into s (zeroed by the caller): a null
// range or position is absent, unknown keys are skipped, axis and flags
// are required, and a position comes only with a range (the encoder's
// rule too, so whatever decodes encodes again).
func ReadScroll(d *cbor.Decoder, s *Scroll) error {
	it, err := d.Fields(schema.Scroll.Len())
	if err != nil {
		return err
	}
	posAt := 0
	for it.Next(d) {
		switch k := it.Key(); {
		case it.Null():
			switch k {
			case schema.KeyScrollRange:
				s.Range = Opt[Range]{}
			case schema.KeyScrollPosition:
				s.Position = Opt[Position]{}
			}
		case k == schema.KeyScrollAxis:
			s.Axis, err = d.Uint32()
		case k == schema.KeyScrollFlags:
			s.Flags, err = d.Uint32()
		case k == schema.KeyScrollRange:
			s.Range.Ok = true
			r := &s.Range.Val
			err = d.FixedArray("a scroll range", []string{"unit", "lo", "hi"}, func(i int) (err error) {
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
		case k == schema.KeyScrollPosition:
			s.Position.Ok, posAt = true, d.Offset()
			p := &s.Position.Val
			err = d.FixedArray("a scroll position", []string{"lo", "hi"}, func(i int) (err error) {
				if i == 0 {
					p.Lo, err = d.Int()
				} else {
					p.Hi, err = d.Int()
				}
				return err
			})
		default:
			err = NoReader(schema.Scroll, k)
		}
		if err != nil {
			return schema.Scroll.In(err, it.Key())
		}
	}
	if err := End(&it, schema.Scroll); err != nil {
		return err
	}
	if s.Position.Ok && !s.Range.Ok {
		return schema.Scroll.In(cbor.Errorf(cbor.ErrInvalid, posAt, "a scroll position needs a range"), schema.KeyScrollPosition)
	}
	return nil
}

// ReadDisplay reads a display map, {0: width, 1: height, 2: density_dpi,
// 3: rotation}, into v (zeroed by the caller): every key is required.
func ReadDisplay(d *cbor.Decoder, v *[4]uint32) error {
	it, err := d.Fields(schema.Display.Len())
	if err != nil {
		return err
	}
	for it.Next(d) {
		if it.Null() {
			continue
		}
		if k := it.Key(); k < uint64(len(v)) {
			v[k], err = d.Uint32()
		} else {
			err = NoReader(schema.Display, k)
		}
		if err != nil {
			return schema.Display.In(err, it.Key())
		}
	}
	return End(&it, schema.Display)
}

// NoReader is the error for a key that m names and the reader of its map
// has no case for: a key added to the schema without the code that reads
// it. It fails the decoding (and so the golden sample that carries the
// key) instead of reading the value into another field.
func NoReader(m schema.Map, k uint64) error {
	return cbor.Errorf(cbor.ErrInvalid, 0, "no reader for key "+strconv.FormatUint(k, 10)+" ("+m.Name(k)+")")
}

// End is the outcome of a FieldIter's map m once Next reports false: the
// iteration's error, or the first required key missing.
func End(it *cbor.FieldIter, m schema.Map) error {
	if err := it.Err(); err != nil {
		return err
	}
	return m.Missing(it.Seen(), it.Start())
}
