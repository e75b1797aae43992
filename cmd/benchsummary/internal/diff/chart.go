package diff

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Sizes of the chart, in pixels.
const (
	diffChartWidth = 820
	diffLabelWidth = 330
	diffValueWidth = 70
	diffRowHeight  = 14
	diffRowGap     = 4
	diffHead       = 52
	diffFooter     = 28
)

// Colours of the chart's bars.
const (
	colourWorse  = "#d62728" // grew beyond the threshold
	colourBetter = "#2ca02c" // shrank beyond it
	colourWithin = "#7f7f7f" // within it
)

// WriteChart writes diff.svg: one horizontal bar per counted row, its
// change of instructions/op from base to head in percent, on a linear
// scale centred on 0, with the threshold's lines either side; rows of one
// side only are labelled new or gone.
func (r *Result) WriteChart(w io.Writer) error {
	var rows []Row
	for _, row := range r.Rows {
		if row.Counted {
			rows = append(rows, row)
		}
	}
	th := 100 * r.Options.Threshold
	span := max(th*2, 1)
	for _, row := range rows {
		if row.Status != New && row.Status != Gone {
			span = max(span, math.Abs(100*row.Count.InstrChange))
		}
	}
	span = niceCeil(span)
	plot := float64(diffChartWidth - diffLabelWidth - 2*diffValueWidth)
	mid := float64(diffLabelWidth+diffValueWidth) + plot/2
	xOf := func(v float64) float64 { return mid + plot/2*math.Max(-1, math.Min(1, v/span)) }

	height := diffHead + len(rows)*(diffRowHeight+diffRowGap) + diffFooter
	if len(rows) == 0 {
		height = diffHead + 30
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="10">`+"\n",
		diffChartWidth, height, diffChartWidth, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="12" font-weight="bold">%s</text>`+"\n",
		html.EscapeString(fmt.Sprintf("instructions/op, head vs base, %% (%s → %s); lower is better", r.Base.Rev, r.Head.Rev)))
	fmt.Fprintf(&b, `<text x="10" y="34" fill="#555">%s</text>`+"\n",
		html.EscapeString(fmt.Sprintf("red: grew more than %s (fails for a row of ours); green: fell more than %s; grey: within", pct(r.Options.Threshold), pct(r.Options.Threshold))))
	if len(rows) == 0 {
		fmt.Fprintf(&b, `<text x="10" y="%d">No counted rows in this diff.</text>`+"\n", diffHead+14)
	}
	top := diffHead
	y := top
	for _, row := range rows {
		label := row.Name
		if row.Peer {
			label += " (peer)"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", diffLabelWidth-6, y+diffRowHeight-3, html.EscapeString(label))
		switch row.Status {
		case New, Gone:
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-style="italic">%s</text>`+"\n", mid, y+diffRowHeight-3, row.Status)
		default:
			v := 100 * row.Count.InstrChange
			colour := colourWithin
			switch {
			case v > th:
				colour = colourWorse
			case v < -th:
				colour = colourBetter
			}
			x0, x1 := math.Min(mid, xOf(v)), math.Max(mid, xOf(v))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %+.2f%%</title></rect>`+"\n",
				x0, y, math.Max(x1-x0, 1), diffRowHeight, colour, html.EscapeString(row.Name), v)
			tx, anchor := x1+3, "start"
			if v < 0 {
				tx, anchor = x0-3, "end"
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s">%+.2f%%</text>`+"\n", tx, y+diffRowHeight-3, anchor, v)
		}
		y += diffRowHeight + diffRowGap
	}
	// The axis: 0, the threshold either side and the ends.
	for _, t := range []float64{-span, -th, 0, th, span} {
		stroke, dash := "#ccc", ""
		switch {
		case t == 0:
			stroke = "#333"
		case t == th || t == -th:
			stroke, dash = "#d62728", ` stroke-dasharray="3,3"`
		}
		x := xOf(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"%s/>`+"\n", x, top-4, x, y, stroke, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%+g%%</text>`+"\n", x, y+12, t)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
