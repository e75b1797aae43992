package diff

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wirebench/wirebench/bench/quiet"
	"github.com/wirebench/wirebench/cmd/benchsummary/internal/summary"
)

// columns are the headings of a row's cells (cells).
var columns = []string{"benchmark", "instructions/op base", "head", "Δ", "est-cycles/op base", "head", "Δ", "time/op base", "head", "Δ (p)", "allocs/op base → head", "B/op base → head", "status"}

// cells formats a row for the tables.
func (row Row) cells() []string {
	c := row.Count
	instrBase, instrHead, instrDelta := "—", "—", ""
	if row.Counted {
		if !c.MissingInBase {
			instrBase = summary.FormatCount(c.Base.Instructions)
		}
		if !c.MissingLatest {
			instrHead = summary.FormatCount(c.Latest.Instructions)
		}
		if !c.MissingInBase && !c.MissingLatest {
			instrDelta = fmt.Sprintf("%+.2f%%", 100*c.InstrChange)
		}
	}
	cycBase, cycHead, cycDelta := "—", "—", ""
	if row.Counted {
		if !c.MissingInBase && c.Base.Cycles >= 0 {
			cycBase = summary.FormatCount(c.Base.Cycles)
		}
		if !c.MissingLatest && c.Latest.Cycles >= 0 {
			cycHead = summary.FormatCount(c.Latest.Cycles)
		}
		if cycBase != "—" && cycHead != "—" {
			cycDelta = fmt.Sprintf("%+.2f%%", 100*c.CycleChange)
		}
	}
	timeDelta := row.Time.Delta
	if timeDelta != "" {
		timeDelta += fmt.Sprintf(" (p=%.3f n=%d+%d)", row.Time.P, row.Time.N1, row.Time.N2)
	}
	status := row.Status
	switch {
	case row.Failed:
		status = "FAIL: " + strings.Join(row.Reasons, ", ")
	case row.Status == Changed || len(row.Reasons) > 0:
		status = strings.TrimPrefix(strings.Join(append([]string{row.Status}, row.Reasons...), ": "), ": ")
	case status == Same:
		status = "same"
	}
	return []string{row.Name, instrBase, instrHead, instrDelta, cycBase, cycHead, cycDelta, row.Time.Base, row.Time.Head, timeDelta,
		pair(row, func(r Row) (float64, float64, bool) { return r.Count.Base.Allocs, r.Count.Latest.Allocs, r.Counted }),
		pair(row, func(r Row) (float64, float64, bool) { return r.Count.Base.Bytes, r.Count.Latest.Bytes, r.Counted }),
		status}
}

// pair formats base → head of a per-op count.
func pair(row Row, get func(Row) (float64, float64, bool)) string {
	b, h, ok := get(row)
	if !ok {
		return "—"
	}
	if row.Count.MissingInBase {
		b = -1
	}
	if row.Count.MissingLatest {
		h = -1
	}
	if b == h {
		return num(b)
	}
	return num(b) + " → " + num(h)
}

// header is what both reports say before their tables.
func (r *Result) header() []string {
	lines := []string{
		"base: " + r.Base.Rev + describe(r.Base.Times),
		"head: " + r.Head.Rev + describe(r.Head.Times),
	}
	timing := fmt.Sprintf("time/op: %d interleaved rounds (base, head, base, head, …) on one host", r.Options.Rounds)
	if q := r.Head.Times.ConfigValue("quiet"); q != "" {
		timing += "; quiet: " + q
	}
	lines = append(lines, timing,
		fmt.Sprintf("instructions/op: the count tier (valgrind's callgrind, the same settings and classes on both sides; exact); est-cycles/op: the same loop under callgrind's cache simulation at a fixed geometry, L1 hits + 5 × LL hits + 35 × RAM, plus the collector's share of the bytes it allocates at GOGC=100 (reports/micro/README.md); the gate: a row of ours fails when its instructions/op or est-cycles/op grew more than %s or its allocs/op or B/op grew at all; peers are listed, not gated", pct(r.Options.Threshold)))
	return lines
}

func describe(s *summary.Set) string {
	var parts []string
	for _, k := range []string{"go-version", "cpu"} {
		if v := strings.TrimSpace(s.ConfigValue(k)); v != "" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, ", ")
}

// WriteText writes the plain report (diff.txt): the verdict, every row,
// then benchstat's own comparison of the timings if given.
func (r *Result) WriteText(w io.Writer, benchstat string) error {
	var b strings.Builder
	b.WriteString("micro-diff: " + r.Verdict() + "\n")
	if r.Options.Unverified {
		b.WriteString(quiet.NotVerifiedStamp + ": time/op may reflect a busy host (instructions/op do not)\n")
	}
	for _, l := range r.header() {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(columns, "\t"))
	for _, row := range r.Rows {
		fmt.Fprintln(tw, strings.Join(row.cells(), "\t"))
	}
	tw.Flush()
	if benchstat != "" {
		b.WriteString("\n== benchstat base=… head=… (time/op of the interleaved rounds)\n")
		b.WriteString(strings.TrimRight(benchstat, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report for a pull request's comment
// (diff.md): the verdict and the changed rows open, every row and
// benchstat's output collapsed. chart, if not empty, is where the chart
// of the instruction deltas is (a path or URL), linked at the end.
func (r *Result) WriteMarkdown(w io.Writer, benchstat, chart string) error {
	var b strings.Builder
	mark := "✅"
	if r.Failed {
		mark = "❌"
	}
	fmt.Fprintf(&b, "### make micro-diff: %s → %s\n\n", r.Base.Rev, r.Head.Rev)
	fmt.Fprintf(&b, "%s **%s**\n\n", mark, r.Verdict())
	if r.Options.Unverified {
		b.WriteString("> **" + quiet.NotVerifiedStamp + "**: time/op may reflect a busy host; instructions/op do not depend on it.\n\n")
	}
	var open []Row
	for _, row := range r.Rows {
		if row.Status != Same {
			open = append(open, row)
		}
	}
	if len(open) == 0 {
		fmt.Fprintf(&b, "No row changed by more than %s in instructions/op or est-cycles/op, none changed allocs/op or B/op, none new or gone.\n\n", pct(r.Options.Threshold))
	} else {
		fmt.Fprintf(&b, "Rows changed by more than %s in instructions/op or est-cycles/op, in allocs/op or B/op, new or gone:\n\n", pct(r.Options.Threshold))
		table(&b, open)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "<details><summary>All %d rows</summary>\n\n", len(r.Rows))
	table(&b, r.Rows)
	b.WriteString("\n")
	for _, l := range r.header() {
		b.WriteString(l + "  \n")
	}
	b.WriteString("</details>\n")
	if benchstat != "" {
		fmt.Fprintf(&b, "\n<details><summary>benchstat base=… head=…</summary>\n\n```text\n%s\n```\n</details>\n", strings.TrimRight(benchstat, "\n"))
	}
	if chart != "" {
		fmt.Fprintf(&b, "\nChart of the instruction deltas: %s\n", chart)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func table(b *strings.Builder, rows []Row) {
	b.WriteString("| " + strings.Join(columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(columns)) + "\n")
	for _, row := range rows {
		cells := row.cells()
		cells[0] = "`" + cells[0] + "`"
		for i := range cells {
			cells[i] = strings.ReplaceAll(cells[i], "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}
