package callgrind

import (
	"os"
	"testing"
)

func TestNativeNoOp(t *testing.T) {
	if os.Getenv("WIREBENCH_PROBE") != "" {
		Start()
		s := 0
		for i := 0; i < 1000; i++ {
			s += i
		}
		Dump([]byte("probe 1000\x00"))
		Stop()
		t.Log(Running(), s)
		return
	}
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
}
