package codec

// What package codec's tests give the external tests (package codec_test)
// and the fuzzers.

import (
	"os"
	"path/filepath"
	"testing"
)

// GoldenPayloads returns every golden frame's payload, to seed the
// fuzzers (here and in package codec_test).
func GoldenPayloads(tb testing.TB) [][]byte {
	files, err := filepath.Glob("../golden/*.bin")
	if err != nil || len(files) < 41 {
		tb.Fatalf("golden frames: %d files, %v", len(files), err)
	}
	var out [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b[4:])
	}
	return out
}

// CheckAllocsAtMost is checkAllocsAtMost for the external tests.
var CheckAllocsAtMost = checkAllocsAtMost

// SeedGolden adds every golden frame's payload to f's seed corpus.
func SeedGolden(f *testing.F) {
	for _, b := range GoldenPayloads(f) {
		f.Add(b)
	}
}

// NodeTextKeys are the keys of a node's text fields, from the schema
// (node_gen.go): the tests walk them rather than a list of their own.
func NodeTextKeys() []int { return nodeTextKeys[:] }

// NodeTextOf is n's text field of key k.
func NodeTextOf(n *Node, k int) string { return *n.textField(k) }
