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

// TestArchitectureNamesEveryPackage: docs/architecture.md's table of
// packages, one line each, names every package of the repository (a
// directory with a Go file, outside testdata and node_modules),
// so a package added without a line there fails here.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root := peertest.RepoRoot()
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue // the table's rows open with a code span
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			named[strings.TrimSuffix(m[1], "/")] = true
		}
	}
	pkgs := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if dir == "." || named["."+dir] {
			return nil
		}
		named["."+dir] = true // checked once
		pkgs++
		if !named[dir] {
			t.Errorf("docs/architecture.md's table of packages has no line for `%s`", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pkgs < 30 {
		t.Errorf("only %d packages found under %s", pkgs, root)
	}
	t.Logf("%d packages checked against docs/architecture.md", pkgs)
}
