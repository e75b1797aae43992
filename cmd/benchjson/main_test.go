package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToJSONAndBack(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "baseline.json")
	txt := filepath.Join(dir, "baseline.txt")
	sample := filepath.Join("..", "..", "bench", "baseline", "testdata", "sample.txt")
	if err := run([]string{"tojson", "-o", js, sample}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"totext", "-o", txt, js}, nil, nil); err != nil {
		t.Fatal(err)
	}
	var back strings.Builder
	f, err := os.Open(txt)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := run([]string{"tojson"}, f, &back); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(js)
	if back.String() != string(first) {
		t.Errorf("json → text → json differs:\n%s\n---\n%s", first, back.String())
	}
	if fi, err := os.Stat(js); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("baseline mode %v, %v; want 0644", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		in   string
		want string
	}{
		{nil, "", "missing verb"},
		{[]string{"tobson"}, "", "unknown verb"},
		{[]string{"tojson", "a", "b"}, "", "at most one"},
		{[]string{"tojson", "/no/such/file"}, "", "no such file"},
		{[]string{"totext"}, `{"schema":"other"}`, "stdin: schema"},
		{[]string{"tojson"}, "BenchmarkX 1 x ns/op\n", "stdin:1: parsing measurement"},
	} {
		var out strings.Builder
		err := run(tc.args, strings.NewReader(tc.in), &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.args, err, tc.want)
		}
	}
	// A failed conversion leaves an existing output untouched.
	dir := t.TempDir()
	out := filepath.Join(dir, "keep.json")
	os.WriteFile(out, []byte("old"), 0o644)
	if err := run([]string{"tojson", "-o", out}, strings.NewReader("BenchmarkX 1 x ns/op\n"), nil); err == nil {
		t.Fatal("no error")
	}
	if data, _ := os.ReadFile(out); string(data) != "old" {
		t.Errorf("output overwritten: %q", data)
	}
}
