// Package allocbound holds the decoders' allocation bound for hostile
// input (issue 26) and measures it, for the tests and fuzz targets of
// codec, codec/cbor and zerocopy: a frame of n bytes whose heads claim
// more items than it holds allocates at most Hostile(n) bytes in total
// (runtime TotalAlloc), whatever the nesting, the sibling count or where
// the claims sit. Each decoder documents its own bound for any input,
// k·n + C, in its package docs.
package allocbound

import (
	"runtime"
	"testing"

	"github.com/wirebench/wirebench/internal/testio"
)

// Hostile is the most a decoder may allocate in total for n bytes of
// hostile input: 16 bytes a byte and 1 MiB.
func Hostile(n int) uint64 { return 16*uint64(n) + 1<<20 }

// Fresh collects garbage twice, so that every sync.Pool is empty (its
// victim cache too): a pooled decoder used next starts afresh, and what
// was allocated before is not live.
func Fresh() {
	runtime.GC()
	runtime.GC()
}

// TotalAlloc returns the bytes allocated in total while f runs. The
// count is process-wide: a caller keeps other goroutines quiet.
func TotalAlloc(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Check fails tb unless f, run on n bytes, allocates at most limit bytes
// in total; it returns what f allocated. Under the race detector, whose
// runtime allocates for itself, f runs and nothing is counted.
func Check(tb testing.TB, what string, n int, limit uint64, f func()) uint64 {
	tb.Helper()
	if !Counted {
		f()
		return 0
	}
	got := TotalAlloc(f)
	if got > limit {
		tb.Errorf("%s: %d bytes allocated for %d bytes of input (%.1f a byte), over the bound of %d", what, got, n, float64(got)/float64(max(n, 1)), limit)
	}
	return got
}

// Frames returns the hostile frames of dir by name (the file name less
// .bin): whole frames, the length header first.
func Frames(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	return testio.ReadFiles(tb, dir, ".bin")
}

// CheckHostile runs f on the payload of each hostile frame of dir, after
// Fresh, and fails tb when one allocates more than Hostile of its size;
// it returns what each allocated, by name.
func CheckHostile(tb testing.TB, dir string, f func(name string, payload []byte)) map[string]uint64 {
	tb.Helper()
	got := map[string]uint64{}
	for name, frame := range Frames(tb, dir) {
		p := frame[4:]
		Fresh()
		got[name] = Check(tb, name, len(p), Hostile(len(p)), func() { f(name, p) })
	}
	return got
}
