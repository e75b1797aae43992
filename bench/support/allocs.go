package support

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/wirebench/wirebench/bench/internal/callgrind"
)

// Allocation counting around a benchmark's timed loop: the Go counterpart
// of the seed's counting allocator. After each benchmark result it prints
//
//	allocations <benchmark name> <allocs per iteration> <bytes per iteration>
//
// to stdout, one line per result line (per -count round and -cpu value),
// with the name b.Name() gives and the numbers rounded to two decimals.
// benchfmt (and so benchstat) ignores such lines: they neither start with
// "Benchmark" nor are "key: value" configuration lines.
//
// The counts come from runtime.ReadMemStats (Mallocs and TotalAlloc), the
// source testing's own allocs/op uses. runtime/metrics' /gc/heap/allocs
// counters would spare the stop-the-world, but they count small objects
// per span as each P's cache hands a span back, so between collections
// they lag by up to a span per size class and P; MemStats flushes the
// caches first and is exact. The counts are process-wide: any goroutine
// allocating during the loop is counted, as testing counts it.
//
// Use it under Run, which prints the lines once the sub-benchmark's
// result lines are out:
//
//	support.Run(b, "msg=x", func(b *testing.B) {
//		setUp()
//		c := support.CountAllocs(b)
//		for i := 0; i < b.N; i++ {
//			work()
//		}
//		c.Stop()
//	})
//
// A benchmark function runs several times with growing b.N before its
// result is printed; only the last run of each result is reported.
// Printing from inside the benchmark function would land between the
// benchmark's name and its numbers on the result line, which is why the
// lines wait for Run.

// UnitFaults is the unit of the minor page faults per iteration that Stop
// reports for every timed loop (getrusage's ru_minflt of the whole
// process, before and after the loop): the pages the kernel had to map,
// and usually zero, on the loop's first touch. The count tier cannot see
// them (kernel time), nor can allocs/op: a loop that allocates fresh
// memory faults, one that reuses the heap does not.
const UnitFaults = "page-faults/op"

// allocOut is where the allocation lines go; tests replace it.
var allocOut io.Writer = os.Stdout

// AllocCounter counts the allocations of one run of a benchmark function
// between CountAllocs and Stop.
type AllocCounter struct {
	b             *testing.B
	before, after runtime.MemStats
	stopped       bool
	dump          []byte // the loop's callgrind dump name, NUL-terminated, in a count
	faults        int64  // minor page faults of the process at the start (minorFaults)
	pinned        bool   // the loop runs pinned to its P (pinLoop)
}

// CountAllocs starts counting, right before the timed loop, and resets the
// benchmark timer (so set-up before it is neither timed nor counted).
// Stop ends the count; if the function returns without calling Stop, the
// count ends when the function returns.
func CountAllocs(b *testing.B) *AllocCounter {
	c := &AllocCounter{b: b}
	b.Cleanup(func() {
		if !c.stopped {
			c.Stop()
		}
	})
	if counting {
		c.dump = append([]byte(CountDumpName(b.Name(), b.N)), 0)
		settleHeap()
	}
	runtime.ReadMemStats(&c.before)
	c.faults = minorFaults()
	b.ResetTimer()
	if counting {
		if c.pinned = pinLoop(b.Name()); c.pinned {
			procPin()
		}
		callgrind.Start()
	}
	return c
}

// Stop stops the benchmark timer, ends the count and records it as this
// run's; Run prints the record of a result's last run. Calling Stop again
// does nothing.
func (c *AllocCounter) Stop() {
	if c.stopped {
		return
	}
	if counting {
		callgrind.Dump(c.dump)
		callgrind.Stop()
		if c.pinned {
			procUnpin()
		}
	}
	c.b.StopTimer()
	if f := minorFaults(); f >= 0 && c.faults >= 0 {
		c.b.ReportMetric(float64(f-c.faults)/float64(max(c.b.N, 1)), UnitFaults)
	}
	runtime.ReadMemStats(&c.after)
	c.stopped = true
	if counting {
		countAllocs(c.b.Name(), c.b.N, c.after.Mallocs-c.before.Mallocs, c.after.TotalAlloc-c.before.TotalAlloc)
		if c.b.N > 1 && c.after.TotalAlloc-c.before.TotalAlloc >= uint64(c.b.N) && countAlso == nil && !collected[c.b.Name()] {
			collected[c.b.Name()] = true
			countCollection(c.b.Name(), c.b.N)
		}
	}
	allocMu.Lock()
	defer allocMu.Unlock()
	rec := allocRecord{b: c.b, name: c.b.Name(), n: c.b.N, allocs: c.after.Mallocs - c.before.Mallocs, bytes: c.after.TotalAlloc - c.before.TotalAlloc}
	for i := range pending {
		if pending[i].b == c.b {
			pending[i] = rec // a later run of the same result: larger N
			return
		}
	}
	pending = append(pending, rec)
}

// PerOp returns the allocations and bytes per iteration counted between
// CountAllocs and Stop.
func (c *AllocCounter) PerOp() (allocs, bytes float64) {
	n := float64(max(c.b.N, 1))
	return float64(c.after.Mallocs-c.before.Mallocs) / n, float64(c.after.TotalAlloc-c.before.TotalAlloc) / n
}

type allocRecord struct {
	b             *testing.B
	name          string
	n             int
	allocs, bytes uint64
}

var (
	allocMu sync.Mutex
	pending []allocRecord // one per result, in the order the results ran
)

// Run runs f as the sub-benchmark name of b, then prints the allocation
// line of each of its results (one per -count round and -cpu value) that
// counted with CountAllocs and did not fail. It reports whether f passed,
// as b.Run does. In an instruction count (count.go) it runs only the
// sub-benchmarks of the count's class.
func Run(b *testing.B, name string, f func(b *testing.B)) bool {
	if !countSelected(b.Name() + "/" + name) {
		return true
	}
	ok := b.Run(name, f)
	FlushAllocs(allocOut)
	return ok
}

// FlushAllocs writes the allocation lines of the results counted since the
// last flush to w and forgets them. Run calls it; call it yourself only
// for a benchmark that counts without Run, once its results are printed.
func FlushAllocs(w io.Writer) {
	allocMu.Lock()
	recs := pending
	pending = nil
	allocMu.Unlock()
	for _, r := range recs {
		if r.b.Failed() || r.b.Skipped() {
			continue
		}
		fmt.Fprintf(w, "allocations %s %s %s\n", r.name, perOp(r.allocs, r.n), perOp(r.bytes, r.n))
	}
}

// perOp formats v/n rounded to two decimals, without trailing zeros.
func perOp(v uint64, n int) string {
	x := math.Round(float64(v)/float64(max(n, 1))*100) / 100
	return strconv.FormatFloat(x, 'f', -1, 64)
}
