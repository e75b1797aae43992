package codec

import (
	"reflect"
	"testing"
)

// TestTreeTablesHoldNoPointers: a Tree's tables are of records with no
// pointer in them (no pointer, slice, string, map, interface, func or
// channel, at any depth), so the collector allocates them noscan and never
// scans them: the reason the type exists.
func TestTreeTablesHoldNoPointers(t *testing.T) {
	for _, v := range []any{treeNode{}, treeWindow{}, Scroll{}} {
		if p := pointerIn(reflect.TypeOf(v)); p != "" {
			t.Errorf("%T holds a pointer: %s", v, p)
		}
	}
}

// pointerIn names a field of t that is or holds a pointer, or "".
func pointerIn(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if p := pointerIn(t.Field(i).Type); p != "" {
				return t.Field(i).Name + "." + p
			}
		}
		return ""
	case reflect.Array:
		return pointerIn(t.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return ""
	}
	return t.Kind().String()
}
