package codec_test

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
)

// FuzzTree: any input reads as a tree exactly as Decode reads it, within
// Decode's memory bound, and the fast reader and the general path lay
// out the same tree (checkTree).
func FuzzTree(f *testing.F) {
	seedTree(f)
	f.Fuzz(func(t *testing.T, b []byte) { checkTree(t, b) })
}

// seedTree seeds f with the golden frames, the hostile shapes and the
// tree tests' snapshots.
func seedTree(f *testing.F) {
	codec.SeedGolden(f)
	seedHostile(f, "testdata/hostile")
	f.Add(mustMarshal(&testing.T{}, &codec.Response{ID: 99, Method: codec.MethodSnapshot, Result: treeSnapshot()}))
	f.Add(snapshotResponse(chain(20)))
}
