package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// TestMap checks a map's description: names by key, keys by name, the
// required keys, and the error for a missing one.
func TestMap(t *testing.T) {
	f := schema.Node
	if f.Name(schema.KeyNodeResName) != "res_name" || f.Name(99) != "" || f.Len() < 12 { // keys 0 (id) to 11 (state), and any added after them
		t.Errorf("schema.Node: Name(7) %q, Name(99) %q, Len %d", f.Name(7), f.Name(99), f.Len())
	}
	if k, ok := f.Key("scroll"); !ok || k != schema.KeyNodeScroll {
		t.Errorf("Key(scroll) = %d, %v", k, ok)
	}
	if _, ok := f.Key("nope"); ok {
		t.Error("Key(nope) found")
	}
	if !f.Required(schema.KeyNodeFlags) || f.Required(schema.KeyNodeText) || f.Required(40) {
		t.Error("Required: flags must be, text and key 40 not")
	}
	if err := f.Missing(0xf, 3); err != nil {
		t.Errorf("Missing with every required key: %v", err)
	}
	err := f.Missing(1<<schema.KeyNodeID|1<<schema.KeyNodeBounds|1<<schema.KeyNodeFlags, 3)
	var de *cbor.Error
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
