package peertest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/testio"
)

// XvncServer is a TigerVNC Xvnc started by StartXvnc.
type XvncServer struct {
	Addr    string // its RFB listener, 127.0.0.1:port
	Display string // its X display number, as -displayfd wrote it
	Pid     int    // its process, for /proc readings
	stop    func()
}

// Stop ends the server (SIGTERM, then SIGKILL after 5 s), waits for it
// and removes its password file. It may be called more than once.
func (x *XvncServer) Stop() { x.stop() }

// Xvnc starts TigerVNC's Xvnc as StartXvnc does and returns the address
// of its RFB listener.
func Xvnc(t testing.TB, password string, extra ...string) string {
	t.Helper()
	return StartXvnc(t, password, extra...).Addr
}

// StartXvnc starts TigerVNC's Xvnc for a test on a display it picks
// itself (-displayfd), listening on loopback only, with VNC
// authentication by password (its -rfbauth file written by the real
// vncpasswd -f), a 320x240 screen unless extra gives -geometry, plus the
// extra arguments. It is stopped when the test ends, or before by Stop.
// A test fails when Xvnc or vncpasswd is missing or Xvnc does not listen
// within 10 s; the failure quotes what Xvnc wrote.
func StartXvnc(t testing.TB, password string, extra ...string) *XvncServer {
	t.Helper()
	x := LaunchXvnc(t, password, extra...)
	t.Cleanup(x.Stop)
	return x
}

// LaunchXvnc starts Xvnc as StartXvnc does, but only Stop ends it: for a
// rig that outlives one run of a benchmark function (testing runs a
// test's cleanups after each run).
func LaunchXvnc(t testing.TB, password string, extra ...string) *XvncServer {
	t.Helper()
	bin, vncpasswd := Program(t, "Xvnc"), Program(t, "vncpasswd")
	enc := exec.Command(vncpasswd, "-f")
	enc.Stdin = strings.NewReader(password + "\n")
	rfbauth, err := enc.Output()
	if err != nil {
		t.Fatalf("vncpasswd -f: %v", err)
	}
	dir, err := os.MkdirTemp("", "peertest-xvnc")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "rfbauth") // Xvnc reads it at each authentication
	if err := os.WriteFile(file, rfbauth, 0o600); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	displayR, displayW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-displayfd", "3", "-localhost", "yes", "-rfbport", strconv.Itoa(port),
		"-rfbauth", file, "-nolisten", "tcp"}
	if !slices.Contains(extra, "-geometry") {
		args = append(args, "-geometry", "320x240")
	}
	cmd := exec.Command(bin, append(args, extra...)...)
	cmd.ExtraFiles = []*os.File{displayW}
	var log testio.SyncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start Xvnc: %v", err)
	}
	displayW.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var once sync.Once
	x := &XvncServer{Pid: cmd.Process.Pid, stop: func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM) // lets it remove its lock file and socket
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			os.RemoveAll(dir)
		})
	}}
	display, _ := bufio.NewReader(displayR).ReadString('\n') // once it is ready, or EOF when it exits
	displayR.Close()
	x.Display = strings.TrimSpace(display)
	x.Addr = "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", x.Addr, 200*time.Millisecond); err == nil {
			c.Close()
			return x
		}
		if x.Display == "" || time.Now().After(deadline) {
			x.stop()
			t.Fatalf("Xvnc did not listen on %s (display %q): %s", x.Addr, x.Display, log.String())
		}
	}
}
