package summary

import (
	"strings"

	"github.com/wirebench/wirebench/bench/count"
)

// Counts are instruction counts by benchmark name without the "Benchmark"
// prefix ("Decode/impl=codec/msg=request_tap"), as make micro-count
// writes them (internal/benchcount).
type Counts map[string]count.Row

// NewCounts indexes count rows by name.
func NewCounts(rows []count.Row) Counts {
	c := Counts{}
	for _, r := range rows {
		c[strings.TrimPrefix(r.Name, "Benchmark")] = r
	}
	return c
}

// fullName is x's name as a counts file has it.
func (x *samples) fullName() string {
	name := x.base
	for _, p := range x.params {
		name += "/" + p.key + "=" + p.value
	}
	return name
}

// of returns x's instructions/op.
func (c Counts) of(x *samples) (float64, bool) {
	if c == nil || x == nil {
		return 0, false
	}
	r, ok := c[x.fullName()]
	return r.Instructions, ok
}

// cell formats x's instructions/op, or "—".
func (c Counts) cell(x *samples) string {
	v, ok := c.of(x)
	if !ok {
		return "—"
	}
	return FormatInstructions(v)
}

// FormatInstructions formats an instruction count with three significant
// digits and k or M.
func FormatInstructions(v float64) string { return scaled(v, countUnits) }

// cycles returns x's est-cycles/op, if its count has them.
func (c Counts) cycles(x *samples) (float64, bool) {
	if c == nil || x == nil {
		return 0, false
	}
	r, ok := c[x.fullName()]
	return r.Cycles, ok && r.Cycles >= 0
}

// cyclesCell formats x's est-cycles/op, or "—".
func (c Counts) cyclesCell(x *samples) string {
	v, ok := c.cycles(x)
	if !ok {
		return "—"
	}
	return FormatInstructions(v)
}
