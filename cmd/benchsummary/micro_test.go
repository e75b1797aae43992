package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// microSh runs mk/micro.sh, copied into a fresh module with no benchmarks,
// and returns its exit code and output.
func microSh(t *testing.T, env []string, args ...string) (int, string) {
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
