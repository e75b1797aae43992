package summary

import (
	"strings"
	"testing"
)

// TestRelaySection: BenchmarkRelay's paths give glass's speed over raw TCP
// and websockify from the same run, with allocations per MiB, and
// BenchmarkKeyToPixel's latencies per path; both are medians over runs.
func TestRelaySection(t *testing.T) {
	text := `goos: linux
pkg: github.com/wirebench/wirebench/bench
BenchmarkRelay/path=raw_tcp-2    100  400000 ns/op  2000.00 MB/s  0 allocs/MiB  0 B/op  0 allocs/op
BenchmarkRelay/path=glass-2      100  500000 ns/op  1700.00 MB/s  0.04 allocs/MiB  6 B/op  0 allocs/op
BenchmarkRelay/path=websockify-2 100  900000 ns/op  1000.00 MB/s  0 allocs/MiB  0 B/op  0 allocs/op
BenchmarkRelay/path=raw_tcp-2    100  400000 ns/op  2200.00 MB/s  0 allocs/MiB  0 B/op  0 allocs/op
BenchmarkRelay/path=glass-2      100  500000 ns/op  1900.00 MB/s  0.06 allocs/MiB  6 B/op  0 allocs/op
BenchmarkRelay/path=websockify-2 100  900000 ns/op  1200.00 MB/s  0 allocs/MiB  0 B/op  0 allocs/op
BenchmarkKeyToPixel/path=raw_tcp-2    40  30000000 ns/op  9.0 p50-ms  10.0 p90-ms
BenchmarkKeyToPixel/path=glass-2      40  30000000 ns/op  9.5 p50-ms  12.0 p90-ms
`
	latest, err := Load(strings.NewReader(text), "latest.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := summary(t, latest, Options{})
	for _, want := range []string{
		"### Relay: glass against raw TCP and websockify",
		"| raw_tcp | 2.10 GB/s | 0.86× | 0.00 |",
		"| glass | 1.80 GB/s | 1.00× | 0.05 |",
		"| websockify | 1.10 GB/s | 1.64× | 0.00 |",
		"### Key to pixel",
		"| raw_tcp | 9.0 ms | 10.0 ms |",
		"| glass | 9.5 ms | 12.0 ms |",
	} {
		mustContain(t, "summary", got, want)
	}
	if strings.Contains(got, "other benchmark(s) not summarized") {
		t.Errorf("KeyToPixel counted among the benchmarks not summarized:\n%s", got)
	}
}
