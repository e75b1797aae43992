// Package peertest finds the real peer programs (Xvnc, vncpasswd, xinput,
// Chromium, websockify, noVNC) that the relay's tests run against.
//
// A missing peer fails the test: `make test` installs the peers before it
// runs the tests, so a missing one is a broken set-up, never a reason to
// pass quietly. A user who cannot install them opts out explicitly with
// PEERS=off; the test is then skipped, and its name and reason are appended
// to the file named by WIREBENCH_SKIPLOG (set by `make test`, which prints
// every skipped test on one line at the end of the run).
package peertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Off reports whether the user opted out of the real-peer tests (PEERS=off).
func Off() bool { return os.Getenv("PEERS") == "off" }

// Program returns the path of the real peer program name, found on PATH.
// When it is missing the test fails, unless PEERS=off, when it is skipped
// and recorded.
func Program(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	missing(t, name, fmt.Sprintf("%s not found on PATH (`make test` installs it with .ci/install-rfb.sh)", name))
	return ""
}

// Websockify returns the path of websockify, the baseline relay, as Program
// does.
func Websockify(t testing.TB) string { return Program(t, "websockify") }

// NoVNC returns the directory of noVNC as `make test` installs it
// (node_modules/@novnc/novnc at the repository's top), as Program does for a
// program.
func NoVNC(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "node_modules", "@novnc", "novnc")
	if _, err := os.Stat(filepath.Join(dir, "core", "rfb.js")); err == nil {
		return dir
	}
	missing(t, "noVNC", fmt.Sprintf("noVNC not found at %s (`make test` installs it with npm)", dir))
	return ""
}

// RepoRoot is the repository's top directory (the one holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// missing fails t, or with PEERS=off skips it and records why.
func missing(t testing.TB, peer, why string) {
	t.Helper()
	if !Off() {
		t.Fatalf("real peer missing: %s; PEERS=off skips the real-peer tests instead", why)
	}
	if log := os.Getenv("WIREBENCH_SKIPLOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s (no %s)\n", t.Name(), peer)
			f.Close()
		}
	}
	t.Skipf("PEERS=off: %s", why)
}
