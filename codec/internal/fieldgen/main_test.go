package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// root is the module root, three levels above this package.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", r, err)
	}
	return r
}

// TestGeneratedFilesFresh: every file fieldgen writes, and the two msgp
// writes from the twins, is what they would write now; a change to the
// schema or to codec.Node without `go generate ./codec/...
// ./bench/twins/` fails here.
func TestGeneratedFilesFresh(t *testing.T) {
	r := root(t)
	files, err := generate(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(r, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): run go generate ./codec/... ./bench/twins/", name, err)
		}
	}
	if testing.Short() {
		t.Skip("-short: the msgp output is not compared")
	}
	twins := filepath.Join(r, "bench", "twins")
	for _, m := range [][2]string{{"twins.go", "twins_gen.go"}, {"node_gen.go", "node_msgp_gen.go"}} {
		out := filepath.Join(t.TempDir(), m[1])
		cmd := exec.Command("go", "tool", "msgp", "-file", m[0], "-o", out, "-tests=false", "-io=false")
		cmd.Dir = twins
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go tool msgp -file %s: %v\n%s", m[0], err, b)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(twins, m[1])); err != nil || !bytes.Equal(got, want) {
			t.Errorf("bench/twins/%s is stale (%v): run go generate ./bench/twins/", m[1], err)
		}
	}
}

// TestSnake: protocol names from Go names.
func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"ID": "id", "ResPkg": "res_pkg", "ResName": "res_name", "DensityDPI": "density_dpi",
		"EmitsEvents": "emits_events", "Text": "text", "HTTPProxy": "http_proxy"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// probeEdits are the hand edits that add an optional node text, key 12
// "note": its row in the schema (docs/protocol.md, from which fieldgen
// writes KeyNodeNote), its Node field, and a golden sample that carries
// it. Each replaces one line, found once.
var probeEdits = []struct{ file, old, new string }{
	{"docs/protocol.md", "| 11 | state | text | optional | state description |\n", "| 11 | state | text | optional | state description |\n| 12 | note | text | optional | a note on the node |\n"},
	{"codec/snapshot.go", "\tState    string      // key 11\n", "\tState    string      // key 11\n\tNote     string      // key 12\n"},
	{"golden/samples.go", `State: "3 items"}`, `State: "3 items", Note: "on sale"}`},
}

// TestAddNodeText measures what a new optional node text costs: in a
// copy of the module it makes the three hand edits of probeEdits and
// nothing else by hand, then runs the generators (go generate, and the
// golden files' own rewrite: make golden, wirejson's -update) and the
// tests of every package that reads a node: codec, zerocopy, golden
// (with python3-cbor2 reading the frames), the twins, wirejson, and this
// package's check that the generated files are fresh. They pass, and the
// golden snapshot and its JSON form carry key 12. The tests that walk
// every text key by reflection (codec's and zerocopy's
// TestEveryNodeText) then cover "note" too: encoder, general decoder,
// fast paths, views and ToOwned. It takes two to four minutes on a
// loaded host (mostly compiling the copy), so it runs only when
// WIREBENCH_FIELD_PROBE=1.
//
// Run on 2 cores shared by five sessions (abridged):
//
//	$ WIREBENCH_FIELD_PROBE=1 go test -count=1 -run TestAddNodeText -v ./codec/internal/fieldgen/
//	    3 hand edits: docs/protocol.md, codec/snapshot.go, golden/samples.go
//	    go generate ./codec/ ./zerocopy/ ./bench/twins/ (17.6s)
//	    UPDATE_GOLDEN=1 go test -count=1 -run TestGolden ./golden/ (46.6s)  ok
//	    go test -count=1 -run TestGoldenJSON ./cmd/wire/internal/wirejson/ -update (7.3s)  ok
//	    go vet ./codec/... ./zerocopy/ ./bench/twins/ ./golden/ ./cmd/wire/internal/wirejson/ (20.7s)
//	    go test -count=1 ./codec/... ./zerocopy/ ./golden/ ./bench/twins/ ./cmd/wire/internal/wirejson/ (30.0s)  ok (7 packages)
//	--- PASS: TestAddNodeText (123.34s)
//
// The same three edits at a756da6, before fieldgen, with go generate
// ./bench/twins/ and the golden rewrites: codec fails 3 tests, golden 4,
// the twins panic ("codec.Node.Note (note) is not in the schema table"),
// wirejson has no JSON form for the node, and zerocopy passes, reading
// past key 12 without a word.
func TestAddNodeText(t *testing.T) {
	if os.Getenv("WIREBENCH_FIELD_PROBE") != "1" {
		t.Skip("set WIREBENCH_FIELD_PROBE=1 to add a node text in a copy of the module and test it")
	}
	if os.Getenv("WIREBENCH_FIELD_PROBE_COPY") == "1" {
		t.Skip("inside the copy")
	}
	src := root(t)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (rel == ".git" || rel == "node_modules" || rel == "reports") {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 || rel == ".git" {
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	var edited []string
	for _, e := range probeEdits {
		p := filepath.Join(dst, e.file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), e.old); n != 1 {
			t.Fatalf("%s holds %q %d times, want once", e.file, e.old, n)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), e.old, e.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		edited = append(edited, e.file)
	}
	t.Logf("%d hand edits: %s", len(edited), strings.Join(edited, ", "))
	run := func(env []string, args ...string) {
		t.Helper()
		start := time.Now()
		cmd := exec.Command("go", args...)
		cmd.Dir = dst
		cmd.Env = append(append(os.Environ(), "WIREBENCH_FIELD_PROBE_COPY=1"), env...)
		out, err := cmd.CombinedOutput()
		t.Logf("%sgo %s (%.1fs)\n%s", strings.Join(append(env, ""), " "), strings.Join(args, " "), time.Since(start).Seconds(), out)
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
	}
	run(nil, "generate", "./codec/...", "./bench/twins/")
	run([]string{"UPDATE_GOLDEN=1"}, "test", "-count=1", "-run", "TestGolden", "./golden/")
	run(nil, "test", "-count=1", "-run", "TestGoldenJSON", "./cmd/wire/internal/wirejson/", "-update")
	run(nil, "vet", "./codec/...", "./bench/twins/", "./golden/", "./cmd/wire/internal/wirejson/")
	run(nil, "test", "-count=1", "./codec/...", "./golden/", "./bench/twins/", "./cmd/wire/internal/wirejson/")
	frame, err := os.ReadFile(filepath.Join(dst, "golden", "response_snapshot.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(frame, []byte("\x0c\x67on sale")) {
		t.Errorf("golden/response_snapshot.bin does not carry key 12, \"on sale\"")
	}
	if jsonl, err := os.ReadFile(filepath.Join(dst, "cmd", "wire", "internal", "wirejson", "testdata", "samples.jsonl")); err != nil || !bytes.Contains(jsonl, []byte(`"note":"on sale"`)) {
		t.Errorf("wirejson's samples.jsonl does not carry \"note\":\"on sale\" (%v)", err)
	}
	for _, f := range []string{"codec/schema/node_gen.go", "codec/node_gen.go", "codec/zerocopy/node_gen.go", "bench/twins/node_gen.go", "bench/twins/node_msgp_gen.go"} {
		b, err := os.ReadFile(filepath.Join(dst, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("Note")) {
			t.Errorf("%s does not mention Note", f)
		}
	}
}
