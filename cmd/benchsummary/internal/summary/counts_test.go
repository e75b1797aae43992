package summary

import (
	"strings"
	"testing"

	"github.com/wirebench/wirebench/bench/count"
)

const withPeers = `cpu: This CPU
BenchmarkDecode/impl=codec/msg=m 10 100 ns/op 1 allocs/op 48 B/op 0.02 page-faults/op
BenchmarkDecode/impl=codec/msg=m 10 110 ns/op 1 allocs/op 48 B/op 0.04 page-faults/op
BenchmarkDecode/impl=fxamacker/msg=m 10 1000 ns/op 3 allocs/op 88 B/op
BenchmarkDecode/impl=fxamacker/msg=m 10 1100 ns/op 3 allocs/op 88 B/op
BenchmarkDecode/impl=msgp/msg=m 10 300 ns/op 3 allocs/op 88 B/op
BenchmarkDecode/impl=msgp/msg=m 10 330 ns/op 3 allocs/op 88 B/op
BenchmarkDecode/impl=floor/msg=m 10 50 ns/op 0 allocs/op 0 B/op
BenchmarkDecode/impl=floor/msg=m 10 55 ns/op 0 allocs/op 0 B/op
BenchmarkDecode/impl=zerocopy/msg=m 10 60 ns/op 0 allocs/op 0 B/op
BenchmarkDecode/impl=zerocopy/msg=m 10 66 ns/op 0 allocs/op 0 B/op
BenchmarkFrame/op=read/msg=m 10 20 ns/op 0 allocs/op 0 B/op
`

func TestCountsAndChart(t *testing.T) {
	latest, err := Load(strings.NewReader(withPeers), "latest.txt")
	if err != nil {
		t.Fatal(err)
	}
	counts := NewCounts([]count.Row{
		{Name: "BenchmarkDecode/impl=codec/msg=m", Instructions: 520, Cycles: 1100},
		{Name: "BenchmarkDecode/impl=fxamacker/msg=m", Instructions: 6240, Cycles: 9000},
		{Name: "BenchmarkDecode/impl=msgp/msg=m", Instructions: 2080, Cycles: 3100},
		{Name: "BenchmarkDecode/impl=floor/msg=m", Instructions: 400, Cycles: 500},
		// A count from before est-cycles/op: the cells say so.
		{Name: "BenchmarkDecode/impl=zerocopy/msg=m", Instructions: 440, Cycles: -1},
		{Name: "BenchmarkFrame/op=read/msg=m", Instructions: 1234567, Cycles: 1500000},
	})
	got := summary(t, latest, Options{Counts: counts, Chart: "latest.svg"})
	for _, want := range []string{
		// time ratio · instruction ratio; ours as a percentage of the
		// floor's instructions · est-cycles; the page faults' median.
		"| m | codec | 105 ns ± 5% range | 520 | 1.10 k | 10.0× · 12.0× | 3.00× · 4.00× | 130% · 220% | — | 1 | 48 | 0.03 |",
		"| m | zerocopy | 63.0 ns ± 5% range | 440 | — | 16.7× · 14.2× | 5.00× · 4.73× | 110% | — | 0 | 0 | — |",
		"| m | 1.05 µs | 6.24 k | 9.00 k | 3 | 315 ns | 2.08 k | 3.10 k | 3 | 52.5 ns | 400 | 500 | 0 |",
		"| Frame/op=read/msg=m | 20.0 ns | 1.23 M | 1.50 M |",
		"![speed-ups over the peers and instructions against the floor](latest.svg)",
	} {
		mustContain(t, "summary", got, want)
	}
	if strings.Contains(got, "| m | fxamacker |") || strings.Contains(got, "| m | floor |") {
		t.Errorf("a peer among ours:\n%s", got)
	}
	var svg strings.Builder
	if err := WriteChart(&svg, latest, counts); err != nil {
		t.Fatal(err)
	}
	chart := svg.String()
	for _, want := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"`,
		"Decode: instructions/op ÷ the floor&#39;s",
		"<title>m codec: 1.30×</title>",
		"<title>m fxamacker: 15.6×</title>",
		"Speed-up over each peer",
		"<title>Decode m zerocopy ÷ msgp: 5.00×</title>",
		"</svg>\n",
	} {
		mustContain(t, "chart", chart, want)
	}
	// Without counts or peers the chart says so rather than drawing nothing.
	bare, _ := Load(strings.NewReader("BenchmarkFrame/op=read/msg=m 10 20 ns/op\n"), "x.txt")
	svg.Reset()
	if err := WriteChart(&svg, bare, nil); err != nil || !strings.Contains(svg.String(), "No codec results") {
		t.Errorf("empty chart: %v\n%s", err, svg.String())
	}
}
