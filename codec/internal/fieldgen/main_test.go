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
// schema or to codec.Node without `make generate` fails here.
func TestGeneratedFilesFresh(t *testing.T) {
	r := root(t)
	files, err := generate(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(r, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): run make generate", name, err)
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
			t.Errorf("bench/twins/%s is stale (%v): run make generate", m[1], err)
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
// nothing else by hand, runs `make generate` (every generator and fixture
// rewrite: go generate, the golden frames, wirejson's samples, cmd/wire's
// captures), then vets and tests every package of the module, cmd/wire
// included: the real peers of the relay skip (PEERS=off: they read no
// node), and golden's test with python3-cbor2 reading the frames runs
// again with its peer. Everything passes; the golden snapshot, its JSON
// form and cmd/wire's captures carry key 12, and every generated file
// names the field. The tests that walk every text key (codec's and
// zerocopy's TestEveryNodeText, and the tests that take the text keys
// from the schema) then cover "note" too: encoder, general decoder, fast
// paths, the Tree and the views. No figure that follows from the schema
// is left in prose to go stale: the sizes the docs speak of are
// TestRecordSizes's, the key lists the generated constants. It takes
// some minutes on a loaded host (compiling the copy, and the tests of
// every package), so it runs only when WIREBENCH_FIELD_PROBE=1.
//
// Run on 2 cores shared with other sessions (abridged):
//
//	$ WIREBENCH_FIELD_PROBE=1 go test -count=1 -timeout 30m -run TestAddNodeText -v ./codec/internal/fieldgen/
//	    3 hand edits: docs/protocol.md, codec/snapshot.go, golden/samples.go
//	    make --no-print-directory generate (9.4s)
//	    go vet ./... (18.7s)
//	    PEERS=off go test -count=1 -skip ^TestMicroDiff$ ./... (85.5s)  ok (39 packages)
//	    go test -count=1 ./golden/ (0.7s)  ok
//	--- PASS: TestAddNodeText (115.05s)
//
// TestMicroDiff is left out: it drives git, and the copy is no checkout.
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
		if d.IsDir() && (rel == ".git" || rel == "node_modules") {
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
	run := func(env []string, name string, args ...string) {
		t.Helper()
		start := time.Now()
		cmd := exec.Command(name, args...)
		cmd.Dir = dst
		cmd.Env = append(append(os.Environ(), "WIREBENCH_FIELD_PROBE_COPY=1"), env...)
		out, err := cmd.CombinedOutput()
		t.Logf("%s%s %s (%.1fs)\n%s", strings.Join(append(env, ""), " "), name, strings.Join(args, " "), time.Since(start).Seconds(), out)
		if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
	}
	run(nil, "make", "--no-print-directory", "generate")
	run(nil, "go", "vet", "./...")
	run([]string{"PEERS=off"}, "go", "test", "-count=1", "-skip", "^TestMicroDiff$", "./...")
	if os.Getenv("PEERS") != "off" {
		run(nil, "go", "test", "-count=1", "./golden/")
	}
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
	if pcap, err := os.ReadFile(filepath.Join(dst, "cmd", "wire", "testdata", "capture", "session.pcap")); err != nil || !bytes.Contains(pcap, []byte("\x0c\x67on sale")) {
		t.Errorf("cmd/wire's testdata/capture/session.pcap does not carry key 12, \"on sale\" (%v)", err)
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
