package peertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a test would have ended
// instead of ending it.
type recorder struct {
	testing.TB
	name          string
	fatal, skip   string
	fatals, skips int
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Fatalf(f string, a ...any) {
	r.fatals++
	r.fatal = fmt.Sprintf(f, a...)
}
func (r *recorder) Skipf(f string, a ...any) {
	r.skips++
	r.skip = fmt.Sprintf(f, a...)
}

const nowhere = "wirebench-no-such-peer"

func TestMissingPeerFails(t *testing.T) {
	t.Setenv("PEERS", "")
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv("WIREBENCH_SKIPLOG", log)
	r := &recorder{name: "TestX"}
	if p := Program(r, nowhere); p != "" {
		t.Fatalf("found %q", p)
	}
	if r.fatals != 1 || r.skips != 0 || !strings.Contains(r.fatal, nowhere) || !strings.Contains(r.fatal, "PEERS=off") {
		t.Fatalf("fatals %d skips %d: %q", r.fatals, r.skips, r.fatal)
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("a failed test was logged as skipped (%v)", err)
	}
}

func TestPeersOffSkipsAndLogs(t *testing.T) {
	t.Setenv("PEERS", "off")
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv("WIREBENCH_SKIPLOG", log)
	for _, name := range []string{"TestA", "TestB"} {
		r := &recorder{name: name}
		Program(r, nowhere)
		if r.fatals != 0 || r.skips != 1 || !strings.HasPrefix(r.skip, "PEERS=off") {
			t.Fatalf("%s: fatals %d skips %d: %q", name, r.fatals, r.skips, r.skip)
		}
		// Found or not, PEERS=off skips.
		r = &recorder{name: name + "Go"}
		Program(r, "go")
		if r.fatals != 0 || r.skips != 1 {
			t.Fatalf("%s: fatals %d skips %d: %q", name, r.fatals, r.skips, r.skip)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "TestA (" + nowhere + ", PEERS=off)\nTestAGo (go, PEERS=off)\n" +
		"TestB (" + nowhere + ", PEERS=off)\nTestBGo (go, PEERS=off)\n"
	if string(b) != want {
		t.Fatalf("skip log %q, want %q", b, want)
	}
}

func TestPresentPeerIsFound(t *testing.T) {
	t.Setenv("PEERS", "")
	t.Setenv("WIREBENCH_SKIPLOG", "")
	r := &recorder{name: "TestGo"}
	if p := Program(r, "go"); p == "" || r.fatals+r.skips != 0 {
		t.Fatalf("go: %q, fatals %d skips %d", p, r.fatals, r.skips)
	}
}

func TestRepoRootHoldsGoMod(t *testing.T) {
	if _, err := os.Stat(filepath.Join(RepoRoot(), "go.mod")); err != nil {
		t.Fatal(err)
	}
}
