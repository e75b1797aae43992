// Command fieldgen writes the per-field code of a node from its one
// description: the Node key table of docs/protocol.md (the wire schema:
// key, name, type, presence, meaning) and the fields of codec.Node in
// codec/snapshot.go (one exported field per key, in key order, beside the
// Empty set). From them it writes
//
//   - codec/schema/node_gen.go: the KeyNode* constants (with the schema's
//     meaning as their doc), the protocol names of a node's keys and its
//     required keys (schema.Node);
//   - codec/node_gen.go: the NodeTexts bits, the key count, the text
//     accessor, and the writer of the keys after the children (putTail);
//   - codec/zerocopy/node_gen.go: NodeView and its text accessor;
//   - bench/twins/node_gen.go: the twin Node of fxamacker and msgp (whose
//     methods `go tool msgp` then writes into node_msgp_gen.go).
//
// Each package's `go generate` runs it with -pkg naming the package
// (`make generate` runs them all, with every other generator and fixture
// rewrite); the test beside it fails when a file on disk differs from
// what it writes, and TestAddNodeText shows that a new optional node text
// takes three hand edits and `make generate`: its row in the schema
// (docs/protocol.md), its Node field, and a golden sample.
//
// Where code tests a key against a set of keys (the decoders' case for a
// text), it reads the generated masks; where it reaches a field by key
// (textField), the generated switch has no default field: any other key
// panics. So no field's code can fall through to another field's.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

func main() {
	pkg := flag.String("pkg", "", "the package whose generated file to write: schema, codec, zerocopy or twins")
	flag.Parse()
	root, err := moduleRoot()
	if err == nil {
		var files map[string][]byte
		if files, err = generate(root); err == nil {
			name, ok := outputs[*pkg]
			if !ok {
				err = fmt.Errorf("-pkg %q: want schema, codec, zerocopy or twins", *pkg)
			} else {
				err = os.WriteFile(filepath.Join(root, name), files[name], 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fieldgen:", err)
		os.Exit(1)
	}
}

// outputs maps each -pkg to the file it writes, relative to the module root.
var outputs = map[string]string{
	"schema":   "codec/schema/node_gen.go",
	"codec":    "codec/node_gen.go",
	"zerocopy": "codec/zerocopy/node_gen.go",
	"twins":    "bench/twins/node_gen.go",
}

// moduleRoot is the directory holding go.mod, from the working
// directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// field is one key of a node map.
type field struct {
	key      int
	name     string // the Go field's name, the constant's suffix: KeyNode<name>
	proto    string // the protocol name: name in snake_case
	typ      string // the Go field's type, as written in codec
	meaning  string // the schema's words for it (docs/protocol.md)
	required bool
	text     bool // an optional text: a plain string, present as Node.Has says
}

// The fields of a node that the generated code lays out around.
const (
	children = "Children"
	scroll   = "Scroll"
)

// nodeSchema reads the node's fields from the Node key table of
// docs/protocol.md (keys, names, presence, meaning) and the fields of
// codec.Node in codec/snapshot.go under root.
func nodeSchema(root string) ([]field, error) {
	fset := token.NewFileSet()
	rows, err := specRows(filepath.Join(root, specFile))
	if err != nil {
		return nil, err
	}
	keys := map[string]int{} // protocol name -> key
	meaning := map[string]string{}
	required := map[string]bool{}
	for _, r := range rows {
		if _, dup := keys[r.proto]; dup {
			return nil, fmt.Errorf("%s: node key %q named twice", specFile, r.proto)
		}
		keys[r.proto], meaning[r.proto], required[r.proto] = r.key, r.meaning, r.required
	}
	snap, err := parser.ParseFile(fset, filepath.Join(root, "codec", "snapshot.go"), nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var st *ast.StructType
	ast.Inspect(snap, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Node" {
			st, _ = ts.Type.(*ast.StructType)
		}
		return st == nil
	})
	if st == nil {
		return nil, errors.New("snapshot.go: no struct Node")
	}
	var out []field
	for _, f := range st.Fields.List {
		var typ bytes.Buffer
		if err := format.Node(&typ, fset, f.Type); err != nil {
			return nil, err
		}
		if typ.String() == "NodeTexts" {
			continue // Empty: the texts present though ""
		}
		for _, id := range f.Names {
			k, ok := keys[snake(id.Name)]
			if !ok {
				return nil, fmt.Errorf("fieldgen: Node.%s has no key: %s's Node table has no row %q", id.Name, specFile, snake(id.Name))
			}
			if k != len(out) {
				return nil, fmt.Errorf("fieldgen: Node.%s is field %d of Node's keyed fields but its key (%s) is %d: the fields follow the keys, from 0 up", id.Name, len(out), specFile, k)
			}
			delete(keys, snake(id.Name))
			out = append(out, field{key: k, name: id.Name, proto: snake(id.Name), typ: typ.String(), meaning: meaning[snake(id.Name)],
				required: required[snake(id.Name)], text: typ.String() == "string"})
		}
	}
	for name := range keys {
		return nil, fmt.Errorf("fieldgen: %s's Node table row %q (key %d) names no field of Node", specFile, name, keys[name])
	}
	if len(out) > 16 {
		return nil, fmt.Errorf("fieldgen: %d node keys: NodeTexts has 16 bits", len(out))
	}
	ch := -1
	for _, f := range out {
		switch {
		case f.name == children:
			ch = f.key
		case ch >= 0 && !f.text && f.name != scroll:
			return nil, fmt.Errorf("fieldgen: Node.%s (key %d) follows the children: only a scroll and texts may (putTail writes them after the children)", f.name, f.key)
		case f.text && f.required:
			return nil, fmt.Errorf("fieldgen: Node.%s: a text is optional", f.name)
		}
	}
	if ch < 0 {
		return nil, errors.New("fieldgen: Node has no Children field")
	}
	return out, nil
}

// specFile is the wire schema, relative to the module root.
const specFile = "docs/protocol.md"

// specRow is one row of the schema's Node key table.
type specRow struct {
	key            int
	proto, meaning string
	required       bool // presence "required"
}

// specNodeTable is the line that heads the Node key table in specFile.
const specNodeTable = "**Node** (`codec.Node`)"

// specRows reads the Node key table of the schema at path: the rows
// "| key | name | type | presence | meaning |" after specNodeTable, up to
// the first line that is not a table row.
func specRows(path string) ([]specRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == specNodeTable {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%s: no line %q heading the Node key table", specFile, specNodeTable)
	}
	var rows []specRow
	i := at + 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(strings.TrimSpace(lines[i]), "|"), "|")
		if len(cells) != 5 {
			return nil, fmt.Errorf("%s:%d: a Node key row has %d cells, want 5 (key, name, type, presence, meaning)", specFile, i+1, len(cells))
		}
		k, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			if strings.TrimSpace(cells[0]) == "key" || strings.Trim(strings.TrimSpace(cells[0]), "-") == "" {
				continue // the head and its rule
			}
			return nil, fmt.Errorf("%s:%d: key %q is not a number", specFile, i+1, cells[0])
		}
		presence := strings.TrimSpace(cells[3])
		switch presence {
		case "required", "optional", "omit-if-empty":
		default:
			return nil, fmt.Errorf("%s:%d: presence %q is none of required, optional, omit-if-empty", specFile, i+1, presence)
		}
		rows = append(rows, specRow{key: k, proto: strings.TrimSpace(cells[1]), meaning: strings.TrimSpace(cells[4]), required: presence == "required"})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s:%d: the Node key table has no rows", specFile, at+1)
	}
	return rows, nil
}

// snake is a Go name in snake_case: ResPkg res_pkg, ID id, DensityDPI
// density_dpi.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// generate returns the generated files, by path relative to root.
func generate(root string) (map[string][]byte, error) {
	fs, err := nodeSchema(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for pkg, write := range map[string]func(*bytes.Buffer, []field){"schema": schemaFile, "codec": codecFile, "zerocopy": zerocopyFile, "twins": twinsFile} {
		var b bytes.Buffer
		fmt.Fprintf(&b, "// Code generated by fieldgen (codec/internal/fieldgen) from docs/protocol.md and codec.Node; DO NOT EDIT.\n\n")
		write(&b, fs)
		src, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", outputs[pkg], err, b.Bytes())
		}
		out[outputs[pkg]] = src
	}
	return out, nil
}

func texts(fs []field) []field {
	var t []field
	for _, f := range fs {
		if f.text {
			t = append(t, f)
		}
	}
	return t
}

// after returns the fields after the children.
func after(fs []field) []field {
	for i, f := range fs {
		if f.name == children {
			return fs[i+1:]
		}
	}
	return nil
}

// mask is the constant expression of the bits of fs: prefix+name for each.
func mask(fs []field, f func(field) string) string {
	var s []string
	for _, x := range fs {
		if x.text {
			s = append(s, f(x))
		}
	}
	if len(s) == 0 {
		return "0"
	}
	return strings.Join(s, " | ")
}

func schemaFile(b *bytes.Buffer, fs []field) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("package schema\n\n")
	p("// Keys of a Node map, from the Node key table of docs/protocol.md:\n// each names the field of codec.Node it fills, and the fields of Node\n// follow them in order.\nconst (\n")
	for _, f := range fs {
		p("\t// KeyNode%s is %s (codec.Node.%s): %s.\n\tKeyNode%s = %d\n", f.name, f.proto, f.name, strings.TrimSuffix(f.meaning, "."), f.name, f.key)
	}
	p(")\n\n")
	p("// nodeNames are the protocol names of a node's keys, from key 0 up (Node).\n")
	p("var nodeNames = [...]string{")
	for _, f := range fs {
		p("%q, ", f.proto)
	}
	p("}\n\n")
	var req []string
	for _, f := range fs {
		if f.required {
			req = append(req, "1<<KeyNode"+f.name)
		}
	}
	p("// nodeRequired has the bit of each required key of a node.\n")
	p("const nodeRequired = %s\n", strings.Join(req, " | "))
}

func codecFile(b *bytes.Buffer, fs []field) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("package codec\n\nimport \"github.com/wirebench/wirebench/codec/schema\"\n\n")
	p("// nodeKeys is the number of keys a node map defines: 0 to nodeKeys-1.\n")
	p("const nodeKeys = %d\n\n", len(fs))
	p("// The text fields of a node, as NodeTexts bits: the bit of key k is 1<<k.\n")
	p("const (\n")
	for _, f := range texts(fs) {
		p("\t// Node%s is the bit of Node.%s, key %d.\n\tNode%s NodeTexts = 1 << schema.KeyNode%s\n", f.name, f.name, f.key, f.name, f.name)
	}
	p("\t// AllNodeTexts has the bit of every text field of a node.\n\tAllNodeTexts NodeTexts = %s\n", mask(fs, func(f field) string { return "Node" + f.name }))
	p(")\n\n")
	bit := func(f field) string { return "Node" + f.name }
	p("const (\n")
	p("\t// nodeTexts has the bit of every text field of a node.\n\tnodeTexts = AllNodeTexts\n")
	p("\t// nodeTailTexts has the bits of the texts after the children, which putTail writes.\n\tnodeTailTexts = %s\n", mask(after(fs), bit))
	p("\t// nodeHeadTexts has the bits of the texts before the children, which appendNode writes.\n\tnodeHeadTexts = nodeTexts &^ nodeTailTexts\n")
	p("\t// nodeTailTextCount is how many texts follow the children.\n\tnodeTailTextCount = %d\n", len(texts(after(fs))))
	p(")\n\n")
	p("// nodeTextKeys are the keys of a node's text fields, in key order.\n")
	p("var nodeTextKeys = [nodeTextCount]int{")
	for _, f := range texts(fs) {
		p("schema.KeyNode%s, ", f.name)
	}
	p("}\n\n")
	p("// nodeTextCount is the number of a node's text fields.\n")
	p("const nodeTextCount = %d\n\n", len(texts(fs)))
	p("// nodeTextSlot is the index of text key k in nodeTextKeys, or -1 for another key:\n")
	p("// the slot of the text in a table of a node's texts.\n")
	p("func nodeTextSlot(k int) int {\n\tswitch k {\n")
	for i, f := range texts(fs) {
		p("\tcase schema.KeyNode%s:\n\t\treturn %d\n", f.name, i)
	}
	p("\t}\n\treturn -1\n}\n\n")
	p("// textField is the field of text key k, or nil for another key: a\n// misrouted key panics where it is used, and reaches no other field.\n")
	p("func (n *Node) textField(k int) *string {\n\tswitch k {\n")
	for _, f := range texts(fs) {
		p("\tcase schema.KeyNode%s:\n\t\treturn &n.%s\n", f.name, f.name)
	}
	p("\t}\n\treturn nil\n}\n\n")

	tail := after(fs)
	var lens, ors []string
	for _, f := range texts(tail) {
		lens = append(lens, "len(n."+f.name+")")
	}
	if len(lens) == 0 {
		lens = []string{"0"}
	}
	ors = lens
	p("// tailTextsLen is the length of the texts after the children together.\n")
	p("func (n *Node) tailTextsLen() int { return %s }\n\n", strings.Join(lens, " + "))
	p("// tailTextsOr is the lengths of the texts after the children or'ed: 0 when all are \"\".\n")
	p("func (n *Node) tailTextsOr() int { return %s }\n\n", strings.Join(ors, " | "))
	var has []string
	for _, f := range texts(tail) {
		has = append(has, fmt.Sprintf("n.hasText(Node%s, n.%s)", f.name, f.name))
	}
	p("// tailTextPairs is how many texts after the children are present.\n")
	p("func (n *Node) tailTextPairs() byte { return byte(present(%s)) }\n\n", strings.Join(has, ", "))

	p("// putTail writes the keys after the children (%s) at b[i:], which has\n", names(tail))
	p("// room for them, and returns the offset past them and how many it wrote.\n")
	p("func (n *Node) putTail(b []byte, i, window, level int) (int, byte, error) {\n\tpairs := byte(0)\n")
	textsDone := false
	for _, f := range tail {
		switch {
		case f.name == scroll:
			p("\tif n.Scroll != nil {\n\t\tvar err error\n\t\tif i, err = putScroll(b, i, n.Scroll, window, level); err != nil {\n\t\t\treturn 0, 0, err\n\t\t}\n\t\tpairs++\n\t}\n")
		case f.text:
			if !textsDone {
				textsDone = true
				p("\t// Most nodes have no text after the children: one test skips them.\n")
				p("\tif n.tailTextsOr() == 0 && n.Empty&nodeTailTexts == 0 {\n\t\treturn i, pairs, nil\n\t}\n")
			}
			p("\tif n.hasText(Node%s, n.%s) {\n\t\tif i = putTextField(b, i, schema.KeyNode%s, n.%s); i < 0 {\n\t\t\treturn 0, 0, invalidText(window, level, %q)\n\t\t}\n\t\tpairs++\n\t}\n",
				f.name, f.name, f.name, f.name, f.proto)
		}
	}
	p("\treturn i, pairs, nil\n}\n")
}

func names(fs []field) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.proto)
	}
	return strings.Join(s, ", ")
}

// viewTypes maps a codec.Node field's type to its NodeView field's type.
var viewTypes = map[string]string{
	"uint32":      "uint32",
	"Bounds":      "codec.Bounds",
	"string":      "codec.Opt[string]",
	"Opt[uint32]": "codec.Opt[uint32]",
	"*Scroll":     "codec.Opt[codec.Scroll]",
}

// viewNotes are the NodeView fields' comments beyond their key.
var viewNotes = map[string]string{
	"Class":  ", string table index",
	"Flags":  ", bits schema.NodeClickable ...",
	"ResPkg": ", string table index",
	"Scroll": ": axis, flags, range, position",
}

func zerocopyFile(b *bytes.Buffer, fs []field) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("package zerocopy\n\nimport (\n\t\"github.com/wirebench/wirebench/codec\"\n\t\"github.com/wirebench/wirebench/codec/schema\"\n)\n\n")
	p("// NodeView is one node of a snapshot, read in place. Its strings borrow\n// the frame (valid until Release).\ntype NodeView struct {\n")
	for _, f := range fs {
		if f.name == children {
			continue // the walk visits them
		}
		t, ok := viewTypes[f.typ]
		if !ok {
			panic("fieldgen: no NodeView type for Node." + f.name + " of type " + f.typ)
		}
		p("\t%s %s // key %d%s\n", f.name, t, f.key, viewNotes[f.name])
		if f.name == "Class" {
			p("\tClassName string // the string table's entry Class; \"\" when out of range or past entry 131 584 (Snapshot.String reads those)\n")
		}
	}
	p("\tkidsOff int // offset of the first child (after the children array's head)\n")
	p("\tkidsN int // children in the array, -1 indefinite, 0 none\n")
	p("\tend int // offset past the node's map, when endKnown\n")
	p("\tendKnown bool // false: the map ends where its children do\n}\n\n")
	p("// nodeKeys is the number of keys a node map defines: 0 to nodeKeys-1.\n")
	p("const nodeKeys = %d\n\n", len(fs))
	p("// nodeTexts has bit k set for each text key k of a node.\n")
	p("const nodeTexts = %s\n\n", mask(fs, func(f field) string { return "1<<schema.KeyNode" + f.name }))
	p("// textField is the field of text key k, or nil for another key: a\n// misrouted key panics where it is used, and reaches no other field.\n")
	p("func (nv *NodeView) textField(k int) *codec.Opt[string] {\n\tswitch k {\n")
	for _, f := range texts(fs) {
		p("\tcase schema.KeyNode%s:\n\t\treturn &nv.%s\n", f.name, f.name)
	}
	p("\t}\n\treturn nil\n}\n\n")
}

// twinTypes maps a codec.Node field's type to its twin's.
var twinTypes = map[string]string{
	"uint32":      "uint32",
	"Bounds":      "[4]int32",
	"string":      "*string",
	"Opt[uint32]": "*uint32",
	"[]Node":      "[]Node",
	"*Scroll":     "*Scroll",
}

func twinsFile(b *bytes.Buffer, fs []field) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("package twins\n\n")
	p("// Node is the twin of codec.Node (the tags as twins.go describes).\ntype Node struct {\n")
	for _, f := range fs {
		t, ok := twinTypes[f.typ]
		if !ok {
			panic("fieldgen: no twin type for Node." + f.name + " of type " + f.typ)
		}
		if f.key > 15 {
			panic("fieldgen: msgp's one-character key cannot name key " + strconv.Itoa(f.key))
		}
		opt := ""
		if !f.required {
			opt = ",omitempty"
		}
		p("\t%s %s `cbor:\"%d,keyasint%s\" msg:\"%x%s\"`\n", f.name, t, f.key, opt, f.key, opt)
	}
	p("}\n")
}
