package count

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
)

// Limits of the gate.
const (
	// MaxGrowth is how much a row's instructions/op may grow against the
	// baseline before Check fails it.
	MaxGrowth = 0.02
	// MaxSpread is how far two count runs of the same binary may differ
	// on any row (Same).
	MaxSpread = 0.005
)

// Change is one row of a comparison.
type Change struct {
	Name         string
	Base, Latest Row
	InstrChange  float64 // relative: +0.03 is 3 % more
	CycleChange  float64 // relative, of est-cycles/op (0 when either side has none)
	// NoCyclesInBase marks a row whose baseline has no est-cycles/op (a
	// file recorded before the figure): its cycles are not gated.
	NoCyclesInBase bool
	Failed         bool
	Reasons        []string
	MissingLatest  bool // in the baseline, not in the run
	MissingInBase  bool // new in the run
}

// Peers are the implementations that are not ours (impl=<peer> in a
// benchmark's name): their rows are compared and listed but never fail
// the gate. Their code changes only with a dependency, and the map hash
// seed, random per process, moves their counts by up to a few percent on
// the smallest messages (fxamacker's type cache).
var Peers = []string{"fxamacker", "msgp", "floor"}

// IsPeer reports whether the benchmark name is a peer's row.
func IsPeer(name string) bool {
	for _, p := range Peers {
		if strings.Contains(name, "/impl="+p+"/") || strings.HasSuffix(name, "/impl="+p) {
			return true
		}
	}
	return false
}

// Check compares latest with base: a row of ours fails when its
// instructions/op or its est-cycles/op grew by more than maxGrowth or its
// allocs/op or B/op grew at all (the est-cycles charge the collector's
// share of the bytes; B/op is gated on its own as well, so that a change
// that doubles them never passes). A baseline row without est-cycles/op
// (recorded before the figure) gates the rest and marks the row
// NoCyclesInBase. Rows of one side only are listed, not failed (a
// narrowed run or a new benchmark), and so are the peers' rows (Peers).
func Check(base, latest []Row, maxGrowth float64) []Change {
	byName := map[string]Row{}
	for _, r := range base {
		byName[r.Name] = r
	}
	var out []Change
	inLatest := map[string]bool{}
	for _, l := range latest {
		inLatest[l.Name] = true
		b, ok := byName[l.Name]
		if !ok {
			out = append(out, Change{Name: l.Name, Latest: l, MissingInBase: true})
			continue
		}
		c := Change{Name: l.Name, Base: b, Latest: l, InstrChange: rel(b.Instructions, l.Instructions)}
		if c.InstrChange > maxGrowth {
			c.Failed = true
			c.Reasons = append(c.Reasons, fmt.Sprintf("instructions %+.1f%% (limit %+.0f%%)", 100*c.InstrChange, 100*maxGrowth))
		}
		switch {
		case b.Cycles < 0:
			c.NoCyclesInBase = l.Cycles >= 0
		case l.Cycles >= 0:
			c.CycleChange = rel(b.Cycles, l.Cycles)
			if c.CycleChange > maxGrowth {
				c.Failed = true
				c.Reasons = append(c.Reasons, fmt.Sprintf("est-cycles %+.1f%% (limit %+.0f%%)", 100*c.CycleChange, 100*maxGrowth))
			}
		}
		if b.Allocs >= 0 && l.Allocs > b.Allocs {
			c.Failed = true
			c.Reasons = append(c.Reasons, fmt.Sprintf("allocs %s -> %s", trim(b.Allocs), trim(l.Allocs)))
		}
		if b.Bytes >= 0 && l.Bytes > b.Bytes {
			c.Failed = true
			c.Reasons = append(c.Reasons, fmt.Sprintf("B/op %s -> %s", trim(b.Bytes), trim(l.Bytes)))
		}
		if c.Failed && IsPeer(c.Name) {
			c.Failed, c.Reasons = false, append(c.Reasons, "a peer: not gated")
		}
		out = append(out, c)
	}
	for _, b := range base {
		if !inLatest[b.Name] {
			out = append(out, Change{Name: b.Name, Base: b, MissingLatest: true})
		}
	}
	return out
}

// Same compares two count runs of the same binary: every row of a must be
// in b within maxSpread, the peers' too. It returns the rows and whether
// all agree.
func Same(a, b []Row, maxSpread float64) ([]Change, bool) {
	changes := Check(a, b, maxSpread)
	ok := true
	for i := range changes {
		c := &changes[i]
		switch {
		case c.MissingLatest || c.MissingInBase:
			c.Failed = true
			c.Reasons = []string{"in one run only"}
		case c.InstrChange < -maxSpread || c.InstrChange > maxSpread:
			c.Failed = true
			c.Reasons = []string{fmt.Sprintf("instructions differ by %+.2f%% (limit ±%.1f%%)", 100*c.InstrChange, 100*maxSpread)}
		case (c.Base.Cycles < 0) != (c.Latest.Cycles < 0):
			c.Failed = true
			c.Reasons = []string{"est-cycles/op in one run only"}
		case c.CycleChange < -maxSpread || c.CycleChange > maxSpread:
			c.Failed = true
			c.Reasons = []string{fmt.Sprintf("est-cycles differ by %+.2f%% (limit ±%.1f%%)", 100*c.CycleChange, 100*maxSpread)}
		case c.Base.Allocs != c.Latest.Allocs:
			c.Failed = true
			c.Reasons = []string{"allocs/op differ"}
		default:
			c.Failed, c.Reasons = false, nil
		}
		ok = ok && !c.Failed
	}
	return changes, ok
}

func rel(base, v float64) float64 {
	if base == 0 {
		if v == 0 {
			return 0
		}
		return 1
	}
	return v/base - 1
}

// Failed reports whether any change failed.
func Failed(changes []Change) bool {
	for _, c := range changes {
		if c.Failed {
			return true
		}
	}
	return false
}

// WriteTable writes a short table of changes: every failed row, or with
// all set every row, and the largest change either way.
func WriteTable(w io.Writer, changes []Change, all bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tbase instr/op\tinstr/op\tchange\tbase est-cycles/op\test-cycles/op\tchange\tallocs/op\tB/op\t")
	n, noCycles := 0, 0
	for _, c := range changes {
		if c.NoCyclesInBase {
			noCycles++
		}
		if !all && !c.Failed && len(c.Reasons) == 0 {
			continue
		}
		n++
		mark := ""
		if c.Failed {
			mark = "  FAIL: " + strings.Join(c.Reasons, ", ")
		} else if len(c.Reasons) > 0 {
			mark = "  (" + strings.Join(c.Reasons, ", ") + ")"
		}
		switch {
		case c.MissingLatest:
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t%s\t-\t-\t%s\t%s\t%s\n", short(c.Name), count(c.Base.Instructions), cycles(c.Base), allocs(c.Base), bytesOf(c.Base), "  not in this run"+mark)
		case c.MissingInBase:
			fmt.Fprintf(tw, "%s\t-\t%s\tnew\t-\t%s\tnew\t%s\t%s\t%s\n", short(c.Name), count(c.Latest.Instructions), cycles(c.Latest), allocs(c.Latest), bytesOf(c.Latest), mark)
		default:
			cc := "-"
			if c.Base.Cycles >= 0 && c.Latest.Cycles >= 0 {
				cc = fmt.Sprintf("%+.2f%%", 100*c.CycleChange)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.2f%%\t%s\t%s\t%s\t%s -> %s\t%s -> %s\t%s\n", short(c.Name), count(c.Base.Instructions), count(c.Latest.Instructions),
				100*c.InstrChange, cycles(c.Base), cycles(c.Latest), cc, allocs(c.Base), allocs(c.Latest), bytesOf(c.Base), bytesOf(c.Latest), mark)
		}
	}
	if n == 0 {
		fmt.Fprintln(tw, "(no row failed)\t\t\t\t\t\t\t\t\t")
	}
	tw.Flush()
	if noCycles > 0 {
		fmt.Fprintf(w, "%d row(s) have no est-cycles/op in the baseline (recorded before the figure): their est-cycles are not gated until make baseline-counts re-records it\n", noCycles)
	}
}

func cycles(r Row) string {
	if r.Cycles < 0 {
		return "-"
	}
	return count(r.Cycles)
}

func bytesOf(r Row) string {
	if r.Bytes < 0 {
		return "-"
	}
	return trim(r.Bytes)
}

func short(name string) string { return strings.TrimPrefix(name, "Benchmark") }

func allocs(r Row) string {
	if r.Allocs < 0 {
		return "-"
	}
	return trim(r.Allocs)
}

// count formats an instruction count: 3 significant digits with k or M.
func count(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// BenchRegexp returns a -test.bench pattern that matches each of the full
// benchmark names (and possibly a few more: each level's alternatives
// combine with every other level's).
func BenchRegexp(names []string) string {
	var levels [][]string
	for _, n := range names {
		for i, part := range strings.Split(n, "/") {
			if i == len(levels) {
				levels = append(levels, nil)
			}
			q := regexp.QuoteMeta(part)
			if !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	parts := make([]string, len(levels))
	for i, alts := range levels {
		parts[i] = "^(" + strings.Join(alts, "|") + ")$"
	}
	return strings.Join(parts, "/")
}

// Least merges a second count of some rows into rows: each row counted
// again keeps the lesser instructions/op, est-cycles/op, allocs/op and
// B/op of the two.
func Least(rows, again []Row) []Row {
	by := map[string]Row{}
	for _, r := range again {
		by[r.Name] = r
	}
	out := slices.Clone(rows)
	for i, r := range out {
		a, ok := by[r.Name]
		if !ok {
			continue
		}
		out[i].Instructions = min(r.Instructions, a.Instructions)
		if a.Cycles >= 0 && r.Cycles >= 0 {
			out[i].Cycles = min(r.Cycles, a.Cycles)
		}
		if a.Allocs >= 0 && r.Allocs >= 0 {
			out[i].Allocs, out[i].Bytes = min(r.Allocs, a.Allocs), min(r.Bytes, a.Bytes)
		}
	}
	return out
}
