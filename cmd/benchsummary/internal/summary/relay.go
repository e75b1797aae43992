package summary

import (
	"fmt"
	"strings"
)

// Relay paths: the browser's bytes straight from the server (raw_tcp),
// through our relay (glass) and through the baseline relay (websockify),
// measured in the same run.
var relayPaths = []string{"raw_tcp", "glass", "websockify"}

// keyToPixel is the latency benchmark summarized with the relay (writeRelay)
// rather than among Families.
const keyToPixel = "KeyToPixel"

// Custom units the relay benchmarks report.
const (
	unitAllocsPerMiB = "allocs/MiB"
	unitP50ms        = "p50-ms"
	unitP90ms        = "p90-ms"
)

// writeRelay writes the relay's section: BenchmarkRelay's throughput per
// path, glass's speed over raw TCP and websockify from the same run, and
// allocations per MiB; then BenchmarkKeyToPixel's latencies per path. It
// reports whether there was anything to write.
func writeRelay(b *strings.Builder, latest *Set) bool {
	wrote := false
	relay := latest.byPath("Relay")
	if g := relay["glass"]; g != nil {
		b.WriteString("### Relay: glass against raw TCP and websockify\n\n")
		writeRow(b, []string{"path", "speed", "glass ÷ path", "allocs/MiB"})
		writeRow(b, []string{"---", "---", "---", "---"})
		for _, p := range relayPaths {
			x := relay[p]
			if x == nil {
				continue
			}
			writeRow(b, []string{p, speedCell(x), speedRatio(g, x), medianCell(x, unitAllocsPerMiB, func(v float64) string { return fmt.Sprintf("%.2f", v) })})
		}
		b.WriteString("\n*glass ÷ path*: glass's median speed over the path's, same run (issue 24 asks for at least 0.8 over raw_tcp and 1.5 over websockify). *allocs/MiB*: the whole process's allocations per MiB relayed.\n\n")
		wrote = true
	}
	k2p := latest.byPath(keyToPixel)
	if len(k2p) > 0 {
		b.WriteString("### Key to pixel\n\n")
		writeRow(b, []string{"path", "median", "90th percentile"})
		writeRow(b, []string{"---", "---", "---"})
		ms := func(v float64) string { return fmt.Sprintf("%.1f ms", v) }
		for _, p := range relayPaths {
			if x := k2p[p]; x != nil {
				writeRow(b, []string{p, medianCell(x, unitP50ms, ms), medianCell(x, unitP90ms, ms)})
			}
		}
		b.WriteString("\nFrom a key event sent to the first screen update after it (Xvnc running xkbwatch, Shift); medians over runs.\n\n")
		wrote = true
	}
	return wrote
}

// byPath returns base's results by their path= parameter.
func (s *Set) byPath(base string) map[string]*samples {
	out := map[string]*samples{}
	for _, name := range s.order {
		if x := s.samples[name]; x.base == base && x.get("path") != "" {
			out[x.get("path")] = x
		}
	}
	return out
}

// speedRatio is x's median speed over ref's, or "—".
func speedRatio(x, ref *samples) string {
	a, ok1 := median(x.values[unitSpeed])
	r, ok2 := median(ref.values[unitSpeed])
	if !ok1 || !ok2 || r == 0 {
		return "—"
	}
	return FormatRatio(a/r) + "×"
}
