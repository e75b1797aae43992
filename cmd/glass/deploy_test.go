package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/testio"
)

// dockerBuild is the go build line of deploy/Dockerfile's build stage,
// run once (into a temp dir) for the tests that start the glass it makes.
var dockerBuild struct {
	once sync.Once
	bin  string
	err  error
}

// builtGlass builds glass with the Dockerfile's own build command, run at
// the repository's top: a plain go build, with no flag that points at
// noVNC.
func builtGlass(t *testing.T) string {
	t.Helper()
	dockerBuild.once.Do(func() {
		df, err := os.ReadFile(filepath.Join(peertest.RepoRoot(), "deploy", "Dockerfile"))
		if err != nil {
			dockerBuild.err = err
			return
		}
		m := regexp.MustCompile(`(?m)^RUN (.*go build .*-o (\S+) .*)$`).FindSubmatch(df)
		if m == nil {
			dockerBuild.err = fmt.Errorf("deploy/Dockerfile has no RUN ... go build -o OUT line")
			return
		}
		dir, err := os.MkdirTemp("", "glass-deploy-")
		if err != nil {
			dockerBuild.err = err
			return
		}
		dockerBuild.bin = filepath.Join(dir, "glass")
		line := strings.Replace(string(m[1]), string(m[2]), dockerBuild.bin, 1)
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = peertest.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			dockerBuild.err = fmt.Errorf("%s: %v\n%s", line, err, out)
		}
	})
	if dockerBuild.err != nil {
		t.Fatalf("building glass as deploy/Dockerfile does: %v", dockerBuild.err)
	}
	return dockerBuild.bin
}

// glassProc is glass started as its own process.
type glassProc struct {
	cmd  *exec.Cmd
	logs *testio.SyncBuffer
	addr string
	done chan error
}

// startProc runs args[0] with args[1:] and waits for its "listening"
// record (JSON logs) to learn its address.
func startProc(t *testing.T, args []string) *glassProc {
	t.Helper()
	p := &glassProc{cmd: exec.Command(args[0], args[1:]...), logs: &testio.SyncBuffer{}, done: make(chan error, 1)}
	pr, pw := io.Pipe()
	p.cmd.Stderr = io.MultiWriter(p.logs, pw)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait(); pw.Close() }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "glass: listening" {
				addr <- rec.Addr
			}
		}
	}()
	select {
	case p.addr = <-addr:
	case err := <-p.done:
		t.Fatalf("%q exited: %v\n%s", args, err, p.logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("%q did not listen within 20 s:\n%s", args, p.logs.String())
	}
	return p
}

// stop sends SIGTERM and waits for the exit, which must be clean.
func (p *glassProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Fatalf("after SIGTERM: %v\n%s", err, p.logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("glass did not stop within 15 s of SIGTERM")
	}
	if l := p.logs.String(); !strings.Contains(l, `"msg":"glass: stopping"`) || !strings.Contains(l, `"why":"terminated signal received"`) {
		t.Fatalf("no stopping record naming SIGTERM:\n%s", l)
	}
}

// servesThePage checks that glass at base serves its page with noVNC
// built in, / sends there, and /healthz answers without the token.
func servesThePage(t *testing.T, c *http.Client, base string) {
	t.Helper()
	get := func(path string) (int, string) {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "<title>Glass</title>") {
		t.Fatalf("/ (redirected to the page): %d", code)
	}
	if code, body := get("/glass/novnc/core/rfb.js"); code != 200 || !strings.Contains(body, "export default class RFB") {
		t.Fatalf("noVNC's rfb.js: %d", code)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("/healthz: %d %s", code, body)
	}
}

// unitExecStart reads deploy/glass.service's ExecStart (continued lines
// joined) and LoadCredential lines.
func unitExecStart(t *testing.T) (args []string, creds map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(peertest.RepoRoot(), "deploy", "glass.service"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	creds = map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			args = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(l, "LoadCredential="); ok {
			name, path, _ := strings.Cut(v, ":")
			creds[name] = path
		}
	}
	if len(args) == 0 {
		t.Fatal("deploy/glass.service has no ExecStart")
	}
	return args, creds
}

// TestDeploySystemdUnit starts glass from deploy/glass.service's own
// command line, as systemd would (its binary built as the Dockerfile
// builds it, its credentials in the directory %d names, the computer's
// address and the port swapped for the test's): it checks its computer,
// serves its page with noVNC built in, and stops on SIGTERM saying what
// was open.
func TestDeploySystemdUnit(t *testing.T) {
	bin := builtGlass(t)
	args, creds := unitExecStart(t)
	credDir := t.TempDir()
	for name, from := range creds {
		if !strings.HasPrefix(from, "/etc/glass/") {
			t.Fatalf("LoadCredential %s from %s: want /etc/glass/", name, from)
		}
		content := "unit-token\n"
		if strings.HasSuffix(name, ".rfbauth") {
			content = "unit-pw\n"
		}
		os.WriteFile(filepath.Join(credDir, name), []byte(content), 0o400)
	}
	vnc := fakeVNC(t, "unit-pw")
	if args[0] != "/usr/local/bin/glass" {
		t.Fatalf("ExecStart runs %s", args[0])
	}
	args[0] = bin
	for i, a := range args {
		a = strings.ReplaceAll(a, "%d", credDir)
		a = strings.Replace(a, "127.0.0.1:5901", vnc, 1)
		a = strings.Replace(a, "127.0.0.1:7900", "127.0.0.1:0", 1)
		if strings.Contains(a, "%") {
			t.Fatalf("ExecStart has a specifier the test does not know: %q", args[i])
		}
		args[i] = a
	}
	p := startProc(t, args)
	servesThePage(t, http.DefaultClient, "http://"+p.addr)
	if l := p.logs.String(); !strings.Contains(l, `"msg":"glass: start-up check passed"`) || strings.Contains(l, "unit-pw") || strings.Contains(l, "unit-token") {
		t.Fatalf("log:\n%s", l)
	}
	p.stop(t)
}

// TestDeployDockerfile: there is no container engine here, so the
// Dockerfile is tested by its own command lines: its build stage's go
// build (a static binary, CGO off) and its ENTRYPOINT with its CMD, the
// mounted /etc/glass files made by the test and the computer's and the
// listening addresses swapped for the test's (loopback). glass serves HTTPS
// with the mounted certificate, its page with noVNC built in, and stops on
// SIGTERM.
func TestDeployDockerfile(t *testing.T) {
	bin := builtGlass(t)
	df, err := os.ReadFile(filepath.Join(peertest.RepoRoot(), "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	jsonArgs := func(instr string) []string {
		m := regexp.MustCompile(`(?m)^` + instr + ` (\[.*\])$`).FindSubmatch(df)
		var out []string
		if m == nil || json.Unmarshal(m[1], &out) != nil {
			t.Fatalf("deploy/Dockerfile's %s is not an exec-form JSON array", instr)
		}
		return out
	}
	args := append(jsonArgs("ENTRYPOINT"), jsonArgs("CMD")...)
	if !regexp.MustCompile(`(?m)^COPY --from=build /out/glass ` + regexp.QuoteMeta(args[0]) + `$`).Match(df) {
		t.Fatalf("the ENTRYPOINT %s is not the binary the build stage copies", args[0])
	}
	etc := t.TempDir()
	cert, key, pool := selfSigned(t, etc)
	os.Rename(cert, filepath.Join(etc, "tls.crt"))
	os.Rename(key, filepath.Join(etc, "tls.key"))
	os.WriteFile(filepath.Join(etc, "demo.rfbauth"), []byte("docker-pw\n"), 0o600)
	os.WriteFile(filepath.Join(etc, "admin-token"), []byte("docker-token\n"), 0o600)
	vnc := fakeVNC(t, "docker-pw")
	args[0] = bin
	for i, a := range args {
		a = strings.ReplaceAll(a, "/etc/glass/", etc+"/")
		a = strings.Replace(a, "xvnc:5901", vnc, 1)
		a = strings.Replace(a, "0.0.0.0:7900", "127.0.0.1:0", 1)
		args[i] = a
	}
	p := startProc(t, args)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	servesThePage(t, c, "https://"+p.addr)
	p.stop(t)
	// The binary is static: a distroless image has no libc.
	if out, err := exec.Command("go", "version", "-m", bin).Output(); err != nil || !strings.Contains(string(out), "CGO_ENABLED=0") {
		t.Fatalf("the Dockerfile's glass is not built with CGO off:\n%s", out)
	}
}
