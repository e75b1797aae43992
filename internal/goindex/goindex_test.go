package goindex

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIndex: names at package level, methods and fields (through an
// embedded type too), integer constants, and tests, each found; what is
// not declared is not.
func TestIndex(t *testing.T) {
	dir := t.TempDir()
	src := map[string]string{
		"a.go": `package a
const Max = 0x10
const Name = "x"
var v int
type Inner struct{ Field int }
func (Inner) Method() {}
type Outer struct {
	*Inner
	own string
}
type Reader interface{ Read() }
func Free[T any](T) {}
`,
		"a_test.go": `package a_test
import "testing"
func TestThing(t *testing.T) {}
func helper() {}
`,
	}
	for name, s := range src {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x := New()
	if err := x.AddTree(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, member string
		want         bool
	}{
		{"Max", "", true}, {"v", "", true}, {"Free", "", true}, {"Inner", "Field", true},
		{"Outer", "Method", true}, {"Outer", "Field", true}, {"Outer", "own", true}, {"Outer", "Inner", true},
		{"Reader", "Read", true}, {"helper", "", true},
		{"Min", "", false}, {"Outer", "Other", false}, {"Reader", "Write", false},
	} {
		if got := x.Has("a", c.name, c.member); got != c.want {
			t.Errorf("Has(a, %s, %s) = %v, want %v", c.name, c.member, got, c.want)
		}
	}
	if v, ok := x.Const("a", "Max"); !ok || v != 16 {
		t.Errorf("Const(a, Max) = %d, %v", v, ok)
	}
	if _, ok := x.Const("a", "Name"); ok {
		t.Error("a string constant has an integer value")
	}
	if !x.Test("TestThing") || x.Test("helper") || !x.Package("a") || x.Package("b") {
		t.Error("tests or packages not as declared")
	}
}
