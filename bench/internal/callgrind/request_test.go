package callgrind

import (
	"os"
	"testing"
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
