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

// TestRecordSizes: what the docs say of the sizes, without a figure that
// a new field would make stale. A node's texts are plain strings because
// a plain string takes 8 bytes fewer than an Opt[string] would, for every
// text (Node's doc): a Node with Opt[string] texts and no Empty set is
// 8 bytes a text larger. A tree's node record is its fixed part and 4
// bytes a text (tree.go holds it at compile time). It logs the sizes, for
// the docs' readers: go test -run TestRecordSizes -v ./codec/.
func TestRecordSizes(t *testing.T) {
	node := reflect.TypeFor[Node]()
	var fields []reflect.StructField
	for i := range node.NumField() {
		f := node.Field(i)
		switch f.Type.Kind() {
		case reflect.String:
			f.Type = reflect.TypeFor[Opt[string]]()
		case reflect.Uint16: // Empty
			continue
		}
		fields = append(fields, f)
	}
	opt := reflect.StructOf(fields)
	if got, want := opt.Size()-node.Size(), uintptr(8*nodeTextCount); got != want {
		t.Errorf("Opt[string] texts would make a Node %d bytes larger, not %d (8 a text): fix Node's doc", got, want)
	}
	if got := treeNodeSize; got != treeNodeFixed+4*nodeTextCount {
		t.Errorf("a tree's node record is %d bytes", got)
	}
	t.Logf("a Node is %d bytes (%d texts; with Opt[string] texts it would be %d), a tree's node record %d, a Scroll %d",
		node.Size(), nodeTextCount, opt.Size(), treeNodeSize, scrollSize)
}
