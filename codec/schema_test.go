package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// TestMethodTable checks the method table's rows against each other: the
// constructors make the method's own types, a method whose parameters
// are all optional has no required key (and only then is nil Params
// encodable), and an Empty result has no keys.
func TestMethodTable(t *testing.T) {
	for _, m := range codec.Methods() {
		pf, rf := m.ParamFields(), m.ResultFields()
		if pf == nil || rf == nil {
			t.Fatalf("%s: no parameter or result schema", m)
		}
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
	if codec.Method(99).ParamFields() != nil || codec.Method(99).OptionalParams() || codec.ParamsFor(99) != nil || codec.ResultFor(99) != nil {
		t.Error("an unknown method has a schema")
	}
}

// TestFields checks a map's description: names by key, keys by name, the
// required keys, and the error for a missing one.
func TestFields(t *testing.T) {
	f := codec.NodeFields
	if f.Name(codec.KeyNodeResName) != "res_name" || f.Name(99) != "" || f.Len() < 12 { // keys 0 (id) to 11 (state), and any added after them
		t.Errorf("NodeFields: Name(7) %q, Name(99) %q, Len %d", f.Name(7), f.Name(99), f.Len())
	}
	if k, ok := f.Key("scroll"); !ok || k != codec.KeyNodeScroll {
		t.Errorf("Key(scroll) = %d, %v", k, ok)
	}
	if _, ok := f.Key("nope"); ok {
		t.Error("Key(nope) found")
	}
	if !f.Required(codec.KeyNodeFlags) || f.Required(codec.KeyNodeText) || f.Required(40) {
		t.Error("Required: flags must be, text and key 40 not")
	}
	if err := f.Missing(0xf, 3); err != nil {
		t.Errorf("Missing with every required key: %v", err)
	}
	err := f.Missing(1<<codec.KeyNodeID|1<<codec.KeyNodeBounds|1<<codec.KeyNodeFlags, 3)
	var de *codec.DecodeError
	if !errors.Is(err, cbor.ErrMissing) || !errors.As(err, &de) || de.Offset != 3 || de.Path() != "class" {
		t.Fatalf("Missing without class: %v", err)
	}
	if want := "key 1 (class) is required"; !strings.Contains(err.Error(), want) {
		t.Errorf("Missing: %q lacks %q", err, want)
	}
	if f.In(nil, 1) != nil {
		t.Error("In(nil) is not nil")
	}
}
