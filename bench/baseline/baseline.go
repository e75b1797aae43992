// Package baseline converts between Go benchmark text
// (https://golang.org/design/14313-benchmark-format, read with
// golang.org/x/perf/benchfmt) and the workbench's JSON baseline form,
// without losing anything benchfmt or the workbench reads.
//
// A Doc holds, in order: the file configuration in force at the first
// result ("goos: linux", ..., the quiethost readings), unit metadata
// ("Unit allocs/op assume=exact"), and one Run per benchmark result line,
// each with the configuration changes that came before it and the
// workbench's "allocations <benchmark> <allocs> <bytes>" lines that came
// after it. Nothing is aggregated.
//
// What is kept and what is not. Text is read as benchfmt reads it:
// configuration, unit metadata and result lines are kept; other lines
// (PASS, ok, test logs) are dropped, except "allocations" lines, which are
// kept verbatim (they are the workbench's own allocation counts, not
// benchmark lines). Numbers in result lines are kept as float64, so
// "95.10 ns/op" comes back as "95.1 ns/op" and column alignment is not
// kept: the text written by WriteText is canonical. Hence:
//
//   - text → JSON → text yields the canonical form of the text, which has
//     the same benchfmt records; canonical text → JSON → text is identical;
//   - JSON → text → JSON gives the same Doc for every JSON that ReadJSON
//     accepts (it rejects JSON whose text form would read back
//     differently), and identical bytes for JSON that WriteJSON wrote.
package baseline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// Schema names this JSON form; ReadJSON accepts only it.
const Schema = "wirebench.micro/v1"

// Doc is one benchmark report in JSON form.
type Doc struct {
	Schema string `json:"schema"`
	// Config is the file configuration in force at the first run, in the
	// order the lines first appeared.
	Config []KV `json:"config"`
	// Units is the unit metadata, in order of appearance.
	Units []UnitMeta `json:"units"`
	// Runs has one entry per benchmark result line, in order.
	Runs []Run `json:"runs"`
}

// KV is one configuration line "key: value". In Run.Config an empty Value
// deletes the key, as a "key:" line does in text.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// UnitMeta is one "Unit <unit> <key>=<value>" line.
type UnitMeta struct {
	Unit  string `json:"unit"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Run is one benchmark result line.
type Run struct {
	// Config lists the configuration changes since the previous run,
	// sorted by key; omitted when there are none.
	Config []KV `json:"config,omitempty"`
	// Name is the benchmark name without the "Benchmark" prefix, with its
	// -GOMAXPROCS suffix, e.g. "Encode/impl=codec/msg=request_tap-2".
	Name   string  `json:"name"`
	Iters  int     `json:"iters"`
	Values []Value `json:"values"`
	// Allocations are the "allocations" lines that followed this result
	// line, before the next one.
	Allocations []Allocation `json:"allocations,omitempty"`
}

// Value is one measurement of a run, in the unit the text used.
type Value struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Allocation is one "allocations <benchmark> <allocs> <bytes>" line: the
// allocations per iteration a benchmark counted around its timed loop.
// The numbers keep their text form.
type Allocation struct {
	Benchmark string      `json:"benchmark"`
	Allocs    json.Number `json:"allocs"`
	Bytes     json.Number `json:"bytes"`
}

// ReadText reads Go benchmark text. name is used in error messages.
// Malformed result, unit or allocations lines are errors: a baseline must
// not silently lose a run.
func ReadText(r io.Reader, name string) (*Doc, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	doc := &Doc{Schema: Schema, Config: []KV{}, Units: []UnitMeta{}, Runs: []Run{}}
	var (
		lines []int // line number of each run
		prev  map[string]string
	)
	br := benchfmt.NewReader(bytes.NewReader(data), name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.UnitMetadata:
			doc.Units = append(doc.Units, UnitMeta{Unit: rec.OrigUnit, Key: rec.Key, Value: rec.Value})
		case *benchfmt.Result:
			_, line := rec.Pos()
			cur := make(map[string]string, len(rec.Config))
			var order []KV
			for _, c := range rec.Config {
				cur[c.Key] = string(c.Value)
				order = append(order, KV{c.Key, string(c.Value)})
			}
			run := Run{Name: rec.Name.String(), Iters: rec.Iters}
			if prev == nil {
				doc.Config = order
				if doc.Config == nil {
					doc.Config = []KV{}
				}
			} else {
				run.Config = configDelta(prev, cur)
			}
			prev = cur
			for _, v := range rec.Values {
				val, unit := v.Value, v.Unit
				if v.OrigUnit != "" {
					val, unit = v.OrigValue, v.OrigUnit
				}
				if math.IsNaN(val) || math.IsInf(val, 0) {
					return nil, fmt.Errorf("%s:%d: value %v %s cannot be stored in JSON", name, line, val, unit)
				}
				run.Values = append(run.Values, Value{val, unit})
			}
			doc.Runs = append(doc.Runs, run)
			lines = append(lines, line)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if err := attachAllocations(doc, data, name, lines); err != nil {
		return nil, err
	}
	if err := doc.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// configDelta lists the changes from prev to cur, sorted by key: deleted
// keys with an empty value, new or changed keys with their value.
func configDelta(prev, cur map[string]string) []KV {
	var d []KV
	for k, v := range cur {
		if pv, ok := prev[k]; !ok || pv != v {
			d = append(d, KV{k, v})
		}
	}
	for k := range prev {
		if _, ok := cur[k]; !ok {
			d = append(d, KV{k, ""})
		}
	}
	slices.SortFunc(d, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return d
}

// numberRE is the JSON number grammar, which allocations counts must
// follow to be kept verbatim as json.Number.
var numberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// attachAllocations finds the "allocations" lines and attaches each to the
// run line before it. Lines are counted as benchfmt counts them.
func attachAllocations(doc *Doc, data []byte, name string, runLines []int) error {
	s := bufio.NewScanner(bytes.NewReader(data))
	line, next := 0, 0 // next: index of the first run after this line
	for s.Scan() {
		line++
		for next < len(runLines) && runLines[next] < line {
			next++
		}
		f := strings.Fields(s.Text())
		if len(f) == 0 || f[0] != "allocations" {
			continue
		}
		if len(f) != 4 || !numberRE.MatchString(f[2]) || !numberRE.MatchString(f[3]) || !utf8.ValidString(f[1]) {
			return fmt.Errorf("%s:%d: malformed allocations line, want \"allocations <benchmark> <allocs> <bytes>\": %q", name, line, s.Text())
		}
		if next == 0 {
			return fmt.Errorf("%s:%d: allocations line before any benchmark result", name, line)
		}
		run := &doc.Runs[next-1]
		run.Allocations = append(run.Allocations, Allocation{f[1], json.Number(f[2]), json.Number(f[3])})
	}
	return s.Err()
}

// WriteText writes doc as canonical Go benchmark text: configuration,
// unit metadata, a blank line, then the runs, each preceded by its
// configuration changes (as their own block) and followed by its
// allocations lines.
func WriteText(w io.Writer, doc *Doc) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, c := range doc.Config {
		fmt.Fprintf(bw, "%s: %s\n", c.Key, c.Value)
	}
	for _, u := range doc.Units {
		fmt.Fprintf(bw, "Unit %s %s=%s\n", u.Unit, u.Key, u.Value)
	}
	if len(doc.Config)+len(doc.Units) > 0 {
		bw.WriteString("\n")
	}
	for i, r := range doc.Runs {
		if len(r.Config) > 0 {
			if i > 0 {
				bw.WriteString("\n")
			}
			for _, c := range r.Config {
				if c.Value == "" {
					fmt.Fprintf(bw, "%s:\n", c.Key)
				} else {
					fmt.Fprintf(bw, "%s: %s\n", c.Key, c.Value)
				}
			}
			bw.WriteString("\n")
		}
		fmt.Fprintf(bw, "Benchmark%s\t%d", r.Name, r.Iters)
		for _, v := range r.Values {
			fmt.Fprintf(bw, "\t%s %s", FormatValue(v.Value), v.Unit)
		}
		bw.WriteString("\n")
		for _, a := range r.Allocations {
			fmt.Fprintf(bw, "allocations %s %s %s\n", a.Benchmark, a.Allocs, a.Bytes)
		}
	}
	return bw.Flush()
}

// FormatValue formats a measurement so that it parses back to the same
// float64: plain decimals in the usual range, exponent form outside it.
func FormatValue(v float64) string {
	if a := math.Abs(v); a == 0 || (a >= 1e-4 && a < 1e21) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ReadJSON reads and validates a Doc. Unknown fields are errors.
func ReadJSON(r io.Reader) (*Doc, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var doc Doc
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decoding JSON: data after the document")
	}
	if doc.Config == nil {
		doc.Config = []KV{}
	}
	if doc.Units == nil {
		doc.Units = []UnitMeta{}
	}
	if doc.Runs == nil {
		doc.Runs = []Run{}
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	return &doc, nil
}

// WriteJSON writes doc with one line per config entry, unit and run, so
// that baselines diff well.
func WriteJSON(w io.Writer, doc *Doc) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString("{\n  \"schema\": ")
	if err := marshalTo(&buf, doc.Schema); err != nil {
		return err
	}
	section := func(name string, n int, item func(i int) any) error {
		fmt.Fprintf(&buf, ",\n  %q: [", name)
		for i := 0; i < n; i++ {
			if i > 0 {
				buf.WriteString(",")
			}
			buf.WriteString("\n    ")
			if err := marshalTo(&buf, item(i)); err != nil {
				return err
			}
		}
		if n > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("]")
		return nil
	}
	if err := section("config", len(doc.Config), func(i int) any { return doc.Config[i] }); err != nil {
		return err
	}
	if err := section("units", len(doc.Units), func(i int) any { return doc.Units[i] }); err != nil {
		return err
	}
	if err := section("runs", len(doc.Runs), func(i int) any { return doc.Runs[i] }); err != nil {
		return err
	}
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func marshalTo(buf *bytes.Buffer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}

// Validate checks that doc converts to text that reads back as the same
// Doc: valid UTF-8 everywhere, configuration keys benchfmt recognises,
// values on one line, canonical configuration changes, no duplicate unit
// metadata, finite values.
func (doc *Doc) Validate() error {
	if doc.Schema != Schema {
		return fmt.Errorf("schema %q, want %q", doc.Schema, Schema)
	}
	cur := map[string]string{}
	for i, c := range doc.Config {
		if err := checkKV(c, false); err != nil {
			return fmt.Errorf("config[%d]: %w", i, err)
		}
		if _, dup := cur[c.Key]; dup {
			return fmt.Errorf("config[%d]: key %q repeated", i, c.Key)
		}
		cur[c.Key] = c.Value
	}
	seen := map[benchfmt.UnitMetadataKey]bool{}
	for i, u := range doc.Units {
		if !isToken(u.Unit) || !isToken(u.Key) || strings.Contains(u.Key, "=") || !(u.Value == "" || isToken(u.Value)) {
			return fmt.Errorf("units[%d]: %q %q=%q: unit, key and value must be single words, the key without '='", i, u.Unit, u.Key, u.Value)
		}
		_, tidy := benchunit.Tidy(1, u.Unit)
		k := benchfmt.UnitMetadataKey{Unit: tidy, Key: u.Key}
		if seen[k] {
			return fmt.Errorf("units[%d]: metadata %s of unit %s given twice", i, u.Key, u.Unit)
		}
		seen[k] = true
	}
	for i, r := range doc.Runs {
		where := fmt.Sprintf("runs[%d] (%s)", i, r.Name)
		for j, c := range r.Config {
			if err := checkKV(c, true); err != nil {
				return fmt.Errorf("%s: config[%d]: %w", where, j, err)
			}
			if j > 0 && r.Config[j-1].Key >= c.Key {
				return fmt.Errorf("%s: config changes must be sorted by key, each key once (%q after %q)", where, c.Key, r.Config[j-1].Key)
			}
			pv, had := cur[c.Key]
			switch {
			case c.Value == "" && !had:
				return fmt.Errorf("%s: config[%d] deletes %q, which is not set", where, j, c.Key)
			case c.Value != "" && had && pv == c.Value:
				return fmt.Errorf("%s: config[%d] sets %q to the value it already has", where, j, c.Key)
			case c.Value == "":
				delete(cur, c.Key)
			default:
				cur[c.Key] = c.Value
			}
		}
		if !isToken(r.Name) {
			return fmt.Errorf("%s: name must be one non-empty word", where)
		}
		if len(r.Values) == 0 {
			return fmt.Errorf("%s: no values", where)
		}
		for j, v := range r.Values {
			if !isToken(v.Unit) {
				return fmt.Errorf("%s: values[%d]: unit %q must be one non-empty word", where, j, v.Unit)
			}
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
				return fmt.Errorf("%s: values[%d]: %v is not finite", where, j, v.Value)
			}
		}
		for j, a := range r.Allocations {
			if !isToken(a.Benchmark) || !numberRE.MatchString(string(a.Allocs)) || !numberRE.MatchString(string(a.Bytes)) {
				return fmt.Errorf("%s: allocations[%d]: want a benchmark name and two numbers, have %q %q %q", where, j, a.Benchmark, a.Allocs, a.Bytes)
			}
		}
	}
	return nil
}

// checkKV checks that "key: value" is a line benchfmt reads back as this
// key and value. An empty value (a deletion) is allowed only in changes.
func checkKV(c KV, change bool) error {
	if !IsConfigKey(c.Key) {
		return fmt.Errorf("%q is not a configuration key (lower-case first, no spaces, upper case or ':')", c.Key)
	}
	if c.Value == "" && !change {
		return fmt.Errorf("key %q has an empty value", c.Key)
	}
	if !utf8.ValidString(c.Value) || strings.ContainsAny(c.Value, "\n\r") {
		return fmt.Errorf("value of %q must be valid UTF-8 on one line", c.Key)
	}
	if strings.HasPrefix(c.Value, " ") || strings.HasPrefix(c.Value, "\t") {
		return fmt.Errorf("value of %q starts with white space, which text cannot keep", c.Key)
	}
	return nil
}

// IsConfigKey reports whether key can start a benchfmt configuration line:
// a lower-case letter first, then no white space, upper case or ':'.
func IsConfigKey(key string) bool {
	if key == "" || !utf8.ValidString(key) {
		return false
	}
	for i, r := range key {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) || r == ':' {
			return false
		}
	}
	return true
}

// isToken reports whether s is one non-empty word of valid UTF-8.
func isToken(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, unicode.IsSpace)
}
