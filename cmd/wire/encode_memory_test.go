//go:build !race

// The race detector multiplies memory use, which this test measures.

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// encodeMemoryChild names the JSON file the test binary, run again as a
// child, encodes instead of running its tests.
const encodeMemoryChild = "WIRE_ENCODE_MEMORY_CHILD"

// TestEncodeBoundedMemory encodes a 20 MB JSON line, a hello with ten
// million versions whose frame fits the 16 MiB limit, in a child process
// and checks the child's peak memory (its maximum resident set): under
// 200 MB, a small multiple of the line, where a value of a tree per JSON
// element took 1.49 GB.
func TestEncodeBoundedMemory(t *testing.T) {
	if name := os.Getenv(encodeMemoryChild); name != "" {
		encodeMemoryInChild(name)
		return
	}
	const versions = 10_000_000
	var b strings.Builder
	b.WriteString(`{"kind":"hello","versions":[`)
	b.WriteString(strings.Repeat("1,", versions-1))
	b.WriteString(`1],"max_frame":16777216,"capabilities":0,"agent":"a"}` + "\n")
	if b.Len() < 20_000_000 {
		t.Fatalf("the line has %d bytes", b.Len())
	}
	name := filepath.Join(t.TempDir(), "hello.jsonl")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEncodeBoundedMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), encodeMemoryChild+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("payload %d", versions+20)) {
		t.Fatalf("child did not encode the hello: %s", out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kilobytes on Linux
	t.Logf("peak resident memory encoding a %d-byte line: %d MB", b.Len(), peak>>20)
	if peak >= 200<<20 {
		t.Fatalf("encoding a %d-byte line peaked at %d MB, want under 200 MB", b.Len(), peak>>20)
	}
}

// encodeMemoryInChild runs wire encode on name and reports the payload
// length of the one frame it wrote.
func encodeMemoryInChild(name string) {
	var out, errb bytes.Buffer
	if code := run([]string{"encode", name}, nil, &out, &errb); code != 0 || out.Len() < 4 {
		fmt.Printf("wire encode: exit %d, %d bytes out, stderr %q\n", code, out.Len(), errb.String())
		os.Exit(1)
	}
	fmt.Printf("payload %d\n", binary.BigEndian.Uint32(out.Bytes()))
	_, _ = io.Copy(io.Discard, &out)
}
