package zerocopy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// TestEveryNodeText: each text field of codec.Node (found by reflection,
// its key its place among Node's keyed fields), set alone on a leaf and
// on a node with children, reads into the NodeView field of the same
// name only, by the fast paths (canonical bytes) and the general ones
// (pairs reversed, wide heads), fresh and through the node table, and
// toOwned gives the codec's node back (checkSnapshot). A text key that a
// case list forgot, or routed to another field, fails here.
func TestEveryNodeText(t *testing.T) {
	nt := reflect.TypeFor[codec.Node]()
	var keyed []reflect.StructField
	for i := range nt.NumField() {
		if f := nt.Field(i); f.Type != reflect.TypeFor[codec.NodeTexts]() {
			keyed = append(keyed, f)
		}
	}
	if len(keyed) != schema.Node.Len() || nodeKeys != len(keyed) {
		t.Fatalf("codec.Node has %d keyed fields, NodeFields %d keys, nodeKeys is %d", len(keyed), schema.Node.Len(), nodeKeys)
	}
	vt := reflect.TypeFor[NodeView]()
	for k, f := range keyed {
		if f.Type.Kind() != reflect.String {
			if nodeTexts&(1<<k) != 0 {
				t.Errorf("key %d (%s) is no text, but in nodeTexts", k, f.Name)
			}
			continue
		}
		if nodeTexts&(1<<k) == 0 {
			t.Errorf("key %d (%s) is a text, but not in nodeTexts", k, f.Name)
		}
		if vf, ok := vt.FieldByName(f.Name); !ok || vf.Type != reflect.TypeFor[codec.Opt[string]]() {
			t.Fatalf("NodeView has no field %s of codec.Opt[string]", f.Name)
		}
		for _, val := range []string{"v-" + f.Name, ""} {
			leaf := codec.Node{ID: 3, Bounds: codec.Bounds{Left: 1, Top: 2, Right: 3, Bottom: 4}}
			reflect.ValueOf(&leaf).Elem().FieldByName(f.Name).SetString(val)
			if val == "" {
				leaf.Empty = codec.NodeTexts(1) << k
			}
			parent := leaf
			parent.ID, parent.Children = 2, []codec.Node{{ID: 4}}
			root := &codec.Node{ID: 1, Children: []codec.Node{parent, leaf}}
			s := &codec.Snapshot{Strings: []string{"c"}, Windows: []codec.Window{{ID: 1, Root: root}}}
			b, err := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
			if err != nil {
				t.Fatal(err)
			}
			value, err := cbor.DecodeValue(b)
			if err != nil {
				t.Fatal(err)
			}
			// The leaf (id 3, no children) is read by the fast paths whole:
			// a forgotten text key would leave it to the general path.
			leafAt := -1
			for i := 0; i+4 < len(b); i++ {
				if b[i] >= 0xa4 && b[i] <= 0xb7 && b[i+1] == schema.KeyNodeID && b[i+2] == 3 && i+4 < len(b) && b[i+3] == schema.KeyNodeClass && b[i+4] == 0 {
					if leafAt >= 0 {
						t.Fatalf("two leaves of id 3 in % x", b)
					}
					leafAt = i
				}
			}
			if leafAt < 0 {
				t.Fatalf("no leaf of id 3 in % x", b)
			}
			vf := &vframe{start: leafAt, n: int(b[leafAt] - 0xa0)}
			var nv NodeView
			if _, stop := decodePairs(b, leafAt+1, vf, &nv); stop != scanEnd || vf.i != vf.n {
				t.Errorf("key %d (%s) = %q: decodePairs stopped (%d) after %d of %d pairs", k, f.Name, val, stop, vf.i, vf.n)
			}
			w := Walker{buf: b}
			if !w.readNode(leafAt) {
				t.Errorf("key %d (%s) = %q: readNode left the leaf to the general path", k, f.Name, val)
			}
			reversed := cloneValue(value)
			eachMap(&reversed, reversePairs)
			for _, form := range []struct {
				name string
				b    []byte
			}{{"canonical", b}, {"reversed", encodeValue(nil, reversed, false, false)}, {"wide", encodeValue(nil, value, false, true)}} {
				name := fmt.Sprintf("key %d (%s) = %q, %s", k, f.Name, val, form.name)
				if !checkSnapshot(t, name, form.b) {
					t.Fatalf("%s: not compared", name)
				}
				for view, v := range views(t, form.b) {
					var w Walker
					for w.Reset(v); w.Next(); {
						n := w.Node()
						if n == nil || n.ID < 2 || n.ID > 3 {
							continue
						}
						nv := reflect.ValueOf(n).Elem()
						for _, g := range keyed {
							if g.Type.Kind() != reflect.String {
								continue
							}
							o := nv.FieldByName(g.Name).Interface().(codec.Opt[string])
							if want := (codec.Opt[string]{Val: val, Ok: true}); g.Name == f.Name && o != want || g.Name != f.Name && o.Ok {
								t.Errorf("%s (%s view): node %d has %s %+v", name, view, n.ID, g.Name, o)
							}
						}
					}
					if w.Err() != nil {
						t.Fatalf("%s (%s view): %v", name, view, w.Err())
					}
				}
			}
		}
	}
}
