package codec_test

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// snapshotOf wraps one root node in a snapshot response.
func snapshotOf(root *codec.Node) *codec.Response {
	return &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: &codec.Snapshot{
		Strings: []string{"android.widget.EditText"},
		Windows: []codec.Window{{ID: 1, Root: root}},
	}}
}

// ExampleNode_Has: a node's texts are plain strings; one that is present
// but empty has its bit in Empty, and Has tells present from absent.
func ExampleNode_Has() {
	field := &codec.Node{ID: 1, Flags: schema.NodeEditable, Hint: "Search"}
	field.SetText(schema.KeyNodeText, "") // present, and empty: the field was cleared
	b, _ := codec.Marshal(snapshotOf(field))
	m, _ := codec.Decode(b)
	n := m.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root
	fmt.Printf("text %q present %v; desc present %v; hint %q\n", n.Text, n.Has(codec.NodeText), n.Has(codec.NodeDesc), n.Hint)
	// Output: text "" present true; desc present false; hint "Search"
}

// TestNodeTextPresence: each text key is written when its text is not ""
// or its bit is in Empty, and left out otherwise; the decoder sets a bit
// only for a text that arrived empty, so both forms read back equal
// (TestNodeTreeFastPathTaken holds the general path to the same).
func TestNodeTextPresence(t *testing.T) {
	type text struct {
		key int
		bit codec.NodeTexts
	}
	var texts []text
	for _, k := range codec.NodeTextKeys() { // every text of the schema
		texts = append(texts, text{k, 1 << k})
	}
	for _, tx := range texts {
		for _, form := range []string{"absent", "empty", "text"} {
			n := &codec.Node{ID: 1, Children: []codec.Node{{ID: 2}}} // a tail key (hint, state) follows the children
			switch form {
			case "empty":
				n.SetText(tx.key, "")
			case "text":
				n.SetText(tx.key, "x")
			}
			b, err := codec.Marshal(snapshotOf(n))
			if err != nil {
				t.Fatal(err)
			}
			// In diagnostic notation the node with id 1 holds the pair
			// or not.
			diag, err := cbor.AppendDiag(nil, b)
			if err != nil {
				t.Fatal(err)
			}
			pair := map[string]string{"empty": fmt.Sprintf(`%d: ""`, tx.key), "text": fmt.Sprintf(`%d: "x"`, tx.key)}[form]
			for _, p := range []string{fmt.Sprintf(`%d: ""`, tx.key), fmt.Sprintf(`%d: "x"`, tx.key)} {
				if has := bytes.Contains(diag, []byte(p)); has != (p == pair) {
					t.Errorf("key %d %s: %s holds %s: %v", tx.key, form, diag, p, has)
				}
			}
			m, err := codec.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			got := m.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root
			if got.Has(tx.bit) != (form != "absent") || got.Empty != map[bool]codec.NodeTexts{true: tx.bit}[form == "empty"] {
				t.Errorf("key %d %s: read back Has %v, Empty %#x", tx.key, form, got.Has(tx.bit), got.Empty)
			}
			n.ClearText(tx.key)
			if n.Has(tx.bit) || n.Empty != 0 {
				t.Errorf("key %d %s: ClearText leaves Has %v, Empty %#x", tx.key, form, n.Has(tx.bit), n.Empty)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SetText of a key that is not a text's did not panic")
		}
	}()
	(&codec.Node{}).SetText(schema.KeyNodeResPkg, "")
}

// TestBoundsLayout: putBounds reads a Bounds as four int32s in the order
// left, top, right, bottom; the struct must stay so.
func TestBoundsLayout(t *testing.T) {
	b := codec.Bounds{Left: 1, Top: 2, Right: 3, Bottom: 4}
	if got := *(*[4]int32)(unsafe.Pointer(&b)); got != [4]int32{1, 2, 3, 4} || unsafe.Sizeof(b) != 16 {
		t.Fatalf("codec.Bounds is laid out as %v in %d bytes, want [1 2 3 4] in 16", got, unsafe.Sizeof(b))
	}
}
