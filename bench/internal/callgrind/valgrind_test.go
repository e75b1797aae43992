//go:build !race

// A race-detector binary does not run under valgrind (its shadow memory),
// so the test that runs one under valgrind is left out of race builds by
// this tag; make test's plain run runs it against the real valgrind.

package callgrind

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/internal/peertest"
)

// TestUnderCallgrind: under callgrind, the requests count the loop between
// Start and Dump, and only it, in a dump named as asked.
func TestUnderCallgrind(t *testing.T) {
	if os.Getenv(probeEnv) != "" {
		t.Skip("the probe itself")
	}
	vg := peertest.Program(t, "valgrind")
	dir := t.TempDir()
	base := filepath.Join(dir, "cg")
	cmd := exec.Command(vg, "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file="+base, os.Args[0], "-test.run=^TestProbe$", "-test.count=1")
	cmd.Env = append(os.Environ(), probeEnv+"=1", "GODEBUG=cpu.all=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dumps, err := count.ReadDumps(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 1 || dumps[0].Name != "probe" || dumps[0].N != 1000 {
		t.Fatalf("dumps %+v, want one named probe 1000", dumps)
	}
	// The loop is a few instructions an iteration; the requests around it
	// a few dozen. Anything of the test binary's own would be millions.
	if ir := dumps[0].Ir; ir < 2000 || ir > 20000 {
		t.Errorf("the loop of 1000 iterations counted %d instructions", ir)
	}
}
