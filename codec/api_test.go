package codec_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxExported is the most names codec may export (issue 41: the schema
// had made it 417, fxamacker/cbor exports 252).
const maxExported = 250

// TestAPI: `go doc ./codec` opens on the API, and the API stays small.
// go/doc, which go doc is built on, reads the package's files: every
// exported constant and variable must be grouped under a type of the
// package (none listed before the first function), no variable is
// exported (nothing of the codec can change at run time), and the names
// exported, counted as go doc lists them (constants, variables, types,
// functions, and the methods of exported types; struct fields are not
// counted), are at most maxExported.
func TestAPI(t *testing.T) {
	p := docOf(t, ".", "github.com/wirebench/wirebench/codec")
	for _, v := range p.Consts {
		t.Errorf("constants %v stand before the first function: group them under a type, or move them to codec/schema", v.Names)
	}
	n, vars := count(p)
	for _, v := range vars {
		t.Errorf("variables %v are exported: nothing of the codec may change at run time", v.Names)
	}
	if n > maxExported {
		t.Errorf("codec exports %d names, at most %d", n, maxExported)
	}
	t.Logf("codec exports %d names", n)
}

// docOf is the documentation go doc reads for the package in dir, its
// test files left out.
func docOf(t *testing.T, dir, importPath string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// count is the number of names p exports, and its exported variables.
func count(p *doc.Package) (n int, vars []*doc.Value) {
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			n += len(v.Names)
		}
	}
	values(p.Consts)
	values(p.Vars)
	vars = append(vars, p.Vars...)
	n += len(p.Funcs)
	for _, ty := range p.Types {
		n++
		values(ty.Consts)
		values(ty.Vars)
		vars = append(vars, ty.Vars...)
		n += len(ty.Funcs) + len(ty.Methods)
	}
	return n, vars
}
