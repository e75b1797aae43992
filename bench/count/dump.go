package count

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// dumpPrefix starts the description of a dump written by
// support.CountAllocs (support.CountDumpName); gcPrefix that of the
// collection counted after an allocating loop (support.CountGCDumpName).
const (
	dumpPrefix = "desc: Trigger: Client Request: wirebench "
	gcPrefix   = "desc: Trigger: Client Request: wirebench-gc "
)

// Dump is one callgrind dump of a timed loop.
type Dump struct {
	Seq  int    // dump number within its process, in the order written
	Name string // benchmark name, as b.Name() gives it
	N    int    // b.N of the run
	Ir   uint64 // instructions executed while counting, by all threads
	// Busiest is the count of the thread that executed the most
	// instructions: a pinned loop's (see OneThread).
	Busiest uint64
	// Est and BusiestEst are the estimated cycles (EstCycles) of all
	// threads and of the busiest one.
	Est, BusiestEst uint64
	// GC marks the dump of the collection counted right after a loop
	// (support.CountGCDumpName), not of a loop.
	GC bool
	// Walks are the busiest thread's lookups in seed-dependent tries (see
	// TrieWalk), by function; nil when it made none or the dump has no
	// instruction-level counts.
	Walks map[string]Walk
}

// ReadDumps reads the loop dumps callgrind wrote as base.<seq> (the
// --callgrind-out-file base of one process), or as base.<seq>-<thread>
// under --separate-threads=yes, in the order they were written. Dumps of
// other triggers (program termination) are skipped. A dump of several
// threads counts the sum of all in Ir and the busiest one in Busiest.
func ReadDumps(base string) ([]Dump, error) {
	files, err := filepath.Glob(base + ".*")
	if err != nil {
		return nil, err
	}
	bySeq := map[int]int{} // seq -> index in out
	var out []Dump
	for _, f := range files {
		seqText, _, _ := strings.Cut(f[len(base)+1:], "-")
		seq, err := strconv.Atoi(seqText)
		if err != nil {
			continue
		}
		d, ok, err := readDump(f)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		d.Seq, d.Busiest, d.BusiestEst = seq, d.Ir, d.Est
		i, seen := bySeq[seq]
		if !seen {
			bySeq[seq] = len(out)
			out = append(out, d)
			continue
		}
		if out[i].Name != d.Name || out[i].N != d.N || out[i].GC != d.GC {
			return nil, fmt.Errorf("%s: dump %d of %s %d in one thread and of %s %d in another", f, seq, out[i].Name, out[i].N, d.Name, d.N)
		}
		out[i].Ir += d.Ir
		out[i].Est += d.Est
		if d.Ir > out[i].Busiest {
			out[i].Busiest, out[i].BusiestEst, out[i].Walks = d.Ir, d.Est, d.Walks
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// readDump reads one dump file's trigger, totals and Walks; ok is false
// for a dump that is not a loop's.
func readDump(path string) (d Dump, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return d, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var named, total bool
	var events []string
	walks := newWalkReader()
	for sc.Scan() {
		line := sc.Text()
		if err := walks.line(line); err != nil {
			return d, false, fmt.Errorf("%s: %v", path, err)
		}
		switch {
		case strings.HasPrefix(line, dumpPrefix) || strings.HasPrefix(line, gcPrefix):
			rest := line[len(dumpPrefix):]
			if d.GC = strings.HasPrefix(line, gcPrefix); d.GC {
				rest = line[len(gcPrefix):]
			}
			i := strings.LastIndexByte(rest, ' ')
			if i < 0 {
				return d, false, fmt.Errorf("%s: dump name %q has no b.N", path, rest)
			}
			if d.N, err = strconv.Atoi(rest[i+1:]); err != nil {
				return d, false, fmt.Errorf("%s: dump name %q: b.N: %v", path, rest, err)
			}
			d.Name, named = rest[:i], true
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(line)[1:]
		case strings.HasPrefix(line, "totals:"):
			f := strings.Fields(line)[1:]
			v := make([]uint64, len(f))
			for k := range f {
				if v[k], err = strconv.ParseUint(f[k], 10, 64); err != nil {
					return d, false, fmt.Errorf("%s: totals: %v", path, err)
				}
			}
			if len(v) == 0 {
				return d, false, fmt.Errorf("%s: totals: no counts", path)
			}
			d.Ir, d.Est, total = v[0], EstCycles(events, v), true
		}
	}
	if err := sc.Err(); err != nil {
		return d, false, fmt.Errorf("%s: %v", path, err)
	}
	if named && !total {
		return d, false, fmt.Errorf("%s: a loop dump without totals", path)
	}
	d.Walks = walks.walks()
	return d, named, nil
}

// The weights of EstCycles, iai-callgrind's: an access that hits the first
// level costs a cycle, one that the last level serves 5, one that goes to
// memory 35.
const (
	costL1  = 1
	costLL  = 5
	costRAM = 35
)

// EstCycles is the estimated cycles of a dump's totals, whose events are
// named by events (callgrind's with --cache-sim=yes: Ir Dr Dw I1mr D1mr
// D1mw ILmr DLmr DLmw): costL1 a first-level hit, costLL a last-level
// hit, costRAM a last-level miss, over every instruction fetch and data
// access. Without events (a dump of Ir alone) it is the instruction count.
func EstCycles(events []string, totals []uint64) uint64 {
	if len(events) == 0 {
		events = []string{"Ir"}
	}
	var access, l1Miss, llMiss uint64
	for i, e := range events {
		if i >= len(totals) {
			break
		}
		switch e {
		case "Ir", "Dr", "Dw":
			access += totals[i]
		case "I1mr", "D1mr", "D1mw":
			l1Miss += totals[i]
		case "ILmr", "DLmr", "DLmw":
			llMiss += totals[i]
		}
	}
	return costL1*(access-l1Miss) + costLL*(l1Miss-llMiss) + costRAM*llMiss
}

// PerOp returns each benchmark's count per iteration from its dumps, in
// the order the benchmarks first ran. Each round of a benchmark is a run
// with b.N = 1 and one with b.N = n > 1; the first round only warms up
// (pools, learned sizes, the heap) when there are more, and of the others
// PerOp takes the least count of each run: (min I(n) - min I(1)) / (n - 1).
// What valgrind counts beyond the loop's own instructions (the scheduler
// preempting the loop every 10 ms of wall time, a runtime goroutine that
// runs meanwhile) only ever adds, and the more so the slower the host, so
// the least of two rounds is the loop's. A benchmark with no pair (run
// with -benchtime=1x) is an error.
func PerOp(dumps []Dump) (names []string, perOp map[string]Loop, err error) {
	type round struct {
		one, n uint64
		iters  int
	}
	rounds := map[string][]round{}
	pending := map[string]uint64{}
	seen := map[string]bool{}
	for _, d := range dumps {
		if !seen[d.Name] {
			seen[d.Name] = true
			names = append(names, d.Name)
		}
		if d.N == 1 {
			pending[d.Name] = d.Ir
			continue
		}
		i1, ok := pending[d.Name]
		if !ok {
			return nil, nil, fmt.Errorf("%s: a run of b.N=%d without a run of b.N=1 before it", d.Name, d.N)
		}
		delete(pending, d.Name)
		rs := rounds[d.Name]
		if len(rs) > 0 && rs[0].iters != d.N {
			return nil, nil, fmt.Errorf("%s: rounds of b.N=%d and %d", d.Name, rs[0].iters, d.N)
		}
		rounds[d.Name] = append(rs, round{i1, d.Ir, d.N})
	}
	perOp = map[string]Loop{}
	for _, name := range names {
		rs := rounds[name]
		if len(rs) == 0 {
			return nil, nil, fmt.Errorf("%s: only runs of b.N=1 (the count needs two iteration counts)", name)
		}
		if len(rs) > 1 {
			rs = rs[1:]
		}
		one, n := rs[0].one, rs[0].n
		for _, r := range rs[1:] {
			one, n = min(one, r.one), min(n, r.n)
		}
		perOp[name] = Loop{N: rs[0].iters, PerOp: (float64(n) - float64(one)) / float64(rs[0].iters-1)}
	}
	return names, perOp, nil
}

// Loop is the count of one benchmark's timed loop.
type Loop struct {
	N     int     // b.N of the longer run
	PerOp float64 // the counter (instructions, or what the dumps count) per iteration
}
