package codec

import (
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec/internal/shape"
)

// TestShapeLayouts: each layout twin that package shape fills stands for
// its codec type, field by field (names, offsets, kinds, and the same of
// the fields' own types), so that the unsafe.Pointer conversions of
// shapes.go (codec's and codec/zerocopy's) write the fields they name. An
// array twin stands for a struct of as many fields of its element type,
// in order.
func TestShapeLayouts(t *testing.T) {
	for _, c := range []struct{ own, twin any }{
		{Bounds{}, [4]int32{}},
		{Display{}, [4]uint32{}},
		{Scroll{}, shape.Scroll{}},
	} {
		if err := sameLayout(reflect.TypeOf(c.own), reflect.TypeOf(c.twin)); err != "" {
			t.Errorf("%T and its twin %T: %s", c.own, c.twin, err)
		}
	}
}

// sameLayout says how a and b are laid out differently, "" when they are
// not.
func sameLayout(a, b reflect.Type) string {
	if a.Size() != b.Size() || a.Align() != b.Align() {
		return a.String() + " and " + b.String() + " differ in size or alignment"
	}
	if a.Kind() == reflect.Struct && b.Kind() == reflect.Array {
		if a.NumField() != b.Len() {
			return a.String() + " has another count of fields than " + b.String() + " of elements"
		}
		for i := range a.NumField() {
			f := a.Field(i)
			if f.Offset != uintptr(i)*b.Elem().Size() || f.Type.Kind() != b.Elem().Kind() {
				return a.String() + "." + f.Name + " is not element " + string(rune('0'+i)) + " of " + b.String()
			}
		}
		return ""
	}
	if a.Kind() != b.Kind() {
		return a.String() + " is a " + a.Kind().String() + ", " + b.String() + " a " + b.Kind().String()
	}
	if a.Kind() != reflect.Struct {
		return ""
	}
	if a.NumField() != b.NumField() {
		return a.String() + " and " + b.String() + " have other counts of fields"
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Offset != fb.Offset {
			return a.String() + "." + fa.Name + " and " + b.String() + "." + fb.Name + " differ in name or offset"
		}
		if err := sameLayout(fa.Type, fb.Type); err != "" {
			return err
		}
	}
	return ""
}
