// Package summary writes the short Markdown summary of a `make micro`
// run for a review: per message, our codec's time/op, its speed relative
// to the reference implementation fxamacker measured in the same run (and
// the zero-copy decoder's, when present), the change against the stored
// baseline, and allocations; then the Frame, Gate, Relay and Session
// benchmarks. Every figure is a median over runs, compared as benchstat
// compares (golang.org/x/perf/benchmath, Mann-Whitney U, alpha 0.05).
package summary

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/bench/quiet"
)

// Reference is the implementation our codecs are measured against.
const Reference = "fxamacker"

// Families are the non-codec benchmarks summarized, in this order.
var Families = []string{"Frame", "Gate", "Relay", "Session"}

// Units read from results, after benchfmt tidies them (ns/op → sec/op,
// MB/s → B/s).
const (
	unitTime   = "sec/op"
	unitAllocs = "allocs/op"
	unitBytes  = "B/op"
	unitFaults = "page-faults/op" // support.UnitFaults
	unitSpeed  = "B/s"
)

// Set is the results of one benchmark file, grouped by benchmark name
// without its -GOMAXPROCS suffix.
type Set struct {
	Name    string              // file name, for messages
	Config  []benchfmt.Config   // configuration of the first result
	order   []string            // benchmark names in order of appearance
	samples map[string]*samples // by benchmark name
	// Skipped lists lines benchfmt could not read (a failed benchmark
	// prints its name and then "--- FAIL"); they are reported, not fatal.
	Skipped []string
}

type samples struct {
	base   string
	params []param // sub-benchmark keys, in name order, without GOMAXPROCS
	values map[string][]float64
}

type param struct{ key, value string }

func (s *samples) get(key string) string {
	for _, p := range s.params {
		if p.key == key {
			return p.value
		}
	}
	return ""
}

// row is the name with impl removed: the row of a table comparing impls.
func (s *samples) row() string {
	var b strings.Builder
	for _, p := range s.params {
		if p.key != "impl" {
			b.WriteString("/" + p.key + "=" + p.value)
		}
	}
	return strings.TrimPrefix(b.String(), "/")
}

// Load reads Go benchmark text.
func Load(r io.Reader, name string) (*Set, error) {
	set := &Set{Name: name, samples: map[string]*samples{}}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			set.Skipped = append(set.Skipped, rec.Error())
		case *benchfmt.Result:
			if set.Config == nil {
				for _, c := range rec.Config {
					set.Config = append(set.Config, benchfmt.Config{Key: c.Key, Value: slices.Clone(c.Value), File: c.File})
				}
			}
			base, parts := rec.Name.Parts()
			s := &samples{base: string(base), values: map[string][]float64{}}
			full := string(base)
			for _, p := range parts {
				if p[0] == '-' { // GOMAXPROCS
					continue
				}
				full += string(p)
				k, v, ok := strings.Cut(string(p[1:]), "=")
				if !ok {
					k, v = string(p[1:]), ""
				}
				s.params = append(s.params, param{k, v})
			}
			have, ok := set.samples[full]
			if !ok {
				set.samples[full] = s
				set.order = append(set.order, full)
				have = s
			}
			for _, v := range rec.Values {
				have.values[v.Unit] = append(have.values[v.Unit], v.Value)
			}
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	return set, nil
}

// ConfigValue returns the first result's value of a configuration key.
func (s *Set) ConfigValue(key string) string {
	if s == nil {
		return ""
	}
	for _, c := range s.Config {
		if c.Key == key {
			return string(c.Value)
		}
	}
	return ""
}

// Runs is the largest number of runs of any benchmark's time/op.
func (s *Set) Runs() int {
	n := 0
	for _, x := range s.samples {
		n = max(n, len(x.values[unitTime]))
	}
	return n
}

// Attachment is a text report (benchstat output) appended to the summary
// in a collapsed section.
type Attachment struct {
	Title string
	Text  string
}

// Options control the summary.
type Options struct {
	// Unverified stamps the summary "host not verified quiet". The stamp
	// also appears when the latest run's "quiet" config says so.
	Unverified bool
	// Baseline is nil when there is none; BaselineNote then says why.
	Baseline     *Set
	BaselineNote string
	Attachments  []Attachment
	// Counts are the instruction counts of the same code (make
	// micro-count), nil when there are none.
	Counts Counts
	// Chart is the file name of the SVG chart (WriteChart) to embed, or "".
	Chart string
}

// Write writes the Markdown summary of latest.
func Write(w io.Writer, latest *Set, opt Options) error {
	var b strings.Builder
	b.WriteString("## make micro\n\n")
	q := latest.ConfigValue("quiet")
	if opt.Unverified || strings.HasPrefix(q, quiet.NotVerifiedStamp) || strings.HasPrefix(q, "not quiet") || q == "" {
		b.WriteString("> **" + quiet.NotVerifiedStamp + "** — numbers from a host that may be busy; do not compare them with a baseline in a review.\n\n")
	}
	runs := "runs"
	if latest.Runs() == 1 {
		runs = "run"
	}
	fmt.Fprintf(&b, "%s, %d %s per benchmark", describe(latest), latest.Runs(), runs)
	if opt.Baseline != nil {
		fmt.Fprintf(&b, "; baseline: %s", describe(opt.Baseline))
	}
	b.WriteString(".\n")
	if opt.Baseline == nil {
		note := opt.BaselineNote
		if note == "" {
			note = "no baseline"
		}
		b.WriteString("Baseline: " + note + "; ratios to the baseline skipped.\n")
	}
	if opt.Baseline != nil {
		if a, b2 := latest.ConfigValue("cpu"), opt.Baseline.ConfigValue("cpu"); a != "" && b2 != "" && a != b2 {
			b.WriteString("**The baseline is from another CPU** (" + b2 + "): ratios to it compare machines, not code.\n")
		}
	}
	if q != "" {
		b.WriteString("Host: quiet: " + q + "\n")
	}
	b.WriteString("\n")

	found := false
	for _, op := range []string{"Encode", "Decode"} {
		if writeCodecTable(&b, op, latest, opt.Baseline, opt.Counts) {
			found = true
		}
	}
	if writeOthers(&b, latest, opt.Baseline, opt.Counts) {
		found = true
	}
	if writeRelay(&b, latest) {
		found = true
	}
	if !found {
		b.WriteString("No Encode, Decode, Frame, Gate, Relay or Session results in this run.\n\n")
	} else {
		b.WriteString("Times are medians over runs, ± the 95 % confidence interval of the median (with fewer than 6 runs, ± the range of the runs). " +
			"*instructions/op*: the timed loop's count under valgrind (make micro-count; it repeats on a busy host, where time does not). *× " + Reference + "*, *× msgp*: the peer's time/op ÷ ours from the same run · its instructions/op ÷ ours (above 1 = we are faster). " +
			"*est-cycles/op*: the memory-aware count: the same loop under a fixed cache simulation (L1 hits + 5 × LL hits + 35 × RAM) plus the collector's share of the bytes it allocates at GOGC=100; it sees fresh memory and the collector, not the kernel or the host's pipeline (reports/micro/README.md). " +
			"*% of floor*: our instructions/op as a percentage of the floor's (bench/floor: a validating walk that builds nothing for Decode, a memmove of the encoding for Encode) · the same of est-cycles/op. " +
			"*page-faults/op*: minor page faults of the process during the timed loop (getrusage), kernel work no count sees. " +
			"*vs baseline*: change of time/op (negative = faster); ~ = no significant difference (p ≥ 0.05, as benchstat).\n\n")
		if opt.Chart != "" {
			b.WriteString("![speed-ups over the peers and instructions against the floor](" + opt.Chart + ")\n\n")
		}
	}
	if n := len(latest.Skipped); n > 0 {
		fmt.Fprintf(&b, "%d unreadable benchmark line(s) skipped, first: `%s`\n\n", n, latest.Skipped[0])
	}
	if len(latest.other()) > 0 {
		fmt.Fprintf(&b, "%d other benchmark(s) not summarized here: see benchstat.\n\n", len(latest.other()))
	}
	for _, a := range opt.Attachments {
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n```text\n%s\n```\n</details>\n\n", a.Title, strings.TrimRight(a.Text, "\n"))
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func describe(s *Set) string {
	var parts []string
	for _, k := range []string{"commit", "go-version", "cpu"} {
		if v := s.ConfigValue(k); v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	if len(parts) == 0 {
		return s.Name
	}
	return s.Name + " (" + strings.Join(parts, ", ") + ")"
}

// codecRow is one message of an Encode or Decode table.
type codecRow struct {
	label string
	impls map[string]*samples
}

func (s *Set) codecRows(op string) ([]codecRow, []string) {
	var rows []codecRow
	var impls []string
	index := map[string]int{}
	for _, name := range s.order {
		x := s.samples[name]
		impl := x.get("impl")
		if x.base != op || impl == "" {
			continue
		}
		label := x.row()
		if msg := x.get("msg"); msg != "" && len(x.params) == 2 {
			label = msg
		}
		i, ok := index[label]
		if !ok {
			i = len(rows)
			index[label] = i
			rows = append(rows, codecRow{label: label, impls: map[string]*samples{}})
		}
		rows[i].impls[impl] = x
		if impl != Reference && !slices.Contains(impls, impl) {
			impls = append(impls, impl)
		}
	}
	// codec first, then zerocopy, then any other in order of appearance.
	rank := func(s string) int {
		switch s {
		case "codec":
			return 0
		case "zerocopy":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(impls, func(a, b string) int { return rank(a) - rank(b) })
	return rows, impls
}

// other lists benchmarks that are neither codec comparisons nor one of
// the summarized families.
func (s *Set) other() []string {
	var out []string
	for _, name := range s.order {
		x := s.samples[name]
		if (x.base == "Encode" || x.base == "Decode") && x.get("impl") != "" || slices.Contains(Families, x.base) || x.base == keyToPixel {
			continue
		}
		out = append(out, name)
	}
	return out
}

// Peers are the implementations ours are measured against: the
// reference, msgp's generated twins and the floor (bench/floor).
var Peers = count.Peers

func isPeer(impl string) bool { return slices.Contains(Peers, impl) }

func writeCodecTable(b *strings.Builder, op string, latest, baseline *Set, counts Counts) bool {
	rows, impls := latest.codecRows(op)
	if len(rows) == 0 {
		return false
	}
	fmt.Fprintf(b, "### %s\n\n", op)
	writeRow(b, []string{"msg", "ours", "time/op", "instructions/op", "est-cycles/op", "× " + Reference, "× msgp", "% of floor", "vs baseline", "allocs/op", "B/op", "page-faults/op"})
	writeRow(b, slices.Repeat([]string{"---"}, 12))
	for _, r := range rows {
		for _, impl := range impls {
			x := r.impls[impl]
			if isPeer(impl) || x == nil {
				continue
			}
			writeRow(b, []string{r.label, impl, timeSpreadCell(x), counts.cell(x), counts.cyclesCell(x), ratioCell(r.impls[Reference], x, counts),
				ratioCell(r.impls["msgp"], x, counts), floorCell(r.impls["floor"], x, counts), vsBaseline(x, baseline), allocCell(x), bytesCell(x), faultsCell(x)})
		}
	}
	b.WriteString("\n")
	// The peers, for their own allocations and counts.
	head := []string{"msg"}
	for _, p := range Peers {
		head = append(head, p+" time/op", "instructions/op", "est-cycles/op", "allocs/op")
	}
	fmt.Fprintf(b, "<details><summary>%s: the peers</summary>\n\n", op)
	writeRow(b, head)
	writeRow(b, slices.Repeat([]string{"---"}, len(head)))
	for _, r := range rows {
		cells := []string{r.label}
		for _, p := range Peers {
			x := r.impls[p]
			cells = append(cells, timeCell(x), counts.cell(x), counts.cyclesCell(x), allocCell(x))
		}
		writeRow(b, cells)
	}
	b.WriteString("\n</details>\n\n")
	return true
}

// timeSpreadCell is the median time/op with its spread: benchstat's ±
// (the 95 % confidence interval of the median, as a percentage of it), or
// with fewer than 6 runs, where that interval is unbounded, the range of
// the runs ("± 12% range").
func timeSpreadCell(x *samples) string {
	t := timeCell(x)
	if t == "—" || len(x.values[unitTime]) < 2 {
		return t
	}
	s := benchmath.NewSample(x.values[unitTime], &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		return t + " ± " + sum.PctRangeString()
	}
	lo, hi := slices.Min(s.Values), slices.Max(s.Values)
	return fmt.Sprintf("%s ± %.0f%% range", t, 100*math.Max(hi-sum.Center, sum.Center-lo)/sum.Center)
}

// ratioCell is peer ÷ ours: in time (medians of this run) and, when both
// were counted, in instructions: "9.60× · 11.2×".
func ratioCell(peer, x *samples, counts Counts) string {
	t := speedup(peer, x)
	if peer == nil || x == nil {
		return t
	}
	pi, ok1 := counts.of(peer)
	oi, ok2 := counts.of(x)
	if !ok1 || !ok2 || oi == 0 {
		return t
	}
	return t + " · " + FormatRatio(pi/oi) + "×"
}

// floorCell is ours as a percentage of the floor's instructions and,
// when both have them, of its est-cycles: "107% · 211%".
func floorCell(floor, x *samples, counts Counts) string {
	if floor == nil || x == nil {
		return "—"
	}
	fi, ok1 := counts.of(floor)
	oi, ok2 := counts.of(x)
	if !ok1 || !ok2 || fi == 0 {
		return "—"
	}
	cell := fmt.Sprintf("%.0f%%", 100*oi/fi)
	fc, ok1 := counts.cycles(floor)
	oc, ok2 := counts.cycles(x)
	if ok1 && ok2 && fc > 0 {
		cell += fmt.Sprintf(" · %.0f%%", 100*oc/fc)
	}
	return cell
}

func writeOthers(b *strings.Builder, latest, baseline *Set, counts Counts) bool {
	var names []string
	for _, fam := range Families {
		for _, name := range latest.order {
			if latest.samples[name].base == fam {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return false
	}
	b.WriteString("### Frame, Gate, Relay, Session\n\n")
	writeRow(b, []string{"benchmark", "time/op", "instructions/op", "est-cycles/op", "vs baseline", "speed", "allocs/op", "B/op", "page-faults/op"})
	writeRow(b, slices.Repeat([]string{"---"}, 9))
	for _, name := range names {
		x := latest.samples[name]
		writeRow(b, []string{name, timeSpreadCell(x), counts.cell(x), counts.cyclesCell(x), vsBaseline(x, baseline), speedCell(x), allocCell(x), bytesCell(x), faultsCell(x)})
	}
	b.WriteString("\n")
	return true
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// median is the center benchstat reports for a sample.
func median(values []float64) (float64, bool) {
	if len(values) == 0 {
		return 0, false
	}
	s := benchmath.NewSample(values, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95).Center, true
}

func timeCell(x *samples) string { return medianCell(x, unitTime, FormatSeconds) }

// medianCell formats the median of x's values in unit, or "—" when x or
// its values are missing.
func medianCell(x *samples, unit string, format func(float64) string) string {
	if x == nil {
		return "—"
	}
	m, ok := median(x.values[unit])
	if !ok {
		return "—"
	}
	return format(m)
}

func speedup(ref, x *samples) string {
	if ref == nil || x == nil {
		return "—"
	}
	r, ok1 := median(ref.values[unitTime])
	o, ok2 := median(x.values[unitTime])
	if !ok1 || !ok2 || o == 0 {
		return "—"
	}
	return FormatRatio(r/o) + "×"
}

func vsBaseline(x *samples, baseline *Set) string {
	if x == nil || baseline == nil {
		return "—"
	}
	old, ok := baseline.samples[x.fullName()]
	if !ok || len(old.values[unitTime]) == 0 {
		return "new"
	}
	if len(x.values[unitTime]) == 0 {
		return "—"
	}
	th := &benchmath.DefaultThresholds
	s1 := benchmath.NewSample(old.values[unitTime], th)
	s2 := benchmath.NewSample(x.values[unitTime], th)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	m1 := benchmath.AssumeNothing.Summary(s1, 0.95).Center
	m2 := benchmath.AssumeNothing.Summary(s2, 0.95).Center
	return fmt.Sprintf("%s (p=%.3f)", c.FormatDelta(m1, m2), c.P)
}

func allocCell(x *samples) string { return medianCell(x, unitAllocs, FormatCount) }

func bytesCell(x *samples) string { return medianCell(x, unitBytes, FormatCount) }

// faultsCell is the median of the minor page faults per op the timed
// loop reported (support.UnitFaults).
func faultsCell(x *samples) string {
	return medianCell(x, unitFaults, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) })
}

func speedCell(x *samples) string { return medianCell(x, unitSpeed, FormatBytesPerSecond) }

// FormatSeconds formats a time/op with three significant digits in ns,
// µs, ms or s.
func FormatSeconds(s float64) string { return scaled(s, secondUnits) }

// FormatBytesPerSecond formats a throughput in decimal units, as go test
// reports MB/s.
func FormatBytesPerSecond(v float64) string { return scaled(v, byteRateUnits) }

// A scale is a unit of a measure: values of at least min are written
// divided by div, with three significant digits and the suffix.
type scale struct {
	min, div float64
	suffix   string
}

var (
	secondUnits   = []scale{{1, 1, " s"}, {1e-3, 1e-3, " ms"}, {1e-6, 1e-6, " µs"}, {0, 1e-9, " ns"}}
	byteRateUnits = []scale{{1e9, 1e9, " GB/s"}, {1e6, 1e6, " MB/s"}, {1e3, 1e3, " kB/s"}, {0, 1, " B/s"}}
	countUnits    = []scale{{1e6, 1e6, " M"}, {1e3, 1e3, " k"}, {0, 1, ""}}
)

// scaled writes v in the first of units (largest first) whose min it
// reaches, the last one taking the rest.
func scaled(v float64, units []scale) string {
	for _, u := range units[:len(units)-1] {
		if v >= u.min {
			return sig3(v/u.div) + u.suffix
		}
	}
	u := units[len(units)-1]
	return sig3(v/u.div) + u.suffix
}

// FormatRatio formats a speed ratio: 2 decimals below 10, 1 above.
func FormatRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// FormatCount formats a per-op count: whole numbers without decimals.
func FormatCount(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Names returns the benchmark names of s in order of appearance, without
// the "Benchmark" prefix and the -GOMAXPROCS suffix
// ("Decode/impl=codec/msg=request_tap", as Counts has them).
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.order)
}

// Values returns the values of the benchmark name in unit (UnitTime,
// UnitAllocs, UnitBytes), one per run, or nil.
func (s *Set) Values(name, unit string) []float64 {
	if s == nil {
		return nil
	}
	if x, ok := s.samples[name]; ok {
		return x.values[unit]
	}
	return nil
}

// The units of Values.
const (
	UnitTime   = unitTime
	UnitAllocs = unitAllocs
	UnitBytes  = unitBytes
)
