package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/golden"
)

// TestBinaryPipeline builds the command and runs the pipeline a daemon
// engineer would: samples | decode | encode, and decode's exit status on
// a cut stream.
func TestBinaryPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	bin := filepath.Join(t.TempDir(), "wire")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	names := golden.Names()
	frames, err := exec.Command(bin, append([]string{"samples"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	dec := exec.Command(bin, "decode")
	dec.Stdin = bytes.NewReader(frames)
	js, err := dec.Output()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(js), "\n"); n != len(names) {
		t.Errorf("%d JSON lines for %d samples", n, len(names))
	}
	enc := exec.Command(bin, "encode")
	enc.Stdin = bytes.NewReader(js)
	back, err := enc.Output()
	if err != nil || !bytes.Equal(back, frames) {
		t.Errorf("samples | decode | encode: %v, %d bytes back of %d", err, len(back), len(frames))
	}
	cut := filepath.Join(t.TempDir(), "cut.bin")
	os.WriteFile(cut, frames[:len(frames)-3], 0o644)
	var stderr bytes.Buffer
	dec = exec.Command(bin, "decode", cut)
	dec.Stderr = &stderr
	err = dec.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), fmt.Sprintf("frame %d at stream offset", len(names)-1)) {
		t.Errorf("cut stream: %v, stderr %q", err, stderr.String())
	}
	if err := exec.Command(bin).Run(); err == nil || err.(*exec.ExitError).ExitCode() != 2 {
		t.Errorf("no verb: %v, want exit status 2", err)
	}
}
