package summary

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// The chart next to latest.md (WriteChart): an SVG of three panels of
// horizontal bars on a log scale, fit to embed in a review:
//
//   - Decode, instructions/op ÷ the floor's, per message and implementation;
//   - Encode, the same;
//   - speed-up over each peer in time (the peer's time/op ÷ ours, medians
//     of the same run), per message, for Encode and Decode.

// chartColors are the bar colours by series.
var chartColors = map[string]string{
	"codec": "#1f77b4", "zerocopy": "#2ca02c", "msgp": "#ff7f0e", Reference: "#d62728",
	"codec ÷ " + Reference: "#1f77b4", "codec ÷ msgp": "#aec7e8",
	"zerocopy ÷ " + Reference: "#2ca02c", "zerocopy ÷ msgp": "#98df8a",
}

type bar struct {
	series string
	value  float64
}

type group struct {
	label string
	bars  []bar
}

type panel struct {
	title  string
	groups []group
}

// WriteChart writes the SVG chart of latest and its counts. Panels with
// nothing to show (no counts, no peers) are left out; with none at all
// the chart says so.
func WriteChart(w io.Writer, latest *Set, counts Counts) error {
	var panels []panel
	for _, op := range []string{"Decode", "Encode"} {
		rows, impls := latest.codecRows(op)
		p := panel{title: op + ": instructions/op ÷ the floor's (1 = the floor; lower is better)"}
		for _, r := range rows {
			fl, ok := counts.of(r.impls["floor"])
			if !ok || fl == 0 {
				continue
			}
			g := group{label: r.label}
			for _, impl := range append(impls, Reference) {
				if impl == "floor" {
					continue
				}
				if v, ok := counts.of(r.impls[impl]); ok {
					g.bars = append(g.bars, bar{impl, v / fl})
				}
			}
			if len(g.bars) > 0 {
				p.groups = append(p.groups, g)
			}
		}
		if len(p.groups) > 0 {
			panels = append(panels, p)
		}
	}
	speed := panel{title: "Speed-up over each peer: its time/op ÷ ours, same run (higher is better)"}
	for _, op := range []string{"Encode", "Decode"} {
		rows, impls := latest.codecRows(op)
		for _, r := range rows {
			g := group{label: op + " " + r.label}
			for _, impl := range impls {
				if isPeer(impl) {
					continue
				}
				for _, peer := range []string{Reference, "msgp"} {
					p, x := r.impls[peer], r.impls[impl]
					if p == nil || x == nil {
						continue
					}
					pt, ok1 := median(p.values[unitTime])
					ot, ok2 := median(x.values[unitTime])
					if ok1 && ok2 && ot > 0 {
						g.bars = append(g.bars, bar{impl + " ÷ " + peer, pt / ot})
					}
				}
			}
			if len(g.bars) > 0 {
				speed.groups = append(speed.groups, g)
			}
		}
	}
	if len(speed.groups) > 0 {
		panels = append(panels, speed)
	}
	_, err := io.WriteString(w, renderChart(panels))
	return err
}

// Layout, in pixels.
const (
	chartWidth  = 820
	labelWidth  = 200
	valueWidth  = 60
	barHeight   = 9
	barGap      = 2
	groupGap    = 7
	panelHead   = 40
	panelFooter = 26
)

func renderChart(panels []panel) string {
	var b strings.Builder
	y := 10
	var body strings.Builder
	if len(panels) == 0 {
		body.WriteString(`<text x="10" y="30">No codec results with counts or peers in this run.</text>`)
		y = 50
	}
	for _, p := range panels {
		y = renderPanel(&body, p, y)
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="10">`+"\n",
		chartWidth, y, chartWidth, y)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	return b.String()
}

// renderPanel draws p from y down and returns the y below it.
func renderPanel(b *strings.Builder, p panel, y int) int {
	lo, hi := 1.0, 1.0
	var series []string
	for _, g := range p.groups {
		for _, br := range g.bars {
			lo, hi = math.Min(lo, br.value), math.Max(hi, br.value)
			if !contains(series, br.series) {
				series = append(series, br.series)
			}
		}
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	plot := chartWidth - labelWidth - valueWidth
	xOf := func(v float64) float64 {
		return labelWidth + float64(plot)*(math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	fmt.Fprintf(b, `<text x="10" y="%d" font-size="12" font-weight="bold">%s</text>`+"\n", y+14, html.EscapeString(p.title))
	// Legend.
	lx := 10
	for _, s := range series {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, y+22, color(s), lx+14, y+31, html.EscapeString(s))
		lx += 24 + 7*len([]rune(s))
	}
	top := y + panelHead
	cy := top
	for _, g := range p.groups {
		h := len(g.bars)*(barHeight+barGap) - barGap
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelWidth-6, cy+h/2+4, html.EscapeString(g.label))
		for _, br := range g.bars {
			x0, x1 := xOf(lo), xOf(math.Max(br.value, lo))
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s×</title></rect>`+"\n",
				x0, cy, math.Max(x1-x0, 1), barHeight, color(br.series), html.EscapeString(g.label), html.EscapeString(br.series), FormatRatio(br.value))
			fmt.Fprintf(b, `<text x="%.1f" y="%d">%s×</text>`+"\n", x1+3, cy+barHeight-1, FormatRatio(br.value))
			cy += barHeight + barGap
		}
		cy += groupGap
	}
	// Axis: decades and the line at 1.
	for v := lo; v <= hi*1.0001; v *= 10 {
		for _, m := range []float64{1, 2, 5} {
			t := v * m
			if t > hi*1.0001 {
				break
			}
			x := xOf(t)
			stroke := "#ddd"
			if t == 1 {
				stroke = "#333"
			}
			fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", x, top-4, x, cy, stroke)
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s×</text>`+"\n", x, cy+12, FormatCount(t))
		}
	}
	return cy + panelFooter
}

func color(series string) string {
	if c, ok := chartColors[series]; ok {
		return c
	}
	return "#7f7f7f"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
