package summary

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/bench/baseline"
)

var update = flag.Bool("update", false, "rewrite testdata/summary.golden.md")

func load(t *testing.T, path string) *Set {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Load(f, "latest.txt")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadBaseline reads testdata/baseline.json through its text form, as
// cmd/benchsummary does; the conversion itself is tested in bench/baseline.
func loadBaseline(t *testing.T) *Set {
	t.Helper()
	f, err := os.Open("testdata/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := baseline.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := baseline.WriteText(&text, doc); err != nil {
		t.Fatal(err)
	}
	s, err := Load(&text, "baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func summary(t *testing.T, latest *Set, opt Options) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, latest, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSummaryOfRecordedRun(t *testing.T) {
	latest := load(t, "testdata/latest.txt")
	got := summary(t, latest, Options{Baseline: loadBaseline(t), Attachments: []Attachment{{"benchstat baseline vs latest", "goos: linux\n│ old │ new │\n"}}})

	for _, want := range []string{
		// The run's own config says it was not verified: stamped.
		"> **host not verified quiet**",
		"latest.txt (commit 65946f5, go-version go1.26.8, cpu Intel(R) Xeon(R) Processor @ 2.60GHz), 5 runs per benchmark; baseline: baseline.json (commit 2d04ba5,",
		// Medians of the five runs: codec 94.0 ns, fxamacker 1.02 µs.
		"| request_tap | codec | 94.0 ns ± 3% range | — | — | 10.8× | — | — | ~ (p=1.000) | 0 | 0 | — |",
		"| msg | ours | time/op | instructions/op | est-cycles/op | × fxamacker | × msgp | % of floor | vs baseline | allocs/op | B/op | page-faults/op |",
		"| request_tap | 1.02 µs | — | — | 2 | — | — | — | — | — | — | — | — |",
		// Decode codec was made 20 % faster than the baseline in the sample.
		"| request_tap | codec | 96.5 ns ± 2% range | — | — | 15.6× | — | — | -19.98% (p=0.008) | 2 | 48 | — |",
		"| request_tap | zerocopy | 70.7 ns ± 3% range | — | — | 21.2× | — | — | ~ (p=1.000) | 0 | 0 | — |",
		"| response_snapshot_500 | codec | 40.3 µs ± 1% range | — | — | 19.7× | — | — | -18.97% (p=0.008) | 4 | 20000 | — |",
		"| Frame/op=read/size=262144 | 5.31 µs ± 2% range | — | — | ~ (p=0.056) | 49.3 GB/s | 0 | 0 | — |",
		// Four of five Session runs; the failed one is skipped and reported.
		"| Session/op=request_roundtrip | 113 µs ± 3% range | — | — | ~ (p=0.730) | — | 12 | 4096 | — |",
		"1 unreadable benchmark line(s) skipped, first: `latest.txt:72: parsing iteration count",
		"<details><summary>benchstat baseline vs latest</summary>\n\n```text\ngoos: linux\n│ old │ new │\n```\n</details>",
	} {
		mustContain(t, "summary", got, want)
	}
	if strings.Contains(got, "Gate") && strings.Contains(got, "| Gate/") {
		t.Errorf("Gate rows without Gate results")
	}
	if *update {
		os.WriteFile("testdata/summary.golden.md", []byte(got), 0o644)
	}
	golden, err := os.ReadFile("testdata/summary.golden.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(golden) {
		t.Errorf("summary differs from testdata/summary.golden.md (go test -update to accept):\n%s", got)
	}
}

func TestStampAndBaselineNote(t *testing.T) {
	verified := "quiet: verified (3 quiet windows of 2s in a row)\ncommit: abc\ncpu: This CPU\nBenchmarkEncode/impl=codec/msg=m-2 10 100 ns/op 0 allocs/op\nBenchmarkEncode/impl=fxamacker/msg=m-2 10 300 ns/op 3 allocs/op\n"
	s, err := Load(strings.NewReader(verified), "latest.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := summary(t, s, Options{BaselineNote: "reports/micro/baseline.json absent"})
	if strings.Contains(got, "not verified") {
		t.Errorf("verified run stamped:\n%s", got)
	}
	if !strings.Contains(got, "Baseline: reports/micro/baseline.json absent; ratios to the baseline skipped.") {
		t.Errorf("no baseline note:\n%s", got)
	}
	if !strings.Contains(got, "| m | codec | 100 ns | — | — | 3.00× | — | — | — | 0 | — | — |") {
		t.Errorf("row:\n%s", got)
	}
	other, _ := Load(strings.NewReader("cpu: Other CPU\nBenchmarkEncode/impl=codec/msg=m-2 10 200 ns/op\n"), "baseline.json")
	if got := summary(t, s, Options{Baseline: other}); !strings.Contains(got, "**The baseline is from another CPU** (Other CPU)") ||
		!strings.Contains(got, "| m | codec | 100 ns | — | — | 3.00× | — | — | ~ (p=1.000) |") {
		t.Errorf("baseline from another CPU:\n%s", got)
	}
	if got := summary(t, s, Options{Unverified: true}); !strings.Contains(got, "**host not verified quiet**") {
		t.Errorf("-unverified not stamped:\n%s", got)
	}
	// No quiethost readings at all (a hand-made file): not verified either.
	s, _ = Load(strings.NewReader("BenchmarkOther 1 5 ns/op\n"), "x.txt")
	got = summary(t, s, Options{})
	for _, want := range []string{"**host not verified quiet**", "No Encode, Decode, Frame, Gate, Relay or Session results", "1 other benchmark(s) not summarized"} {
		mustContain(t, "summary", got, want)
	}
}

// mustContain fails t unless got, the named output, holds want.
func mustContain(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s lacks\n%s\n--- %s:\n%s", what, want, what, got)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatSeconds(95.1e-9), "95.1 ns"},
		{FormatSeconds(0.3342e-9), "0.33 ns"},
		{FormatSeconds(1024e-9), "1.02 µs"},
		{FormatSeconds(455e-6), "455 µs"},
		{FormatSeconds(12e-3), "12.0 ms"},
		{FormatSeconds(2.5), "2.50 s"},
		{FormatBytesPerSecond(4.28e9), "4.28 GB/s"},
		{FormatBytesPerSecond(368.04e6), "368 MB/s"},
		{FormatRatio(10.75), "10.8"},
		{FormatRatio(0.5), "0.50"},
		{FormatCount(455), "455"},
		{FormatCount(0.5), "0.5"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// FuzzSummary checks that no benchmark text makes Load or Write panic, as
// latest.txt is whatever the benchmarks printed.
func FuzzSummary(f *testing.F) {
	data, _ := os.ReadFile("testdata/latest.txt")
	f.Add(data, []byte("BenchmarkEncode/impl=codec/msg=a-2 1 5 ns/op\n"))
	f.Add([]byte("BenchmarkDecode//impl=/msg=-2 1 0 ns/op 0 allocs/op\nBenchmarkFrame/ 1 1 B/s\n"), []byte(""))
	f.Fuzz(func(t *testing.T, latest, base []byte) {
		l, err := Load(bytes.NewReader(latest), "latest.txt")
		if err != nil {
			return
		}
		b, err := Load(bytes.NewReader(base), "baseline.txt")
		if err != nil {
			return
		}
		var out strings.Builder
		if err := Write(&out, l, Options{Baseline: b}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), "## make micro\n") {
			t.Fatalf("summary starts %q", out.String()[:min(40, out.Len())])
		}
	})
}
