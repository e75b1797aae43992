package codec_test

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/goindex"
)

// The spec checks itself: docs/protocol.md's key tables, its method table
// and its kind table are read and compared, field by field, with the
// schema the codec uses (TestSpecKeyTables, TestSpecMethodTable) and with
// what its encoder writes and its decoder refuses (TestSpecEncoding); that
// every Go identifier the docs name exists is internal/doccheck's test.
//
// The codec's schema is read in one place, codecSchema and methodSchema
// below: the names and required keys from package schema's maps and the
// method table, the types from the Go types the decoder fills.
// encodedSample builds a message holding each map.

const protocolDoc = "../docs/protocol.md"

// keyTable is what the test asks of the codec's description of a map.
type keyTable interface {
	Len() int
	Name(k uint64) string
	Required(k uint64) bool
}

// schemaMap is one protocol map as the codec has it: its keys and the Go
// struct that holds it (its fields named after the keys).
type schemaMap struct {
	keys   keyTable
	goType reflect.Type
}

// codecSchema is every map with a Go type of its own, by the type's name
// (the name protocol.md gives it: `codec.Hello`).
func codecSchema() map[string]schemaMap {
	return map[string]schemaMap{
		"Hello":    {schema.Hello, reflect.TypeFor[codec.Hello]()},
		"Welcome":  {schema.Welcome, reflect.TypeFor[codec.Welcome]()},
		"Request":  {schema.Request, reflect.TypeFor[codec.Request]()},
		"Response": {schema.Response, reflect.TypeFor[codec.Response]()},
		"Ping":     {schema.Ping, reflect.TypeFor[codec.Ping]()},
		"Pong":     {schema.Ping, reflect.TypeFor[codec.Pong]()},
		"Device":   {schema.Device, reflect.TypeFor[codec.Device]()},
		"Display":  {schema.Display, reflect.TypeFor[codec.Display]()},
		"Error":    {schema.Error, reflect.TypeFor[codec.Error]()},
		"Snapshot": {schema.Snapshot, reflect.TypeFor[codec.Snapshot]()},
		"Window":   {schema.Window, reflect.TypeFor[codec.Window]()},
		"Node":     {schema.Node, reflect.TypeFor[codec.Node]()},
		"Scroll":   {schema.Scroll, reflect.TypeFor[codec.Scroll]()},
	}
}

// methodSchema is method m's parameter and result maps.
func methodSchema(m codec.Method) (params, result schemaMap) {
	return schemaMap{m.ParamMap(), reflect.TypeOf(codec.ParamsFor(m)).Elem()},
		schemaMap{m.ResultMap(), reflect.TypeOf(codec.ResultFor(m)).Elem()}
}

// TestSpecKeyTables compares every key table of protocol.md with the map
// it describes: the rows are the keys 0 to n-1 in order, with the codec's
// names; "required" and "list" keys are the required ones; each key's type
// is the type of the Go field of its name, and its presence fits that
// field (optional: an Opt, a pointer, an interface or a node text whose
// presence Node.Empty keeps; list and omit-if-empty: a slice; omit-if-false:
// a bool). Every map and every method's parameters and result must have a
// table, and every field of the Go type a key.
func TestSpecKeyTables(t *testing.T) {
	doc := readSpec(t)
	schema := codecSchema()
	covered := map[string]bool{}                                        // the maps of codecSchema with a table
	params, results := map[codec.Method]bool{}, map[codec.Method]bool{} // methods with a table
	for _, kt := range keyTables(t, doc) {
		checkKeyTable(t, kt.where, kt.tb, kt.sm)
		switch {
		case strings.HasPrefix(kt.sample, "params "):
			params[kt.method] = true
		case strings.HasPrefix(kt.sample, "result "):
			results[kt.method] = true
		default:
			covered[kt.sample] = true
		}
	}
	for name := range schema {
		if !covered[name] {
			t.Errorf("protocol.md has no key table for codec.%s", name)
		}
	}
	for _, m := range codec.Methods() {
		p, r := methodSchema(m)
		if p.keys.Len() > 0 && !params[m] {
			t.Errorf("protocol.md section 4.1 has no table for the parameters of %s", m)
		}
		if r.keys.Len() > 0 && !results[m] {
			// A result with a map of its own (Snapshot, Device) is described
			// by that map's table, which must be this result's.
			sm, ok := schema[r.goType.Name()]
			if !ok || !covered[r.goType.Name()] || !sameKeys(sm.keys, r.keys) {
				t.Errorf("protocol.md has no table for the result of %s (codec.%s)", m, r.goType.Name())
			}
		}
	}
}

// docKeyTable is one key table of protocol.md and the map it describes.
type docKeyTable struct {
	tb     docTable
	where  string // file:line (label), for messages
	sm     schemaMap
	sample string       // the map's name in encodedSample: "Hello", "params tap", "result bounds"
	method codec.Method // for params and results
}

// keyTables finds the map that each key table of doc describes: in
// sections 4.1 and 4.2 a method's parameters or result, by the
// **name (id)** label; under a "(kind N)" heading the Go type of kind N in
// the kind table; elsewhere the `codec.X` its label names.
func keyTables(t *testing.T, doc *specDoc) []docKeyTable {
	t.Helper()
	schema := codecSchema()
	kinds := kindTypes(t, doc)
	var out []docKeyTable
	for _, tb := range doc.tables {
		if !slices.Equal(tb.header, []string{"key", "name", "type", "presence", "meaning"}) {
			continue
		}
		where := fmt.Sprintf("%s:%d (%s)", protocolDoc, tb.line, tb.label)
		switch {
		case strings.HasPrefix(tb.sub, "### 4.1"), strings.HasPrefix(tb.sub, "### 4.2"):
			mm := methodLabel.FindStringSubmatch(tb.label)
			if mm == nil {
				t.Errorf("%s: a table of section 4.1 or 4.2 without a **method (id)** label", where)
				continue
			}
			id, _ := strconv.Atoi(mm[2])
			m := codec.Method(id)
			if m.String() != mm[1] {
				t.Errorf("%s: method %d is %q in the codec", where, id, m.String())
				continue
			}
			p, r := methodSchema(m)
			if strings.HasPrefix(tb.sub, "### 4.1") {
				out = append(out, docKeyTable{tb, where, p, "params " + m.String(), m})
			} else {
				if g := goName.FindStringSubmatch(tb.label); g == nil || g[1] != r.goType.Name() {
					t.Errorf("%s: the result's Go type is codec.%s", where, r.goType.Name())
				}
				out = append(out, docKeyTable{tb, where, r, "result " + m.String(), m})
			}
		case kindLabel.MatchString(tb.label):
			for _, k := range kindLabel.FindAllStringSubmatch(tb.label, -1) {
				name := kinds[k[1]]
				sm, ok := schema[name]
				if !ok {
					t.Errorf("%s: kind %s (Go type %q in the kind table) is not a map of the codec", where, k[1], name)
					continue
				}
				out = append(out, docKeyTable{tb, where + " as codec." + name, sm, name, 0})
			}
		default:
			g := goName.FindStringSubmatch(tb.label)
			if g == nil {
				t.Errorf("%s: cannot tell which map the table describes (no `codec.X` in its label)", where)
				continue
			}
			sm, ok := schema[g[1]]
			if !ok {
				t.Errorf("%s: codec.%s is not a map of the codec", where, g[1])
				continue
			}
			out = append(out, docKeyTable{tb, where, sm, g[1], 0})
		}
	}
	return out
}

// checkKeyTable compares one key table with the map sm.
func checkKeyTable(t *testing.T, where string, tb docTable, sm schemaMap) {
	t.Helper()
	if len(tb.rows) != sm.keys.Len() {
		t.Errorf("%s: %d keys, the codec has %d", where, len(tb.rows), sm.keys.Len())
	}
	named := map[string]bool{}
	for i, row := range tb.rows {
		key, name, typ, presence := row[0], row[1], row[2], strings.TrimSpace(strings.Split(row[3], ",")[0])
		k, err := strconv.ParseUint(key, 10, 32)
		if err != nil || k != uint64(i) {
			t.Errorf("%s: row %d has key %q; keys run from 0 in order", where, i+1, key)
			continue
		}
		if got := sm.keys.Name(k); got != name {
			t.Errorf("%s: key %d is %q, the codec calls it %q", where, k, name, got)
		}
		var required bool
		switch presence {
		case "required", "list":
			required = true
		case "optional", "omit-if-empty", "omit-if-false":
		default:
			t.Errorf("%s: key %d (%s) has presence %q", where, k, name, presence)
			continue
		}
		if sm.keys.Required(k) != required {
			t.Errorf("%s: key %d (%s) is %s, but the codec's required = %v", where, k, name, presence, sm.keys.Required(k))
		}
		if k == schema.KeyKind && name == "kind" {
			if typ != "kind" || presence != "required" {
				t.Errorf("%s: key 0 (kind) must be a required kind, not %s %s", where, presence, typ)
			}
			continue
		}
		f, ok := fieldNamed(sm.goType, name)
		if !ok {
			t.Errorf("%s: codec.%s has no field for key %d (%s)", where, sm.goType.Name(), k, name)
			continue
		}
		named[f.Name] = true
		if err := typeMatches(typ, f.Type); err != nil {
			t.Errorf("%s: key %d (%s): %s is %v: %v", where, k, name, typ, f.Type, err)
		}
		if err := presenceFits(presence, sm.goType, f); err != nil {
			t.Errorf("%s: key %d (%s) is %s, but codec.%s.%s %v", where, k, name, presence, sm.goType.Name(), f.Name, err)
		}
	}
	for i := range sm.goType.NumField() {
		f := sm.goType.Field(i)
		if f.IsExported() && f.Type != nodeTexts && !named[f.Name] {
			t.Errorf("%s: codec.%s.%s is named by no key", where, sm.goType.Name(), f.Name)
		}
	}
}

var nodeTexts = reflect.TypeFor[codec.NodeTexts]()

// fieldNamed is the field of struct st for the key named name: the field
// whose name is name without underscores, in any case (max_frame:
// MaxFrame, density_dpi: DensityDPI).
func fieldNamed(st reflect.Type, name string) (reflect.StructField, bool) {
	want := strings.ReplaceAll(name, "_", "")
	for i := range st.NumField() {
		if f := st.Field(i); f.IsExported() && strings.EqualFold(f.Name, want) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// presenceFits reports whether field f of struct st can carry the
// presence the document gives its key.
func presenceFits(presence string, st reflect.Type, f reflect.StructField) error {
	_, absent := optional(f.Type)
	switch presence {
	case "required":
		if absent && f.Type.Kind() != reflect.Interface {
			return fmt.Errorf("can be absent (%v)", f.Type)
		}
	case "optional":
		textSet := f.Type.Kind() == reflect.String && hasField(st, nodeTexts)
		if !absent && !textSet {
			return fmt.Errorf("cannot be absent (%v)", f.Type)
		}
	case "list", "omit-if-empty":
		if f.Type.Kind() != reflect.Slice {
			return fmt.Errorf("is not a slice (%v)", f.Type)
		}
	case "omit-if-false":
		if f.Type.Kind() != reflect.Bool {
			return fmt.Errorf("is not a bool (%v)", f.Type)
		}
	}
	return nil
}

func hasField(st reflect.Type, ft reflect.Type) bool {
	for i := range st.NumField() {
		if st.Field(i).Type == ft {
			return true
		}
	}
	return false
}

// optional unwraps an Opt[T] or a pointer to T, and reports whether t
// can hold an absent value (an Opt, a pointer or an interface).
func optional(t reflect.Type) (reflect.Type, bool) {
	switch {
	case t.Kind() == reflect.Pointer:
		return t.Elem(), true
	case t.Kind() == reflect.Interface:
		return t, true
	case t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Opt[") && t.NumField() == 2 && t.Field(1).Name == "Ok":
		return t.Field(0).Type, true
	}
	return t, false
}

// docScalars maps the document's scalar types to the Go kinds that hold
// them.
var docScalars = map[string]reflect.Kind{
	"u32": reflect.Uint32, "idx": reflect.Uint32, "u64": reflect.Uint64,
	"i32": reflect.Int32, "i64": reflect.Int64,
	"text": reflect.String, "bool": reflect.Bool, "map": reflect.Interface,
}

// typeMatches reports whether the document's type doc (u32, [text],
// Bounds, [[u32 node id, Bounds]], [unit u32, lo i64, hi i64]) is what
// Go type t holds. Words that are not types ("node id") are the
// document's comments.
func typeMatches(doc string, t reflect.Type) error {
	t, _ = optional(t)
	doc = strings.TrimSpace(doc)
	if strings.HasPrefix(doc, "[") && strings.HasSuffix(doc, "]") {
		elems := splitTop(doc[1 : len(doc)-1])
		switch {
		case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
			if len(elems) != 1 {
				return fmt.Errorf("a list has one element type, the document gives %d", len(elems))
			}
			return typeMatches(elems[0], t.Elem())
		case t.Kind() == reflect.Struct: // a positional array
			if len(elems) != t.NumField() {
				return fmt.Errorf("%d elements, %v has %d fields", len(elems), t, t.NumField())
			}
			for i, e := range elems {
				if err := typeMatches(e, t.Field(i).Type); err != nil {
					return fmt.Errorf("element %d: %w", i, err)
				}
			}
			return nil
		}
		return fmt.Errorf("an array, and %v is neither a slice nor a struct", t)
	}
	var word string
	for _, w := range strings.Fields(doc) {
		if _, ok := docScalars[w]; ok || w == "bytes" || w[0] >= 'A' && w[0] <= 'Z' {
			if word != "" {
				return fmt.Errorf("two types in %q", doc)
			}
			word = w
		}
	}
	switch k, ok := docScalars[word]; {
	case ok:
		if t.Kind() != k {
			return fmt.Errorf("%s wants a %v", word, k)
		}
	case word == "bytes":
		if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Uint8 {
			return fmt.Errorf("bytes wants a []byte")
		}
	case word == "":
		return fmt.Errorf("no type in %q", doc)
	default: // a record of the document, by its Go name
		if t.Kind() != reflect.Struct || t.Name() != word {
			return fmt.Errorf("%s wants codec.%s", word, word)
		}
	}
	return nil
}

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func sameKeys(a, b keyTable) bool {
	if a.Len() != b.Len() {
		return false
	}
	for k := range uint64(a.Len()) {
		if a.Name(k) != b.Name(k) || a.Required(k) != b.Required(k) {
			return false
		}
	}
	return true
}

var (
	methodLabel = regexp.MustCompile(`^\*\*(\w+) \((\d+)\)\*\*`)
	kindLabel   = regexp.MustCompile(`\(kind (\d+)\)`)
	goName      = regexp.MustCompile("`\\*?codec\\.(\\w+)`")
)

// kindTypes reads section 2's kind table, checking each row's name and
// constant against the codec, and returns the Go type of each kind.
func kindTypes(t *testing.T, doc *specDoc) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range doc.tables {
		if len(tb.header) != 6 || tb.header[0] != "kind" || tb.header[5] != "Go type" {
			continue
		}
		for _, row := range tb.rows {
			n, err := strconv.ParseUint(row[0], 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: kind %q", protocolDoc, tb.line, row[0])
			}
			if k := codec.Kind(n); k.String() != row[2] {
				t.Errorf("%s:%d: kind %d is %q, the codec calls it %q", protocolDoc, tb.line, n, row[2], k)
			}
			checkConst(t, tb.line, row[1], n)
			if g := goName.FindStringSubmatch(row[5]); g != nil {
				out[row[0]] = g[1]
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no kind table", protocolDoc)
	}
	return out
}

// TestSpecMethodTable compares section 4's method table with the codec's:
// each id's name, constant, capability, and parameter and result types,
// and {} exactly where the codec's map has no key.
func TestSpecMethodTable(t *testing.T) {
	doc := readSpec(t)
	seen := map[codec.Method]int{}
	for _, tb := range doc.tables {
		if len(tb.header) != 6 || tb.header[0] != "id" || tb.header[2] != "method" {
			continue
		}
		for _, row := range tb.rows {
			where := fmt.Sprintf("%s:%d: method %s", protocolDoc, tb.line, row[0])
			id, err := strconv.ParseUint(row[0], 10, 32)
			m := codec.Method(id)
			if err != nil || !m.Known() {
				t.Errorf("%s: not a method of the codec", where)
				continue
			}
			seen[m]++
			if m.String() != row[2] {
				t.Errorf("%s: named %q, the codec calls it %q", where, row[2], m)
			}
			checkConst(t, tb.line, row[1], id)
			if c := m.Capability().String(); c != row[3] {
				t.Errorf("%s: needs capability %q, the codec says %q", where, row[3], c)
			}
			p, r := methodSchema(m)
			if g := goName.FindStringSubmatch(row[4]); g == nil || g[1] != p.goType.Name() {
				t.Errorf("%s: params %s, the codec's are codec.%s", where, row[4], p.goType.Name())
			}
			if strings.Contains(row[4], "{}") != (p.keys.Len() == 0) {
				t.Errorf("%s: params %s, and the codec's map has %d keys", where, row[4], p.keys.Len())
			}
			g := goName.FindStringSubmatch(row[5])
			switch {
			case m.EmptyResult():
				if !strings.Contains(row[5], "{}") || g != nil && g[1] != "Empty" {
					t.Errorf("%s: result %s, the codec's is {} (codec.Empty)", where, row[5])
				}
			case g == nil || g[1] != r.goType.Name() || strings.Contains(row[5], "{}"):
				t.Errorf("%s: result %s, the codec's is codec.%s", where, row[5], r.goType.Name())
			}
		}
	}
	for _, m := range codec.Methods() {
		if seen[m] != 1 {
			t.Errorf("%s: %d rows in the method table, want 1", m, seen[m])
		}
	}
}

// checkConst checks that the cell's `pkg.Name` is a constant of value v.
func checkConst(t *testing.T, line int, cell string, v uint64) {
	t.Helper()
	name := strings.Trim(cell, "`")
	pkg, id, _ := strings.Cut(name, ".")
	got, ok := goIndex(t).Const(pkg, id)
	if !ok {
		t.Errorf("%s:%d: %s is not a constant with a literal value", protocolDoc, line, cell)
	} else if got != v {
		t.Errorf("%s:%d: %s is %d, not %d", protocolDoc, line, name, got, v)
	}
}

// theIndex is the declarations of the codec's packages (goindex).
var theIndex *goindex.Index

// goIndex reads them once.
func goIndex(t *testing.T) *goindex.Index {
	t.Helper()
	if theIndex != nil {
		return theIndex
	}
	x := goindex.New()
	for pkg, dir := range map[string]string{"codec": ".", "cbor": "cbor", "schema": "schema"} {
		if err := x.AddDir(dir, pkg, false); err != nil {
			t.Fatal(err)
		}
	}
	theIndex = x
	return x
}

// specDoc is protocol.md's tables.
type specDoc struct{ tables []docTable }

// docTable is one Markdown table: the ### heading it is under, the
// heading or paragraph just before it (its label), its header and its rows (cells trimmed).
type docTable struct {
	sub, label string
	line       int
	header     []string
	rows       [][]string
}

func readSpec(t *testing.T) *specDoc {
	t.Helper()
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	doc := &specDoc{}
	var sub, label string
	inText := false // the line before was text: a paragraph goes on
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		text := false
		switch {
		case strings.HasPrefix(l, "## "):
			sub, label = "", l
		case strings.HasPrefix(l, "### "):
			sub, label = l, l
		case strings.HasPrefix(l, "|") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|---"):
			tb := docTable{sub: sub, label: label, line: i + 1, header: cells(l)}
			for i += 2; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				row := cells(strings.TrimSpace(lines[i]))
				if len(row) != len(tb.header) {
					t.Fatalf("%s:%d: %d cells, the header has %d", protocolDoc, i+1, len(row), len(tb.header))
				}
				tb.rows = append(tb.rows, row)
			}
			doc.tables = append(doc.tables, tb)
			i--
		case l != "" && inText:
			label += " " + l
			text = true
		case l != "":
			label, text = l, true
		}
		inText = text
	}
	if len(doc.tables) < 20 {
		t.Fatalf("%s: only %d tables", protocolDoc, len(doc.tables))
	}
	return doc
}

// cells splits a table row at the pipes outside code spans.
func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var out []string
	code, start := false, 0
	for i, c := range row {
		switch {
		case c == '`':
			code = !code
		case c == '|' && !code:
			out = append(out, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(row[start:]))
}

// TestSpecEncoding holds the key tables to the codec's behaviour, not only
// to its tables: for a value of each map whose optional fields are absent,
// the encoder writes exactly the keys the document calls required or list
// (rule 4), the decoder reads it back, and without any one of those keys
// (the kind aside) the decoder refuses it with cbor.ErrMissing naming the
// key.
func TestSpecEncoding(t *testing.T) {
	removed := 0 // required keys taken out
	for _, kt := range keyTables(t, readSpec(t)) {
		m, path, sets := encodedSample(kt.sample)
		if m == nil {
			t.Errorf("%s: no sample of %s", kt.where, kt.sample)
			continue
		}
		b, err := codec.Marshal(m)
		if err != nil {
			t.Errorf("%s: %s: %v", kt.where, kt.sample, err)
			continue
		}
		if _, err := codec.Decode(b); err != nil {
			t.Errorf("%s: %s does not decode: %v", kt.where, kt.sample, err)
			continue
		}
		mp, err := findMap(b, path)
		if err != nil {
			t.Errorf("%s: %s: %v", kt.where, kt.sample, err)
			continue
		}
		want := slices.Clone(sets)
		for i, row := range kt.tb.rows {
			if p := row[3]; p == "required" || p == "list" {
				want = append(want, uint64(i))
			}
		}
		slices.Sort(want)
		var got []uint64
		for _, e := range mp.entries {
			got = append(got, e.key)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s with its optional fields absent%s is written with keys %v; the document's required and list keys are %v",
				kt.where, kt.sample, setsNote(sets), got, want)
		}
		for _, e := range mp.entries {
			name := kt.sm.keys.Name(e.key)
			if slices.Contains(sets, e.key) || e.key == schema.KeyKind && name == "kind" {
				continue
			}
			removed++
			_, err := codec.Decode(mp.without(b, e))
			var de *codec.DecodeError
			if !errors.Is(err, cbor.ErrMissing) || !errors.As(err, &de) || !strings.HasSuffix(de.Path(), name) {
				t.Errorf("%s: %s without key %d (%s) decodes with %v, want cbor.ErrMissing naming %s", kt.where, kt.sample, e.key, name, err, name)
			}
		}
	}
	if removed < 40 {
		t.Errorf("only %d required keys taken out: are the samples still right?", removed)
	}
	t.Logf("%d required keys taken out, one at a time", removed)
}

func setsNote(sets []uint64) string {
	if len(sets) == 0 {
		return ""
	}
	return fmt.Sprintf(" (but keys %v, set to reach the maps below)", sets)
}

// encodedSample is a message that holds the map named name (as
// docKeyTable.sample names it), the path from the message down to that map
// (map keys and array indexes), and the optional keys of the map that the
// sample sets to reach the maps below it. Every other optional field is
// absent.
func encodedSample(name string) (m codec.Message, path, sets []uint64) {
	hello := &codec.Hello{Device: codec.Some(codec.Device{})}
	snap := &codec.Response{ID: 1, Method: codec.MethodSnapshot,
		Result: &codec.Snapshot{Windows: []codec.Window{{Root: &codec.Node{Scroll: &codec.Scroll{}}}}}}
	window := []uint64{schema.KeyResponseResult, schema.KeySnapshotWindows, 0}
	switch name {
	case "Hello":
		return hello, nil, []uint64{schema.KeyHelloDevice}
	case "Device":
		return hello, []uint64{schema.KeyHelloDevice}, nil
	case "Display":
		return hello, []uint64{schema.KeyHelloDevice, schema.KeyDeviceDisplay}, nil
	case "Welcome":
		return &codec.Welcome{}, nil, nil
	case "Error":
		return &codec.Welcome{Error: &codec.Error{}}, []uint64{schema.KeyWelcomeError}, nil
	case "Request":
		return &codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.TapParams{}}, nil, nil
	case "Response": // it carries one of result and error
		return &codec.Response{ID: 1, Method: codec.MethodTap, Error: &codec.Error{}}, nil, []uint64{schema.KeyResponseError}
	case "Ping":
		return &codec.Ping{}, nil, nil
	case "Pong":
		return &codec.Pong{}, nil, nil
	case "Snapshot":
		return snap, []uint64{schema.KeyResponseResult}, nil
	case "Window":
		return snap, window, []uint64{schema.KeyWindowRoot}
	case "Node":
		return snap, append(window, schema.KeyWindowRoot), []uint64{schema.KeyNodeScroll}
	case "Scroll":
		return snap, append(window, schema.KeyWindowRoot, schema.KeyNodeScroll), nil
	}
	if s, ok := strings.CutPrefix(name, "params "); ok {
		if m, ok := codec.ParseMethod(s); ok {
			return &codec.Request{ID: 1, Method: m, Params: codec.ParamsFor(m)}, []uint64{schema.KeyRequestParams}, nil
		}
	}
	if s, ok := strings.CutPrefix(name, "result "); ok {
		if m, ok := codec.ParseMethod(s); ok {
			return &codec.Response{ID: 1, Method: m, Result: codec.ResultFor(m)}, []uint64{schema.KeyResponseResult}, nil
		}
	}
	return nil, nil, nil
}

// encodedMap is where a map lies in an encoding: its head and its entries.
type encodedMap struct {
	head, body int // offsets of the map's head and of its first key
	entries    []mapEntry
}

// mapEntry is one key and its value, from the key's first byte to past
// the value.
type mapEntry struct {
	key        uint64
	start, end int
}

// without is b without entry e of m, the map's head counting one less.
func (m encodedMap) without(b []byte, e mapEntry) []byte {
	out := cbor.AppendMapHead(slices.Clone(b[:m.head]), len(m.entries)-1)
	out = append(out, b[m.body:e.start]...)
	return append(out, b[e.end:]...)
}

// findMap finds the map at path in b, an encoded item: each step is a key
// of the map or an index of the array it is in.
func findMap(b []byte, path []uint64) (encodedMap, error) {
	d := cbor.NewDecoder(b)
	for i, step := range path {
		h, err := d.ReadHead()
		if err != nil {
			return encodedMap{}, err
		}
		switch {
		case h.Major == cbor.MajorArray && step < h.Arg:
			for range step {
				if err := d.Skip(); err != nil {
					return encodedMap{}, err
				}
			}
		case h.Major == cbor.MajorMap:
			found := false
			for range h.Arg {
				k, err := d.Uint()
				if err != nil {
					return encodedMap{}, err
				}
				if k == step {
					found = true
					break
				}
				if err := d.Skip(); err != nil {
					return encodedMap{}, err
				}
			}
			if !found {
				return encodedMap{}, fmt.Errorf("no key %d at step %d of %v", step, i, path)
			}
		default:
			return encodedMap{}, fmt.Errorf("step %d of %v: %v of %d items", i, path, h.Major, h.Arg)
		}
	}
	m := encodedMap{head: d.Offset()}
	n, err := d.MapHead()
	if err != nil {
		return encodedMap{}, err
	}
	m.body = d.Offset()
	for range n {
		e := mapEntry{start: d.Offset()}
		if e.key, err = d.Uint(); err != nil {
			return encodedMap{}, err
		}
		if err := d.Skip(); err != nil {
			return encodedMap{}, err
		}
		e.end = d.Offset()
		m.entries = append(m.entries, e)
	}
	return m, nil
}
