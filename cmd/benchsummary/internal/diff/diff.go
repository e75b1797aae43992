// Package diff compares two revisions measured in one run of make
// micro-diff (mk/diff.sh): their instruction counts (the count tier,
// exact) and their timings (interleaved rounds, compared as benchstat
// compares), row by row, and gives the verdict that gates a pull request.
//
// A row of ours fails when its instructions/op grew by more than the
// threshold or its allocs/op or B/op grew at all: the rule of make micro-check
// (count.Check), here between base and head rather than against a stored
// baseline. The peers' rows are listed, never gated. A row only the head
// has is new, one only the base has is gone; neither fails.
package diff

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/cmd/benchsummary/internal/summary"
)

// Side is one revision's results.
type Side struct {
	// Rev names the revision as the user gave it, with its commit
	// ("main~1 (3c6cbfd)"), or "working tree" for uncommitted changes.
	Rev    string
	Counts []count.Row  // the count tier's rows (cmd/benchcount run)
	Times  *summary.Set // the timed rounds; nil when there are none
}

// Options of Compare.
type Options struct {
	// Threshold is how much a row's instructions/op may grow (0.02 is
	// 2 %) before it fails; a row that moved by more either way is a
	// changed row, listed first.
	Threshold float64
	// Unverified stamps the reports "host not verified quiet".
	Unverified bool
	// Rounds is how many interleaved timed rounds ran, for the reports.
	Rounds int
}

// Status of a row.
const (
	Same    = "" // in both, within the threshold
	Changed = "changed"
	New     = "new"  // the head only
	Gone    = "gone" // the base only
)

// Row is one benchmark of the comparison.
type Row struct {
	Name     string       // "Decode/impl=codec/msg=request_tap"
	Status   string       // Same, Changed, New or Gone
	Failed   bool         // gates: a row of ours that grew (see the package doc)
	Reasons  []string     // why it failed or changed
	Counted  bool         // a count exists on either side
	Count    count.Change // base and head counts, InstrChange
	Time     TimeChange
	Peer     bool
	position int
}

// TimeChange is a row's time/op on both sides as benchstat reports it.
type TimeChange struct {
	Base, Head string  // "1.23 µs ± 2%", "—" when absent
	Delta      string  // "+3.21%", "~" when not significant, "" when a side lacks times
	P          float64 // p-value of the Mann-Whitney U test (-1 when not compared)
	N1, N2     int
}

// Result is the comparison.
type Result struct {
	Base, Head Side
	Options    Options
	Rows       []Row // changed, new and gone rows first (failed ones first among them), then the rest in run order
	Failed     bool
}

// Compare compares head with base.
func Compare(base, head Side, opt Options) *Result {
	res := &Result{Base: base, Head: head, Options: opt}
	byName := map[string]*Row{}
	var rows []*Row
	get := func(name string) *Row {
		if r, ok := byName[name]; ok {
			return r
		}
		r := &Row{Name: name, position: len(rows), Peer: count.IsPeer("Benchmark" + name)}
		byName[name] = r
		rows = append(rows, r)
		return r
	}
	for _, c := range count.Check(base.Counts, head.Counts, opt.Threshold) {
		r := get(strings.TrimPrefix(c.Name, "Benchmark"))
		r.Counted, r.Count, r.Failed = true, c, c.Failed
		r.Reasons = c.Reasons
		switch {
		case c.MissingInBase:
			r.Status = New
		case c.MissingLatest:
			r.Status = Gone
		case c.Failed || c.InstrChange > opt.Threshold || c.InstrChange < -opt.Threshold || c.CycleChange > opt.Threshold || c.CycleChange < -opt.Threshold:
			r.Status = Changed
		case c.Base.Allocs != c.Latest.Allocs || c.Base.Bytes != c.Latest.Bytes:
			r.Status = Changed
			r.Reasons = append(r.Reasons, fmt.Sprintf("allocs/op %s -> %s, B/op %s -> %s",
				num(c.Base.Allocs), num(c.Latest.Allocs), num(c.Base.Bytes), num(c.Latest.Bytes)))
		}
		if r.Status == Changed && len(r.Reasons) == 0 {
			r.Reasons = []string{fmt.Sprintf("instructions %+.2f%%, est-cycles %+.2f%%", 100*c.InstrChange, 100*c.CycleChange)}
		}
	}
	baseTimed := map[string]bool{}
	for _, name := range base.Times.Names() {
		baseTimed[name] = true
		get(name)
	}
	for _, name := range head.Times.Names() {
		r := get(name)
		if !r.Counted && !baseTimed[name] {
			r.Status = New
		}
	}
	for _, r := range rows {
		r.Time = compareTimes(base.Times.Values(r.Name, summary.UnitTime), head.Times.Values(r.Name, summary.UnitTime))
		if !r.Counted && r.Status == Same && len(head.Times.Values(r.Name, summary.UnitTime)) == 0 {
			r.Status = Gone
		}
		res.Failed = res.Failed || r.Failed
	}
	slices.SortStableFunc(rows, func(a, b *Row) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.position, b.position)
	})
	for _, r := range rows {
		res.Rows = append(res.Rows, *r)
	}
	return res
}

// rank orders the rows: failed, changed, new, gone, the rest.
func rank(r *Row) int {
	switch {
	case r.Failed:
		return 0
	case r.Status == Changed:
		return 1
	case r.Status == New:
		return 2
	case r.Status == Gone:
		return 3
	}
	return 4
}

// compareTimes summarizes and compares two samples of time/op as
// benchstat does (median, 95 % confidence interval, Mann-Whitney U).
func compareTimes(base, head []float64) TimeChange {
	tc := TimeChange{Base: "—", Head: "—", P: -1, N1: len(base), N2: len(head)}
	th := &benchmath.DefaultThresholds
	var s1, s2 *benchmath.Sample
	if len(base) > 0 {
		s1 = benchmath.NewSample(base, th)
		tc.Base = timeCell(s1)
	}
	if len(head) > 0 {
		s2 = benchmath.NewSample(head, th)
		tc.Head = timeCell(s2)
	}
	if s1 == nil || s2 == nil {
		return tc
	}
	c := benchmath.AssumeNothing.Compare(s1, s2)
	m1 := benchmath.AssumeNothing.Summary(s1, 0.95).Center
	m2 := benchmath.AssumeNothing.Summary(s2, 0.95).Center
	tc.Delta, tc.P = c.FormatDelta(m1, m2), c.P
	return tc
}

func timeCell(s *benchmath.Sample) string {
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return summary.FormatSeconds(sum.Center) + " ± " + sum.PctRangeString()
}

// Verdict is the one line that says whether the head may merge.
func (r *Result) Verdict() string {
	var failed, changed, faster, newRows, gone, compared int
	var worst []string
	largest := 0.0
	for _, row := range r.Rows {
		switch {
		case row.Failed:
			failed++
			if len(worst) < 3 {
				worst = append(worst, row.Name+" ("+strings.Join(row.Reasons, ", ")+")")
			}
		case row.Status == Changed:
			changed++
			if row.Count.InstrChange < 0 {
				faster++
			}
		case row.Status == New:
			newRows++
		case row.Status == Gone:
			gone++
		}
		if row.Counted && row.Status != New && row.Status != Gone {
			compared++
			if !row.Peer && math.Abs(row.Count.InstrChange) > math.Abs(largest) {
				largest = row.Count.InstrChange
			}
		}
	}
	var extra []string
	if faster > 0 {
		extra = append(extra, fmt.Sprintf("%d with fewer instructions beyond %s", faster, pct(r.Options.Threshold)))
	}
	if n := changed - faster; n > 0 {
		extra = append(extra, fmt.Sprintf("%d other changed", n))
	}
	if newRows > 0 {
		extra = append(extra, fmt.Sprintf("%d new", newRows))
	}
	if gone > 0 {
		extra = append(extra, fmt.Sprintf("%d gone", gone))
	}
	tail := ""
	if len(extra) > 0 {
		tail = "; " + strings.Join(extra, ", ")
	}
	if r.Failed {
		more := ""
		if failed > len(worst) {
			more = fmt.Sprintf(" and %d more", failed-len(worst))
		}
		return fmt.Sprintf("FAIL: %d row(s) of ours grew more than %s in instructions/op or est-cycles/op or allocated more: %s%s%s",
			failed, pct(r.Options.Threshold), strings.Join(worst, "; "), more, tail)
	}
	return fmt.Sprintf("OK: %d counted rows compared, none of ours grew more than %s in instructions/op or est-cycles/op or at all in allocs/op or B/op (largest change of ours %+.2f%%)%s",
		compared, pct(r.Options.Threshold), 100*largest, tail)
}

// pct formats a threshold: "2 %", "0.5 %".
func pct(v float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", 100*v), "0"), ".0") + " %"
}

// num formats a per-op count, "—" when not counted.
func num(v float64) string {
	if v < 0 {
		return "—"
	}
	return summary.FormatCount(v)
}
