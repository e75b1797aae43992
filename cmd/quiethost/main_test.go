package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/wirebench/wirebench/bench/quiet"
)

// recorded plays back the snapshots of a scenario under
// bench/quiet/testdata, one per Snapshot call.
type recorded struct {
	dir  string
	next int
}

func (r *recorded) Snapshot() (quiet.Snapshot, error) {
	d := filepath.Join(r.dir, fmt.Sprint(r.next))
	if _, err := os.Stat(d); err != nil {
		return quiet.Snapshot{}, fmt.Errorf("scenario %s ran out of snapshots", r.dir)
	}
	r.next++
	return quiet.Source{FS: os.DirFS(d)}.Snapshot()
}

func (r *recorded) Host() quiet.Host {
	return quiet.Source{FS: os.DirFS(filepath.Join(r.dir, "0"))}.Host()
}

func playBack(t *testing.T) {
	orig := newSource
	t.Cleanup(func() { newSource = orig })
	newSource = func(root string) source {
		return &recorded{dir: filepath.Join("..", "..", "bench", "quiet", "testdata", root)}
	}
}

func TestExitStatusOnRecordedHosts(t *testing.T) {
	playBack(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // a config line the readings must include
		stderr string
	}{
		{[]string{"-root", "quiet", "-window", "1ms"}, 0, "quiet: verified (3 quiet windows of 1ms in a row)", "=> 3/3 quiet in a row"},
		{[]string{"-root", "busy", "-window", "1ms", "-wait", "0"}, 1, "quiet-busy: 98.0% (max 10%", "failing readings of window 1: busy 98.0% > 10%"},
		{[]string{"-root", "stolen", "-window", "1ms", "-wait", "0"}, 1, "quiet-steal: 10.0% (max 2%)", "steal 10.0% > 2%"},
		{[]string{"-root", "throttled-v2", "-window", "1ms", "-wait", "0", "-need", "1"}, 1, "quiet-throttled: 12 (max 0, /sys/fs/cgroup/wirebench.slice/run.scope/cpu.stat)", "throttled 12 > 0"},
		// Relaxed thresholds make the same host quiet.
		{[]string{"-root", "throttled-v2", "-window", "1ms", "-need", "1", "-max-throttled", "20"}, 0, "quiet-throttled: 12 (max 20,", "=> 1/1 quiet"},
		{[]string{"-root", "psi-lagging", "-window", "1ms", "-wait", "0"}, 1, "quiet-psi-cpu-some-avg10: 29.19 (max 5)", "psi 29.19 > 5"},
		{[]string{"-root", "missing-optional", "-window", "1ms", "-need", "1"}, 0, "quiet-psi-cpu-some-avg10: n/a (no /proc/pressure/cpu)", "psi n/a | throttled n/a"},
		{[]string{"-root", "busy", "-window", "1ms", "-record"}, 0, "quiet: host not verified quiet (busy 98.0% > 10%)", "window 1"},
		{[]string{"-root", "garbage", "-window", "1ms"}, 2, "", "/proc/stat"},
	} {
		code, stdout, stderr := runArgs(tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%q: exit %d, want %d with %q and %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.stdout, tc.stderr, stdout, stderr)
		}
	}
}

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
		"-max-iowait percent", "(default 5)", "-max-psi percent", "-max-throttled periods", "default 0;",
		"/proc/pressure/cpu", "nr_throttled", "advice only",
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
	root := filepath.Join("..", "..", "bench", "quiet", "testdata", "quiet", "0")
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
