// Package doccheck holds one test: that what the repository's documents
// name in the code still exists.
package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/goindex"
	"github.com/wirebench/wirebench/internal/peertest"
)

// docs are the documents checked: docs/*.md and the repository's own
// Markdown at its top.
func docs(t *testing.T, root string) []string {
	var out []string
	for _, pat := range []string{"docs/*.md", "*.md"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 4 {
		t.Fatalf("only %d documents under %s", len(out), root)
	}
	return out
}

// Go identifiers as the documents write them, in code spans: `pkg.Name`,
// `pkg.Type.Member` (exported or not: `rfbgate.msgTable`), a test,
// benchmark, fuzz target or example by its name (`TestGateProperty`),
// and a repository path (`rfbgate/parser.go`, `internal/framebuffer`).
var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	qualified = regexp.MustCompile(`^\*?&?([a-z][a-z0-9]*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(?:\(\))?$`)
	testName  = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)[A-Z_]\w*$`)
	repoPath  = regexp.MustCompile(`^(bench|cmd|codec|deploy|docs|faultproxy|golden|internal|mk|rfbgate|reports|session)(/[\w.\-]+)*/?$`)
)

// TestDocsNameWhatExists: every Go identifier, test name and repository
// path the documents name in code spans exists: a package-level name, or
// a method or field of a type (embedded ones included), in a package of
// the repository by that name; a test, benchmark, fuzz target or example
// declared in some _test.go file; a file or directory. A document that
// names code that was renamed or removed fails here, not in a reader's
// hands.
func TestDocsNameWhatExists(t *testing.T) {
	root := peertest.RepoRoot()
	idx := goindex.New()
	if err := idx.AddTree(root); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range docs(t, root) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		inFence := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue // commands and output, not names
			}
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				span := strings.TrimSpace(m[1])
				switch {
				case qualified.MatchString(span):
					q := qualified.FindStringSubmatch(span)
					if !idx.Package(q[1]) || q[2] == "X" {
						continue // not one of ours (`time.Duration`), or the docs' placeholder (`codec.X`)
					}
					checked++
					if !idx.Has(q[1], q[2], q[3]) {
						t.Errorf("%s:%d: `%s` names %s, which does not exist in package %s", rel, i+1, span, strings.TrimPrefix(q[0], "*"), q[1])
					}
				case testName.MatchString(span):
					checked++
					if !idx.Test(span) {
						t.Errorf("%s:%d: `%s` names a test, benchmark, fuzz target or example that does not exist", rel, i+1, span)
					}
				case repoPath.MatchString(span) && !strings.ContainsAny(span, "*?"):
					checked++
					if _, err := os.Stat(filepath.Join(root, span)); err != nil && !ignored(root, span) {
						t.Errorf("%s:%d: `%s` names a path that does not exist", rel, i+1, span)
					}
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d names checked in the documents: is the pattern still right?", checked)
	}
	t.Logf("%d names checked", checked)
}

// ignored reports whether git ignores path: something a command writes
// (`reports/micro/latest.txt`), not a file of the repository.
func ignored(root, path string) bool {
	cmd := exec.Command("git", "check-ignore", "-q", path)
	cmd.Dir = root
	return cmd.Run() == nil
}
