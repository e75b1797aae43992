package workload

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/testio"
)

// Chromium is a real, non-headless Chromium window started by
// StartChromium inside an X display.
type Chromium struct {
	Pid  int // the browser process (it leads its own process group)
	log  testio.SyncBuffer
	done chan struct{}
	stop func()
}

// Log is what the browser wrote to its stdout and stderr.
func (c *Chromium) Log() string { return c.log.String() }

// Exited is closed when the browser process has ended.
func (c *Chromium) Exited() <-chan struct{} { return c.done }

// ChromiumArgs are the command-line arguments of the workload window: the
// flags this machine needs (no sandbox, no GPU, no QUIC, nothing fetched
// from the network, a fresh profile in profileDir), an application window
// with no browser chrome at the display's top left corner, width by height
// pixels, showing url, and timers and painting that do not slow down for
// a window the browser thinks hidden.
func ChromiumArgs(url, profileDir string, width, height int) []string {
	return []string{
		"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profileDir,
		"--test-type", // no info bar about --no-sandbox above the page
		"--ozone-platform=x11",
		"--no-default-browser-check", "--noerrdialogs", "--password-store=basic",
		"--disable-features=Translate,MediaRouter",
		"--disable-renderer-backgrounding", "--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--force-device-scale-factor=1", "--hide-scrollbars",
		"--window-position=0,0", fmt.Sprintf("--window-size=%d,%d", width, height),
		"--app=" + url,
	}
}

// StartChromium starts Chromium (found through peertest: missing, the test
// fails; PEERS=off skips it) on X display :display showing url in a window
// of width by height pixels (ChromiumArgs), with a fresh profile. It is
// stopped when the test ends, or before by Stop.
func StartChromium(t testing.TB, display, url string, width, height int) *Chromium {
	t.Helper()
	bin := peertest.Program(t, "chromium")
	profile, err := os.MkdirTemp("", "workload-chromium")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, ChromiumArgs(url, profile, width, height)...)
	env := []string{"DISPLAY=:" + display}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := &Chromium{done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &c.log, &c.log
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		t.Fatalf("start chromium: %v", err)
	}
	c.Pid = cmd.Process.Pid
	go func() { cmd.Wait(); close(c.done) }()
	var once sync.Once
	c.stop = func() {
		once.Do(func() {
			syscall.Kill(-c.Pid, syscall.SIGTERM)
			select {
			case <-c.done:
			case <-time.After(5 * time.Second):
				syscall.Kill(-c.Pid, syscall.SIGKILL)
				<-c.done
			}
			// Its children (renderer, GPU and zygote processes) share the group.
			syscall.Kill(-c.Pid, syscall.SIGKILL)
			os.RemoveAll(profile)
		})
	}
	t.Cleanup(c.stop)
	return c
}

// Window is the workload page served on loopback and shown by Chromium
// inside an X display, loaded and moving.
type Window struct {
	*Server
	URL    string
	Chrome *Chromium
}

// Open serves the workload page (Serve) and shows it in Chromium on X
// display :display, width by height pixels (StartChromium), and waits up
// to 60 s for the page to report that it has loaded; if it does not, the
// test fails, quoting the browser's log. Both end with the test.
func Open(t testing.TB, display string, width, height int) *Window {
	t.Helper()
	s, url := Serve(t)
	c := StartChromium(t, display, url+"/", width, height)
	select {
	case <-s.Ready():
	case <-c.Exited():
		t.Fatalf("chromium on display :%s exited before the workload page loaded:\n%s", display, c.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("the workload page did not load in chromium on display :%s within 60 s:\n%s", display, c.Log())
	}
	return &Window{Server: s, URL: url, Chrome: c}
}
