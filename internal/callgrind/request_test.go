package callgrind

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wirebench/wirebench/internal/benchcount"
	"github.com/wirebench/wirebench/internal/peertest"
)

// probeEnv makes TestProbe count a loop: the test binary runs itself under
// valgrind with it set (TestUnderCallgrind).
const probeEnv = "WIREBENCH_CALLGRIND_PROBE"

var sink int

// TestProbe counts a loop of 1000 iterations between Start and Dump, when
// run by TestUnderCallgrind.
func TestProbe(t *testing.T) {
	if os.Getenv(probeEnv) == "" {
		t.Skip("run by TestUnderCallgrind")
	}
	if !Running() {
		t.Fatal("not under valgrind")
	}
	name := []byte("wirebench probe 1000\x00")
	Start()
	for i := 0; i < 1000; i++ {
		sink += i
	}
	Dump(name)
	Stop()
}

// TestUnderCallgrind: under callgrind, the requests count the loop between
// Start and Dump, and only it, in a dump named as asked.
func TestUnderCallgrind(t *testing.T) {
	if os.Getenv(probeEnv) != "" {
		t.Skip("the probe itself")
	}
	if raceBuild {
		t.Skip("a race-detector binary does not run under valgrind (its shadow memory); the plain test runs it")
	}
	vg := peertest.Program(t, "valgrind")
	dir := t.TempDir()
	base := filepath.Join(dir, "cg")
	cmd := exec.Command(vg, "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file="+base, os.Args[0], "-test.run=^TestProbe$", "-test.count=1")
	cmd.Env = append(os.Environ(), probeEnv+"=1", "GODEBUG=cpu.all=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dumps, err := benchcount.ReadDumps(base)
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

func TestOutsideValgrind(t *testing.T) {
	if Running() {
		t.Skip("under valgrind")
	}
	args := [6]uintptr{reqRunningOnValgrind}
	if got := request(&args, 42); got != 42 {
		t.Fatalf("request outside valgrind answered %d, want the default 42", got)
	}
	Start()
	Dump([]byte("x\x00"))
	Stop()
	defer func() {
		if recover() == nil {
			t.Error("Dump of a name without a NUL byte did not panic")
		}
	}()
	Dump([]byte("x"))
}
