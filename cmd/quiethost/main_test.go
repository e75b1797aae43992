package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func runArgs(args ...string) (int, string, string) {
	var out, errb strings.Builder
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpDocumentsThresholds(t *testing.T) {
	code, _, help := runArgs("-help")
	if code != 0 {
		t.Fatalf("-help exit %d", code)
	}
	for _, want := range []string{
		"-max-busy percent", "(default 10)", "-max-steal percent", "(default 2)",
		"-max-iowait percent", "(default 5)", "-max-psi percent", "-max-throttled periods",
		"-wait duration", "(default 10m0s)", "-window duration", "(default 2s)", "-json", "-record",
		"Exit status: 0 quiet, 1 not quiet within -wait, 2 error",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-help lacks %q:\n%s", want, help)
		}
	}
}

func TestErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"-no-such-flag"},
		{"stray"},
		{"-window", "0s"},
		{"-need", "0"},
		{"-root", filepath.Join(t.TempDir(), "missing"), "-window", "1ms"},
	} {
		if code, _, stderr := runArgs(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// A root whose counters never move: an error, not a verdict.
	root := filepath.Join("..", "..", "internal", "quiet", "testdata", "quiet", "0")
	code, _, stderr := runArgs("-root", root, "-window", "1ms", "-record")
	if code != 2 || !strings.Contains(stderr, "did not advance") {
		t.Errorf("frozen counters: exit %d, %s", code, stderr)
	}
}

// TestRecordLiveHost measures one short window of this machine. It passes
// whether or not the host is quiet: -record never decides.
func TestRecordLiveHost(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat")
	}
	code, stdout, stderr := runArgs("-record", "-window", "100ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "quiethost: window 1 ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("want one progress line, got %q", stderr)
	}
	r := benchfmt.NewReader(strings.NewReader(stdout+"BenchmarkX 1 1 ns/op\n"), "stdout")
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	res := r.Result().(*benchfmt.Result)
	if got := res.GetConfig("quiet"); !strings.HasPrefix(got, "host not verified quiet") {
		t.Errorf("quiet: %q", got)
	}
	if res.GetConfig("quiet-busy") == "" || res.GetConfig("quiet-kernel") == "" {
		t.Errorf("readings missing from config:\n%s", stdout)
	}

	code, stdout, _ = runArgs("-record", "-window", "100ms", "-json", "-q")
	var rep struct {
		Verdict  string
		Windows  int
		Readings struct{ CPUs int }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	if rep.Verdict != "not verified" || rep.Windows != 1 || rep.Readings.CPUs < 1 {
		t.Errorf("report %+v", rep)
	}
}
