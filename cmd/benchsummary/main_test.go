package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join("internal", "summary", "testdata")
	bs := filepath.Join(dir, "impl.txt")
	os.WriteFile(bs, []byte("benchstat -col /impl output\n"), 0o644)
	out := filepath.Join(dir, "md", "latest.md")
	err := run([]string{"-baseline", filepath.Join(td, "baseline.json"), "-attach", "benchstat codec vs fxamacker=" + bs,
		"-o", out, filepath.Join(td, "latest.txt")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	for _, want := range []string{"baseline: baseline.json (commit 2d04ba5", "-19.98% (p=0.008)", "<summary>benchstat codec vs fxamacker</summary>", "benchstat -col /impl output"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}

	// Baseline text works as well as JSON; a missing baseline is a note.
	var sb strings.Builder
	if err := run([]string{"-unverified", "-baseline", filepath.Join(dir, "none.json"), filepath.Join(td, "latest.txt")}, &sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "none.json absent; ratios to the baseline skipped") {
		t.Errorf("no note of the missing baseline:\n%s", sb.String())
	}

	for _, args := range [][]string{
		{filepath.Join(dir, "missing.txt")},
		{"-attach", "no-equals-sign", filepath.Join(td, "latest.txt")},
		{"-baseline", filepath.Join(td, "latest.txt") + "x", "a", "b"},
	} {
		if err := run(args, &sb); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"nope"}`), 0o644)
	if err := run([]string{"-baseline", bad, filepath.Join(td, "latest.txt")}, &sb); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad baseline: %v", err)
	}
}

func TestCountsAndChartFlags(t *testing.T) {
	dir := t.TempDir()
	latest := filepath.Join(dir, "latest.txt")
	counts := filepath.Join(dir, "counts.txt")
	os.WriteFile(latest, []byte("BenchmarkDecode/impl=codec/msg=m 10 100 ns/op\nBenchmarkDecode/impl=floor/msg=m 10 50 ns/op\n"), 0o644)
	os.WriteFile(counts, []byte("BenchmarkDecode/impl=codec/msg=m 400 520 instructions/op\nBenchmarkDecode/impl=floor/msg=m 400 400 instructions/op\n"), 0o644)
	out, svg := filepath.Join(dir, "md", "latest.md"), filepath.Join(dir, "md", "latest.svg")
	if err := run([]string{"-counts", counts, "-svg", svg, "-o", out, latest}, nil); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	for _, want := range []string{"| m | codec | 100 ns | 520 |", "| 130% |", "](latest.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}
	if chart, err := os.ReadFile(svg); err != nil || !strings.Contains(string(chart), "<title>m codec: 1.30×</title>") {
		t.Errorf("chart: %v\n%s", err, chart)
	}
	// A missing counts file leaves the counts out.
	var sb strings.Builder
	if err := run([]string{"-counts", filepath.Join(dir, "none.txt"), latest}, &sb); err != nil || !strings.Contains(sb.String(), "| m | codec | 100 ns | — |") {
		t.Errorf("without counts: %v\n%s", err, sb.String())
	}
}
