package codec_test

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// TestMethodTable checks the method table's rows against each other: the
// constructors make the method's own types, a method whose parameters
// are all optional has no required key (and only then is nil Params
// encodable), and an Empty result has no keys.
func TestMethodTable(t *testing.T) {
	for _, m := range codec.Methods() {
		pf, rf := m.ParamMap(), m.ResultMap()
		if got := m.OptionalParams(); got != (pf.RequiredMask() == 0) {
			t.Errorf("%s: OptionalParams %v with required keys %b", m, got, pf.RequiredMask())
		}
		_, empty := codec.ResultFor(m).(*codec.Empty)
		if m.EmptyResult() != empty || (empty && rf.Len() != 0) {
			t.Errorf("%s: EmptyResult %v, ResultFor %T, %d result keys", m, m.EmptyResult(), codec.ResultFor(m), rf.Len())
		}
		_, err := codec.Marshal(&codec.Request{ID: 1, Method: m})
		if m.OptionalParams() != (err == nil) {
			t.Errorf("%s: nil Params encodes with error %v, OptionalParams %v", m, err, m.OptionalParams())
		}
	}
	if codec.Method(99).ParamMap() != schema.Empty || codec.Method(99).OptionalParams() || codec.ParamsFor(99) != nil || codec.ResultFor(99) != nil {
		t.Error("an unknown method has a schema")
	}
}

// TestLeastLengths: schema.MinNodeLen and schema.MinWindowLen, with which
// the readers cap a count by the bytes left, are the encodings of the
// least node and the least window the codec writes.
func TestLeastLengths(t *testing.T) {
	node, err := codec.Marshal(&codec.Response{ID: 0, Method: codec.MethodSnapshot, Result: &codec.Snapshot{
		Windows: []codec.Window{{Root: &codec.Node{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	window, err := codec.Marshal(&codec.Response{ID: 0, Method: codec.MethodSnapshot, Result: &codec.Snapshot{
		Windows: []codec.Window{{}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The node adds its key (1 byte) and its map to the window's.
	if got := len(node) - len(window) - 1; got != schema.MinNodeLen {
		t.Errorf("the least node takes %d bytes, schema.MinNodeLen is %d", got, schema.MinNodeLen)
	}
	empty, err := codec.Marshal(&codec.Response{ID: 0, Method: codec.MethodSnapshot, Result: &codec.Snapshot{Windows: []codec.Window{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(window) - len(empty); got != schema.MinWindowLen {
		t.Errorf("the least window takes %d bytes, schema.MinWindowLen is %d", got, schema.MinWindowLen)
	}
}
