package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// microSh runs mk/micro.sh, copied into a fresh module with no benchmarks,
// and returns its exit code and output.
func microSh(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	return microShWith(t, nil, env, args...)
}

// microShWith is microSh with more files in the module (path: content).
func microShWith(t *testing.T, files map[string]string, env []string, args ...string) (int, string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "mk"), 0o755)
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	for _, name := range []string{"micro.sh", "lib.sh"} { // micro.sh sources lib.sh
		script, err := os.ReadFile(filepath.Join("..", "..", "mk", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "mk", name), script, 0o755)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/nobench\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "lib.go"), []byte("package lib\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "lib_test.go"), []byte("package lib\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644)
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(dir, "mk", "micro.sh")}, args...)...)
	// Settings from a calling make (make test BENCH=x exports BENCH) must
	// not leak in: start from the defaults.
	defaults := []string{"QUIET=on", "BENCH=.", "COUNT=10", "PKGS=", "PKG=./bench", "QUIETHOST_FLAGS="}
	cmd.Env = append(append(os.Environ(), defaults...), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestMicroShWithoutBenchmarks(t *testing.T) {
	code, out := microSh(t, nil, "micro")
	if code != 0 || !strings.Contains(out, "the workbench has no benchmarks yet") {
		t.Errorf("exit %d, want 0 and the no-benchmarks note:\n%s", code, out)
	}
}

func TestMicroShBaselineRefuses(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"QUIET=off"}, "never runs on a host that is not verified quiet"},
		{[]string{"BENCH=Encode"}, "a baseline covers every benchmark"},
	} {
		code, out := microSh(t, tc.env, "baseline")
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.env, code, tc.want, out)
		}
	}
	if code, out := microSh(t, []string{"PKG=./bench"}, "profile"); code != 0 || !strings.Contains(out, "no package ./bench yet") {
		t.Errorf("profile without ./bench: exit %d:\n%s", code, out)
	}
	if code, _ := microSh(t, nil, "bogus"); code != 2 {
		t.Errorf("unknown verb: exit %d, want 2", code)
	}
}

// interleaveBench has two messages and three implementations, one with a
// dash in its name.
const interleaveBench = `package bench

import "testing"

var sink int

func work(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, msg := range []string{"a", "b"} {
		for _, impl := range []struct {
			name string
			n    int
		}{{"floor", 20000}, {"codec-reuse", 40000}, {"slow", 60000}} {
			b.Run("impl="+impl.name+"/msg="+msg, func(b *testing.B) {
				b.ReportMetric(0.5, "page-faults/op")
				for i := 0; i < b.N; i++ {
					work(impl.n)
				}
			})
		}
	}
}
`

// TestMicroShInterleave: make micro-interleave runs the rows in rounds
// and gives each implementation's median time ratio to the floor's, with
// its B/op and page-faults/op; it refuses to run without BENCH.
func TestMicroShInterleave(t *testing.T) {
	files := map[string]string{"bench/bench_test.go": interleaveBench}
	if code, out := microShWith(t, files, nil, "interleave"); code != 2 || !strings.Contains(out, "name the rows to compare") {
		t.Errorf("without BENCH: exit %d, want 2 and a usage note:\n%s", code, out)
	}
	code, out := microShWith(t, files, []string{"BENCH=Decode", "ROUNDS=3", "BENCHTIME=200x"}, "interleave")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, row := range []string{"BenchmarkDecode/impl=*/msg=a", "BenchmarkDecode/impl=*/msg=b"} {
		for _, impl := range []string{"floor", "codec-reuse", "slow"} {
			re := regexp.MustCompile(regexp.QuoteMeta(row) + ` +` + regexp.QuoteMeta(impl) + ` +[0-9]+ +([0-9.]+) +[0-9.]+-[0-9.]+ +0 +0\.50*\n`)
			m := re.FindStringSubmatch(out)
			if m == nil {
				t.Errorf("no row %s %s in\n%s", row, impl, out)
				continue
			}
			ratio, _ := strconv.ParseFloat(m[1], 64)
			// Only the floor's own ratio is known: times are not
			// tested (the host is shared).
			if impl == "floor" && ratio != 1 || ratio <= 0 {
				t.Errorf("%s %s: ratio to the floor %v", row, impl, ratio)
			}
		}
	}
	if !strings.Contains(out, "3 rounds of -bench 'Decode'") {
		t.Errorf("no rounds line:\n%s", out)
	}
}
