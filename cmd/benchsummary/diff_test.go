package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDiff: benchsummary diff writes the three reports, prints
// diff.txt, fails its gate with errFailed (exit 1) and refuses bad
// arguments with another error (exit 2).
func TestRunDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "Unit instructions/op assume=exact\n\nBenchmarkDecode/impl=codec/msg=request_tap\t2000\t%s instructions/op\t1 allocs/op\t48 B/op\n"
	base := write("base.txt", strings.Replace(head, "%s", "500.0", 1))
	same := write("same.txt", strings.Replace(head, "%s", "505.0", 1))
	grew := write("grew.txt", strings.Replace(head, "%s", "520.0", 1))
	times := write("times.txt", "BenchmarkDecode/impl=codec/msg=request_tap-2\t1000\t100 ns/op\n")
	out := filepath.Join(dir, "out")
	args := func(headCounts string, more ...string) []string {
		return append([]string{"-base-counts", base, "-head-counts", headCounts, "-base-times", times, "-head-times", times,
			"-base-rev", "main (abc1234)", "-o", out}, more...)
	}

	var sb strings.Builder
	if err := runDiff(args(same), &sb); err != nil {
		t.Fatalf("+1 %% against the 2 %% threshold: %v", err)
	}
	if !strings.HasPrefix(sb.String(), "micro-diff: OK: 1 counted rows compared") {
		t.Errorf("stdout:\n%s", sb.String())
	}
	for _, f := range []string{"diff.txt", "diff.md", "diff.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if err := runDiff(args(grew), &sb); !errors.Is(err, errFailed) {
		t.Errorf("+4 %%: %v, want errFailed", err)
	}
	if err := runDiff(args(grew, "-threshold", "5%"), &sb); err != nil {
		t.Errorf("+4 %% against THRESHOLD=5%%: %v", err)
	}
	for _, bad := range [][]string{
		args(grew, "-threshold", "two"),
		args(grew, "-threshold", "-1"),
		{"-base-counts", base},
		args(filepath.Join(dir, "missing.txt")),
		args(times), // no instructions/op rows
	} {
		if err := runDiff(bad, &sb); err == nil || errors.Is(err, errFailed) {
			t.Errorf("%q: %v, want a usage or read error", bad, err)
		}
	}
}
