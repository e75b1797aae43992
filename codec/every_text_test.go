package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// nodeKeyFields returns, by key, the index in Node of the field each key
// of schema.Node fills, read from Node itself (its keyed fields follow the
// keys, beside the Empty set) and not from the generated tables, which
// the tests below hold to it.
func nodeKeyFields(t testing.TB) []int {
	t.Helper()
	nt := reflect.TypeFor[Node]()
	var idx []int
	for i := range nt.NumField() {
		if nt.Field(i).Type != reflect.TypeFor[NodeTexts]() {
			idx = append(idx, i)
		}
	}
	if len(idx) != schema.Node.Len() {
		t.Fatalf("Node has %d keyed fields, schema.Node %d keys", len(idx), schema.Node.Len())
	}
	return idx
}

// TestNodeSchemaAgrees: the generated names are the fields' names in
// snake_case, and the generated text set is exactly the string fields.
func TestNodeSchemaAgrees(t *testing.T) {
	nt := reflect.TypeFor[Node]()
	for k, i := range nodeKeyFields(t) {
		f := nt.Field(i)
		var want strings.Builder
		for j, c := range f.Name {
			if j > 0 && c >= 'A' && c <= 'Z' && f.Name[j-1] >= 'a' && f.Name[j-1] <= 'z' {
				want.WriteByte('_')
			}
			want.WriteString(strings.ToLower(string(c)))
		}
		if got := schema.Node.Name(uint64(k)); got != want.String() {
			t.Errorf("key %d (Node.%s) is named %q, want %q", k, f.Name, got, want.String())
		}
		isText := f.Type.Kind() == reflect.String
		if inSet := nodeTexts&(1<<k) != 0; inSet != isText {
			t.Errorf("key %d (Node.%s, %s): in the text set %v", k, f.Name, f.Type, inSet)
		}
		if isText && schema.Node.Required(uint64(k)) {
			t.Errorf("key %d (Node.%s): a required text", k, f.Name)
		}
	}
	for k := -1; k <= nodeKeys; k++ {
		want := -1
		for i, tk := range nodeTextKeys {
			if tk == k {
				want = i
			}
		}
		if got := nodeTextSlot(k); got != want {
			t.Errorf("nodeTextSlot(%d) = %d, want %d (nodeTextKeys %v)", k, got, want, nodeTextKeys)
		}
	}
	if nodeKeys != schema.Node.Len() {
		t.Errorf("nodeKeys %d, schema.Node has %d keys", nodeKeys, schema.Node.Len())
	}
}

// TestEveryNodeText: each text field of a node, set alone (found by
// reflection, not through the generated accessor), on a leaf and on a
// node with children, not empty and empty, is written under its key
// only, and read back into that field only by the fast path, the
// general decoder and nodeTreeFast; SetText, Has and ClearText reach the
// same field. Another key is no text: SetText panics. A text key that a
// switch forgot, or routed to another field, fails here.
func TestEveryNodeText(t *testing.T) {
	nt := reflect.TypeFor[Node]()
	for k, fi := range nodeKeyFields(t) {
		f := nt.Field(fi)
		if f.Type.Kind() != reflect.String {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("SetText(%d) (Node.%s, no text) did not panic", k, f.Name)
					}
				}()
				new(Node).SetText(k, "x")
			}()
			continue
		}
		bit := NodeTexts(1) << k
		for _, shape := range []string{"leaf", "parent"} {
			for _, val := range []string{"v-" + f.Name, ""} {
				name := fmt.Sprintf("key %d (%s) on a %s = %q", k, f.Name, shape, val)
				n := &Node{ID: 1, Class: 0, Bounds: Bounds{1, 2, 3, 4}, Flags: schema.NodeVisible}
				if shape == "parent" {
					n.Children = []Node{{ID: 2, Bounds: Bounds{5, 6, 7, 8}}}
				}
				reflect.ValueOf(n).Elem().Field(fi).SetString(val)
				if val == "" {
					n.Empty = bit
				}
				if !n.Has(bit) || n.Has(nodeTexts) {
					t.Errorf("%s: Has(own bit) %v, Has(all) %v", name, n.Has(bit), n.Has(nodeTexts))
				}
				b, err := Marshal(&Response{ID: 1, Method: MethodSnapshot, Result: &Snapshot{
					Strings: []string{"c"}, Windows: []Window{{ID: 1, Root: n}}}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				diag, err := cbor.AppendDiag(nil, b)
				if err != nil {
					t.Fatal(err)
				}
				if pair := fmt.Sprintf("%d: %q", k, val); bytes.Count(diag, []byte(pair)) != 1 {
					t.Errorf("%s: %s holds %s other than once", name, diag, pair)
				}
				m, err := decodeBoth(t, b)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := m.(*Response).Result.(*Snapshot).Windows[0].Root
				if !reflect.DeepEqual(got, n) {
					t.Errorf("%s: read back as\n%#v\nwant\n%#v", name, got, n)
				}
				if fast, ok := fastTree(t, n); !ok {
					t.Errorf("%s: the node-tree fast path gave up", name)
				} else if !reflect.DeepEqual(fast, n) {
					t.Errorf("%s: the node-tree fast path read\n%#v\nwant\n%#v", name, fast, n)
				}
				o := &Node{}
				o.SetText(k, val)
				want := &Node{Empty: n.Empty}
				reflect.ValueOf(want).Elem().Field(fi).SetString(val)
				if !reflect.DeepEqual(o, want) || !o.Has(bit) {
					t.Errorf("%s: SetText gave %#v", name, o)
				}
				if o.ClearText(k); !reflect.DeepEqual(o, &Node{}) {
					t.Errorf("%s: ClearText left %#v", name, o)
				}
			}
		}
	}
}
