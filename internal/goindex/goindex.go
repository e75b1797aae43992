// Package goindex reads the declarations of Go packages from their
// source, for tests that hold documents to the code: which names a
// package declares (at package level, and as methods and fields of its
// types, embedded ones included), the values of its integer constants,
// and its tests.
package goindex

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Index holds declarations by package name ("codec"): names of packages
// in different directories that share a name are merged.
type Index struct {
	pkgs     map[string]bool
	names    map[string]bool     // "codec.Decode"
	members  map[string]bool     // "codec.Splitter.Feed": methods and fields
	embedded map[string][]string // "codec.FrameTooLargeError": its embedded types
	consts   map[string]uint64   // "codec.MethodTap": constants with an integer literal value
	tests    map[string]bool     // "TestGateProperty"
}

// New returns an empty index.
func New() *Index {
	return &Index{pkgs: map[string]bool{}, names: map[string]bool{}, members: map[string]bool{}, embedded: map[string][]string{},
		consts: map[string]uint64{}, tests: map[string]bool{}}
}

// testName is a test, benchmark, fuzz target or example's name.
var testName = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)[A-Z_]\w*$`)

// AddDir adds the Go files of the directory dir, under the package name
// name ("": the files' own), tests too when tests is set.
func (x *Index) AddDir(dir, name string, tests bool) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if !tests && strings.HasSuffix(f, "_test.go") {
			continue
		}
		if err := x.addFile(f, name); err != nil {
			return err
		}
	}
	return nil
}

// AddTree adds every Go file below root, tests included, each under its
// own package name, leaving out node_modules, testdata and .git.
func (x *Index) AddTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return x.addFile(path, "")
	})
}

func (x *Index) addFile(path, name string) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	pkg := name
	if pkg == "" {
		pkg = strings.TrimSuffix(f.Name.Name, "_test")
	}
	x.pkgs[pkg] = true
	x.add(pkg, f, strings.HasSuffix(path, "_test.go"))
	return nil
}

// Package reports whether a package of that name was added.
func (x *Index) Package(pkg string) bool { return x.pkgs[pkg] }

// Has reports whether pkg declares name, and, if member is not empty, a
// method or field member of the type name (or of a type it embeds).
func (x *Index) Has(pkg, name, member string) bool {
	if !x.names[pkg+"."+name] {
		return false
	}
	return member == "" || x.hasMember(pkg, name, member, 0)
}

// Const is the value of pkg.name, a constant declared with an integer
// literal.
func (x *Index) Const(pkg, name string) (uint64, bool) {
	v, ok := x.consts[pkg+"."+name]
	return v, ok
}

// Test reports whether a test, benchmark, fuzz target or example of that
// name was declared in a _test.go file added.
func (x *Index) Test(name string) bool { return x.tests[name] }

// hasMember looks member up in type name and in the types it embeds.
func (x *Index) hasMember(pkg, name, member string, depth int) bool {
	if x.members[pkg+"."+name+"."+member] {
		return true
	}
	for _, e := range x.embedded[pkg+"."+name] {
		if depth < 4 && x.hasMember(pkg, e, member, depth+1) {
			return true
		}
	}
	return false
}

func (x *Index) add(pkg string, f *ast.File, test bool) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				x.names[pkg+"."+d.Name.Name] = true
				if test && testName.MatchString(d.Name.Name) {
					x.tests[d.Name.Name] = true
				}
			} else {
				x.members[pkg+"."+recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					x.addType(pkg, s)
				case *ast.ValueSpec:
					for i, n := range s.Names {
						x.names[pkg+"."+n.Name] = true
						if i < len(s.Values) {
							if lit, ok := s.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
								if v, err := strconv.ParseUint(lit.Value, 0, 64); err == nil {
									x.consts[pkg+"."+n.Name] = v
								}
							}
						}
					}
				}
			}
		}
	}
}

func (x *Index) addType(pkg string, s *ast.TypeSpec) {
	name := pkg + "." + s.Name.Name
	x.names[name] = true
	var fields *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, fl := range fields.List {
		if len(fl.Names) == 0 { // embedded
			e := recvName(fl.Type)
			x.members[name+"."+e] = true
			x.embedded[name] = append(x.embedded[name], e)
		}
		for _, n := range fl.Names {
			x.members[name+"."+n.Name] = true
		}
	}
}

// recvName is the type name of a receiver or embedded field: T from T,
// *T, T[P], pkg.T.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}
