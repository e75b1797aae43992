package peertest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Xvnc starts TigerVNC's Xvnc for a test on a display it picks itself
// (-displayfd), listening on loopback only, with VNC authentication by
// password (its -rfbauth file written by the real vncpasswd -f), plus the
// extra arguments. It is stopped (SIGTERM, then SIGKILL) when the test
// ends. It returns the address of its RFB listener.
func Xvnc(t testing.TB, password string, extra ...string) string {
	t.Helper()
	bin, vncpasswd := Program(t, "Xvnc"), Program(t, "vncpasswd")
	if bin == "" {
		return ""
	}
	enc := exec.Command(vncpasswd, "-f")
	enc.Stdin = strings.NewReader(password + "\n")
	rfbauth, err := enc.Output()
	if err != nil {
		t.Fatalf("vncpasswd -f: %v", err)
	}
	file := filepath.Join(t.TempDir(), "rfbauth")
	if err := os.WriteFile(file, rfbauth, 0o600); err != nil {
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
	cmd := exec.Command(bin, append([]string{"-displayfd", "3", "-localhost", "yes", "-rfbport", strconv.Itoa(port),
		"-rfbauth", file, "-nolisten", "tcp", "-geometry", "320x240"}, extra...)...)
	cmd.ExtraFiles = []*os.File{displayW}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvnc: %v", err)
	}
	displayW.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // lets it remove its lock file and socket
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	display, _ := bufio.NewReader(displayR).ReadString('\n') // once it is ready, or EOF when it exits
	displayR.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return addr
		}
		if strings.TrimSpace(display) == "" || time.Now().After(deadline) {
			t.Fatalf("Xvnc did not listen on %s (display %q)", addr, strings.TrimSpace(display))
		}
	}
}
