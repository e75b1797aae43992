// Package peertest finds the real peer programs (Xvnc, vncpasswd, xinput,
// Chromium, websockify, noVNC) that the relay's tests run against, and
// the Python with Debian's python3-cbor2 that checks the golden frames.
//
// A missing peer fails the test: `make test` installs the peers before it
// runs the tests, so a missing one is a broken set-up, never a reason to
// pass quietly. A user who cannot install them opts out explicitly with
// PEERS=off: every real-peer test is then skipped, whether its peer is here
// or not, and its name and reason are appended to the file named by
// WIREBENCH_SKIPLOG (set by `make test`, which prints every skipped test on
// one line at the end of the run).
package peertest

import (
	"fmt"
	"github.com/chromedp/chromedp"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Off reports whether the user opted out of the real-peer tests (PEERS=off).
func Off() bool { return os.Getenv("PEERS") == "off" }

// Program returns the path of the real peer program name, found on PATH.
// When it is missing the test fails. With PEERS=off the test is skipped and
// recorded instead, found or not.
func Program(t testing.TB, name string) string {
	t.Helper()
	if Off() {
		skip(t, name, "PEERS=off")
		return ""
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("real peer missing: %s not found on PATH (`make test` installs it with .ci/install-rfb.sh); PEERS=off skips the real-peer tests instead", name)
		return ""
	}
	return p
}

// Websockify returns the path of websockify, the baseline relay, as Program
// does.
func Websockify(t testing.TB) string { return Program(t, "websockify") }

// NoVNC returns the directory of noVNC as `make test` installs it
// (node_modules/@novnc/novnc at the repository's top), as Program does for a
// program.
func NoVNC(t testing.TB) string {
	t.Helper()
	if Off() {
		skip(t, "noVNC", "PEERS=off")
		return ""
	}
	dir := filepath.Join(RepoRoot(), "node_modules", "@novnc", "novnc")
	if _, err := os.Stat(filepath.Join(dir, "core", "rfb.js")); err != nil {
		t.Fatalf("real peer missing: noVNC not found at %s (`make test` installs it with npm); PEERS=off skips the real-peer tests instead", dir)
		return ""
	}
	return dir
}

// debianPython is where Debian's python3 is, the one its python3-*
// packages install modules for.
const debianPython = "/usr/bin/python3"

// Python returns a Python 3 interpreter that imports module: Debian's
// /usr/bin/python3 first (apt's python3-<module> packages install there,
// and a python3 earlier on the PATH, pyenv's say, does not see them),
// then python3 on the PATH. When none does, the test fails, naming the
// script that installs it; with PEERS=off it is skipped and recorded.
func Python(t testing.TB, module, script string) string {
	t.Helper()
	if Off() {
		skip(t, "python3 with "+module, "PEERS=off")
		return ""
	}
	var tried []string
	candidates := []string{debianPython}
	if p, err := exec.LookPath("python3"); err == nil && p != debianPython {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		out, err := exec.Command(p, "-c", "import "+module).CombinedOutput()
		if err == nil {
			return p
		}
		tried = append(tried, fmt.Sprintf("%s (%v: %.200s)", p, err, out))
	}
	t.Fatalf("real peer missing: no python3 imports %s; tried %v (`make test` installs it with %s); PEERS=off skips the real-peer tests instead", module, tried, script)
	return ""
}

// RepoRoot is the repository's top directory (the one holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// skip skips t for the reason given and records it in WIREBENCH_SKIPLOG.
func skip(t testing.TB, peer, why string) {
	t.Helper()
	if log := os.Getenv("WIREBENCH_SKIPLOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s (%s, %s)\n", t.Name(), peer, why)
			f.Close()
		}
	}
	t.Skipf("%s: skipping the test against %s", why, peer)
}

// HeadlessChromium is the allocator options of a headless Chromium at bin
// with the flags this machine needs (no sandbox as root, no GPU, none of
// Chromium's own network traffic, which the closed network refuses) and a
// fresh profile in userDataDir; extra options come after them.
func HeadlessChromium(bin, userDataDir string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(userDataDir),
	)
	return append(opts, extra...)
}
