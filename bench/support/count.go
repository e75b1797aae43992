package support

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"

	"github.com/wirebench/wirebench/bench/internal/callgrind"
)

// Instruction counts of the timed loops, for make micro-count (mk/count.mk):
// with CountEnv set to "callgrind" in the environment, CountAllocs switches
// callgrind's instrumentation on right before the timed loop and Stop
// dumps the counters right after it, under CountDumpName, and switches it
// off again. Everything else a benchmark does (building its input, the
// checks before timing, testing's own bookkeeping) runs uninstrumented.
// cmd/benchcount runs the binaries under callgrind and turns the dumps into
// instructions/op by differencing two runs of one benchmark.

// CountEnv is the environment variable that turns the dumps on.
const CountEnv = "WIREBENCH_COUNT"

// counting is whether CountEnv asks for callgrind dumps.
var counting = os.Getenv(CountEnv) == "callgrind"

// settleHeap, in a count, is called before each counted loop: a
// collection that returns every free page to the OS (debug.FreeOSMemory).
// Whether a loop's allocations get pages never used (that need no zeroing)
// or pages freed before (that do) would otherwise depend on the heap's
// history, which setup code iterating maps in random order varies from
// process to process, and on the background scavenger, which returns
// freed pages at a pace set by wall time. After it, every loop starts from
// the same state: its allocations get pages the OS zeroed. Allocating
// loops are therefore counted without the zeroing a long-running process
// pays on reused pages; allocs/op and B/op beside each count show them.
func settleHeap() { debug.FreeOSMemory() }

// CountAllocsPrefix starts the line, on stderr, that gives the allocations
// of each counted run (every run, b.N=1 ones too, so that the count can
// difference them as it does the instructions):
//
//	wirebench-allocs <benchmark name> <b.N> <allocations> <bytes>
const CountAllocsPrefix = "wirebench-allocs"

func countAllocs(name string, n int, allocs, bytes uint64) {
	fmt.Fprintf(os.Stderr, "%s %s %d %d %d\n", CountAllocsPrefix, name, n, allocs, bytes)
}

// CountDumpName is the name a timed loop's dump carries: the benchmark's
// name and its b.N, separated by a space (a benchmark name has none).
func CountDumpName(name string, n int) string {
	return "wirebench " + name + " " + strconv.Itoa(n)
}

// The selection of a count's class (cmd/benchcount runs each class in its
// own process): support.Run runs a sub-benchmark only when its full name
// matches WIREBENCH_COUNT_ONLY and WIREBENCH_COUNT_ALSO and not
// WIREBENCH_COUNT_SKIP.
var (
	countOnly = countPattern("WIREBENCH_COUNT_ONLY")
	countSkip = countPattern("WIREBENCH_COUNT_SKIP")
	countAlso = countPattern("WIREBENCH_COUNT_ALSO") // a second pattern to match (the rows an extra process counts)
)

func countPattern(env string) *regexp.Regexp {
	v := os.Getenv(env)
	if !counting || v == "" {
		return nil
	}
	re, err := regexp.Compile(v)
	if err != nil {
		panic(fmt.Sprintf("support: %s: %v", env, err))
	}
	return re
}

// countSelected reports whether the benchmark of full name runs in this
// count (always, outside a count).
func countSelected(name string) bool {
	return (countOnly == nil || countOnly.MatchString(name)) && (countSkip == nil || !countSkip.MatchString(name)) &&
		(countAlso == nil || countAlso.MatchString(name))
}

// CountGCPrefix starts the line, on stderr, that gives the heap a counted
// collection went through (countCollection):
//
//	wirebench-gc <benchmark name> <b.N> <bytes between collections>
const CountGCPrefix = "wirebench-gc"

// collected holds the benchmarks whose collection was counted: once a
// benchmark, after its first loop of b.N > 1 (the first round's), and
// not in the processes that recount a class's heap-sensitive rows
// (WIREBENCH_COUNT_ALSO), whose charge the class's own process gives.
// Each collection of the benchmark process's heap costs millions of
// instructions under the cache simulation; one a row keeps the tier fast.
var collected = map[string]bool{}

// countCollection counts, in a count, one full collection right after an
// allocating loop (dumped under CountGCDumpName) and writes how many
// bytes a program with the heap that collection left allocates between
// two collections at GOGC=100 (betweenCollections): the count charges
// each byte the loop allocated that share of a collection's cost (see
// bench/count).
func countCollection(name string, n int) {
	dump := append([]byte(CountGCDumpName(name, n)), 0)
	callgrind.Start()
	runtime.GC()
	callgrind.Dump(dump)
	callgrind.Stop()
	fmt.Fprintf(os.Stderr, "%s %s %d %d\n", CountGCPrefix, name, n, betweenCollections())
}

// CountGCDumpName is the name the dump of the collection after a timed
// loop carries.
func CountGCDumpName(name string, n int) string {
	return "wirebench-gc " + name + " " + strconv.Itoa(n)
}

// scanMetrics are what a collection's heap goal grows with: the heap it
// kept, and the stacks and globals it scanned.
var scanMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes"}

// heapMinimum is the runtime's least heap goal at GOGC=100 (4 MiB): a
// program whose heap is smaller still runs a collection only when its
// heap reaches it.
const heapMinimum = 4 << 20

// betweenCollections returns the bytes a program allocates between two
// collections at GOGC=100, after the last collection: the pacer's goal
// is the heap kept plus that heap, stacks and globals (scanMetrics), and
// at least heapMinimum, so the bytes between are the larger of the sum
// of scanMetrics and heapMinimum less the heap kept.
func betweenCollections() uint64 {
	s := make([]metrics.Sample, len(scanMetrics))
	for i, m := range scanMetrics {
		s[i].Name = m
	}
	metrics.Read(s)
	var sum uint64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			sum += v.Value.Uint64()
		}
	}
	if s[0].Value.Kind() != metrics.KindUint64 {
		return sum
	}
	if live := s[0].Value.Uint64(); live < heapMinimum && heapMinimum-live > sum {
		return heapMinimum - live
	}
	return sum
}
