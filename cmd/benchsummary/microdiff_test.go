package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/peertest"
)

// The end-to-end tests of make micro-diff: mk/diff.sh of this tree run on
// a scratch clone of this repository, on real test binaries counted under
// valgrind and timed, narrowed to three decodes, two short rounds.

// diffRows are the benchmarks the tests compare: hello_full's decode goes
// through decoder.hello, which the slowdown slows; request_tap's does not;
// request_snapshot is the row the test's base lacks.
const diffBench = `^BenchmarkDecode$/^impl=codec$/^msg=(request_tap|request_snapshot|hello_full)$`

// scratch is a clone of this repository at its HEAD commit.
type scratch struct {
	t     *testing.T
	dir   string
	cache string // MICRO_DIFF_CACHE, shared by the clone's diffs
}

func newScratch(t *testing.T) *scratch {
	t.Helper()
	peertest.Program(t, "valgrind") // the count tier's peer: PEERS=off skips
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed by make micro-diff and its tests: %v", tool, err)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("micro-diff's tests clone this repository: git rev-parse HEAD in %s: %v", root, err)
	}
	s := &scratch{t: t, dir: filepath.Join(t.TempDir(), "repo"), cache: t.TempDir()}
	s.git(root, "clone", "--quiet", root, s.dir)
	s.git(s.dir, "checkout", "--quiet", "--detach", strings.TrimSpace(string(head)))
	return s
}

// git runs git in dir and returns its trimmed output.
func (s *scratch) git(dir string, args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=micro-diff test", "-c", "user.email=test@localhost"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit applies edit to the file at path (relative to the clone) on top
// of the revision from, commits it, and returns the commit.
func (s *scratch) commit(from, path, msg string, edit func(string) string) string {
	s.t.Helper()
	s.git(s.dir, "checkout", "--quiet", "--detach", from)
	full := filepath.Join(s.dir, path)
	data, err := os.ReadFile(full)
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(edit(string(data))), 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.git(s.dir, "add", path)
	s.git(s.dir, "commit", "--quiet", "-m", msg)
	return s.git(s.dir, "rev-parse", "HEAD")
}

// diff runs mk/diff.sh on the clone and returns its exit code, its output
// and diff.txt.
func (s *scratch) diff(base, head string) (int, string, string) {
	s.t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "..", "mk", "diff.sh"))
	cmd.Env = append(os.Environ(), "BASE="+base, "HEAD="+head, "BENCH="+diffBench, "COUNT=2", "BENCHTIME=10ms",
		"QUIET=off", "THRESHOLD=2", "QUIETHOST_FLAGS=", "MICRO_DIFF_REPO="+s.dir, "MICRO_DIFF_CACHE="+s.cache)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	txt, _ := os.ReadFile(filepath.Join(s.dir, "reports", "micro", "diff.txt"))
	os.Remove(filepath.Join(s.dir, "reports", "micro", "diff.txt"))
	s.t.Logf("BASE=%s HEAD=%s: exit %d\n%s", base, head, code, out)
	return code, string(out), string(txt)
}

// rowOf returns the line of diff.txt's table for the benchmark name.
func rowOf(t *testing.T, txt, name string) string {
	t.Helper()
	for _, line := range strings.Split(txt, "\n") {
		if strings.HasPrefix(line, name+" ") {
			return line
		}
	}
	t.Fatalf("diff.txt has no row %s:\n%s", name, txt)
	return ""
}

// slowdown is the deliberate slowdown the test commits into decoder.hello:
// a loop of 3000 multiplications into a package variable.
const slowdown = `package codec

// slowSink keeps micro-diff's test slowdown from being optimized away.
var slowSink uint64

func slowdown() {
	for i := uint64(0); i < 3000; i++ {
		slowSink += i * i
	}
}
`

var helloDecode = regexp.MustCompile(`(?m)^func \(d \*decoder\) hello\([^)]*\) error \{\n`)

func TestMicroDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, counts and times real binaries of three revisions (2-4 minutes): run without -short (make test does) or make test-micro-diff")
	}
	s := newScratch(t)
	orig := s.git(s.dir, "rev-parse", "HEAD")

	t.Run("HeadAgainstHead", func(t *testing.T) {
		code, out, txt := s.diff("HEAD", "")
		if code != 0 || !strings.HasPrefix(txt, "micro-diff: OK: 3 counted rows compared") {
			t.Fatalf("exit %d, want 0 and an OK verdict over 3 rows:\n%s\n%s", code, out, txt)
		}
		for _, msg := range []string{"request_tap", "request_snapshot", "hello_full"} {
			row := rowOf(t, txt, "Decode/impl=codec/msg="+msg)
			if !strings.Contains(row, " +0.00% ") || !strings.HasSuffix(row, "same") {
				t.Errorf("HEAD against HEAD: %s, want a +0.00%% instruction delta, status same", row)
			}
		}
	})

	t.Run("SlowdownAndNewRow", func(t *testing.T) {
		// The base lacks request_snapshot's benchmark; the head slows
		// decoder.hello, which only hello_full's decode goes through.
		base := s.commit(orig, "bench/codec_test.go", "test: no request_snapshot benchmark", func(src string) string {
			if !strings.Contains(src, `"request_snapshot", `) {
				t.Fatalf(`bench/codec_test.go no longer lists "request_snapshot", in benchMsgNames: update the test`)
			}
			return strings.Replace(src, `"request_snapshot", `, "", 1)
		})
		s.commit(orig, "codec/zz_slowdown.go", "test: the slowdown", func(string) string { return slowdown })
		head := s.commit("HEAD", "codec/hello.go", "test: decoder.hello calls the slowdown", func(src string) string {
			loc := helloDecode.FindStringIndex(src)
			if loc == nil {
				t.Fatalf("codec/hello.go has no func (d *decoder) hello(...) error any more: update the test's injection point")
			}
			return src[:loc[1]] + "\tslowdown()\n" + src[loc[1]:]
		})
		code, out, txt := s.diff(base, head)
		if code != 1 || !strings.HasPrefix(txt, "micro-diff: FAIL: 1 row(s) of ours grew") {
			t.Fatalf("exit %d, want 1 and a FAIL verdict naming one row:\n%s\n%s", code, out, txt)
		}
		if row := rowOf(t, txt, "Decode/impl=codec/msg=hello_full"); !strings.Contains(row, "FAIL: instructions +") {
			t.Errorf("the slowed row does not fail: %s", row)
		}
		if row := rowOf(t, txt, "Decode/impl=codec/msg=request_tap"); !strings.HasSuffix(row, "same") {
			t.Errorf("a row the slowdown does not touch: %s, want same", row)
		}
		if row := rowOf(t, txt, "Decode/impl=codec/msg=request_snapshot"); !strings.HasSuffix(row, "new") {
			t.Errorf("the row the base lacks: %s, want new", row)
		}
		if n := strings.Count(txt, "FAIL"); n != 2 { // the verdict and the row
			t.Errorf("%d FAILs in diff.txt, want the verdict's and hello_full's:\n%s", n, txt)
		}
	})

	t.Run("BadBases", func(t *testing.T) {
		broken := s.commit(orig, "bench/doc.go", "test: the bench package does not compile", func(src string) string {
			return src + "\nthis is not Go\n"
		})
		code, out, _ := s.diff(broken, "")
		if code != 2 || !strings.Contains(out, "BASE="+broken[:7]+" does not build") {
			t.Errorf("a base that does not build: exit %d, want 2 and an error naming it:\n%s", code, out)
		}
		roots := strings.Fields(s.git(s.dir, "rev-list", "--max-parents=0", orig))
		code, out, _ = s.diff(roots[0], "")
		if code != 2 || !strings.Contains(out, "BASE="+roots[0][:7]+" has another bench layout") {
			t.Errorf("a base from before the workbench: exit %d, want 2 and an error naming it:\n%s", code, out)
		}
		code, out, _ = s.diff("no-such-revision", "")
		if code != 2 || !strings.Contains(out, "BASE=no-such-revision: no such revision") {
			t.Errorf("an unknown base: exit %d, want 2 and an error naming it:\n%s", code, out)
		}
	})
}
