package bench

// The processes BenchmarkRelayScale runs (glass, built once, and a real
// Xvnc), their start and stop, and their CPU time and resident set read
// from /proc.

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/testio"
)

var (
	glassOnce sync.Once
	glassBin  string
	glassErr  error
)

// buildGlass builds ./cmd/glass once per run, into a directory removed at
// the end; GLASS_BIN names a glass binary to run instead (another
// version's, to compare).
func buildGlass(b testing.TB) string {
	if bin := os.Getenv("GLASS_BIN"); bin != "" {
		return bin
	}
	glassOnce.Do(func() {
		dir, err := os.MkdirTemp("", "relayscale-glass")
		if err != nil {
			glassErr = err
			return
		}
		glassBin = filepath.Join(dir, "glass")
		cmd := exec.Command("go", "build", "-o", glassBin, "./cmd/glass")
		cmd.Dir = peertest.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			glassErr = fmt.Errorf("go build ./cmd/glass: %v\n%s", err, out)
		}
	})
	if glassErr != nil {
		b.Fatal(glassErr)
	}
	return glassBin
}

// Geometry of the Xvnc launchScaleXvnc starts (BenchmarkKeyToPixel's).
const (
	scaleWidth  = 640
	scaleHeight = 480
)

// launchScaleXvnc starts Xvnc (peertest.LaunchXvnc: loopback only, VNC
// authentication) with the scale benchmarks' screen; Stop ends it.
func launchScaleXvnc(b *testing.B, pw string) *peertest.XvncServer {
	return peertest.LaunchXvnc(b, pw, "-geometry", fmt.Sprintf("%dx%d", scaleWidth, scaleHeight), "-depth", "24")
}

// glassProfiles counts the glass processes profiled (GLASS_CPUPROFILE).
var glassProfiles int

// startGlass runs the glass binary for one computer, "scale", with the
// extra flags.
func startGlass(b testing.TB, bin, dir, xaddr, pw string, extra ...string) (addr string, pid int, stop func()) {
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	addr = "127.0.0.1:" + strconv.Itoa(scaleFreePort(b))
	cmd := exec.Command(bin, "-listen", addr, "-computer", "scale="+xaddr, "-password-file", "scale="+pwFile, "-dial-wait", "120s")
	cmd.Args = append(cmd.Args, extra...)
	if prefix := os.Getenv("GLASS_CPUPROFILE"); prefix != "" { // a profile of each glass started
		glassProfiles++
		cmd.Args = append(cmd.Args, "-cpuprofile", fmt.Sprintf("%s-%d.pprof", prefix, glassProfiles))
	}
	var logb testio.SyncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &logb
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop = stopper(cmd, 10*time.Second)
	if !scaleWaitListen(addr) {
		stop()
		b.Fatalf("glass did not listen on %s: %s", addr, logb.String())
	}
	return addr, cmd.Process.Pid, stop
}

// stopper returns a function that interrupts cmd and waits for it, killing
// it after grace.
func stopper(cmd *exec.Cmd, grace time.Duration) func() {
	return func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(grace):
			cmd.Process.Kill()
			<-done
		}
	}
}

func scaleFreePort(b testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func scaleWaitListen(addr string) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// procCPUns is a process's CPU time in seconds at nanosecond resolution:
// the sum over its threads of /proc/PID/task/TID/schedstat's time on CPU
// (procCPU's clock ticks are 10 ms, too coarse for a small window).
// Threads that ended are not counted; Go's runtime keeps its threads.
func procCPUns(b testing.TB, pid int) float64 {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var ns int64
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(data))
		if len(f) < 1 {
			b.Fatalf("%s/%s/schedstat: %q", dir, t.Name(), data)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatalf("%s/%s/schedstat: %q", dir, t.Name(), data)
		}
		ns += v
	}
	return float64(ns) / 1e9
}

// procRSS is a process's resident set in bytes (/proc/PID/status VmRSS).
func procRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS %q", rest)
			}
			return kb << 10
		}
	}
	b.Fatalf("/proc/%d/status: no VmRSS", pid)
	return 0
}
