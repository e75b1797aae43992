package count

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Env is the runtime settings every count runs with (see the package doc).
var Env = []string{
	"GOMAXPROCS=1",
	"GOGC=off",
	"GODEBUG=asyncpreemptoff=1,cpu.all=off,memprofilerate=0",
}

// Counted is the -test.bench pattern of every benchmark the tier counts:
// those timed through support.CountAllocs (Relay moves bytes through
// sockets and is timed only). mk/lib.sh holds the same pattern for the
// scripts as COUNTED (a test keeps the two equal).
const Counted = "^Benchmark(Encode|Decode|Frame|Gate|Session)$"

// CacheSim is callgrind's cache simulation, with a fixed geometry so that
// the host's caches do not change the count: first-level caches of
// 32 KiB, 8 ways, and a last level of 8 MiB, 16 ways, 64-byte lines (see
// EstCycles).
var CacheSim = []string{"--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"}

// OneThread matches the benchmarks whose loops never block: in a count,
// support pins such a loop to its P (so the scheduler cannot switch to
// another goroutine during it) and the count is the busiest thread's
// alone. Counted over all threads, these loops also counted the runtime's
// monitor thread (sysmon), which wakes on the wall clock: the more, the
// slower the host, and under load the screenshot's memmove moved by 2 %.
// The others (Gate, Session) move bytes through sockets and goroutines
// and are counted over all threads.
var OneThread = regexp.MustCompile(`^Benchmark(Encode|Decode|Frame)/`)

// Rounds is how many rounds of each benchmark run (-test.count): one to
// warm up, two to take the least of (see PerOp), unless its Class asks
// for more.
const Rounds = 3

// Class is a group of benchmarks counted with the same b.N, in one
// valgrind process: a loop's cost spans five orders of magnitude, and its
// n is chosen so that the counted run is long enough for the per-iteration
// count to swamp the loop's fixed costs and short enough to keep the tier
// within minutes and the heap (no collection) small.
type Class struct {
	Pattern string // regexp on the full benchmark name; the first class that matches wins
	N       int
	// HeapSensitive matches the class's rows whose count depends on where
	// the process's heap has its free pages (see Classes), counted in
	// Median more processes of their own, the median of those kept.
	HeapSensitive string
	Median        int
	// Rounds, when above the package's Rounds, is how many rounds the
	// class runs: the least is taken of every round after the first.
	Rounds int
}

// rounds is how many rounds c runs.
func (c Class) rounds() int { return max(c.Rounds, Rounds) }

// SeedSensitive matches the rows whose count depends on the process's
// random hash seeds: fxamacker's type caches are sync.Maps keyed by
// reflect.Type, hash tries in which a type sits deeper or shallower by
// the seed, one more level costing 24 instructions a lookup (see
// TrieWalk). Measured in six processes, the same binary gave 1485 or 1509
// instructions/op for fxamacker's encode of event_content_changed, 3351
// or 3375 for request_tap, 6035 to 6108 for its decode of hello_full, and
// its encode of response_snapshot_500 (hundreds of lookups an op) moved by
// 0.5 %; the least of seven processes still missed the shallowest
// placement now and then. The count of these rows takes every lookup at
// the top of its trie instead, the least any seed gives, computed from
// the levels each lookup went down (instruction-level dumps, Walk): the
// same in every process, with no extra process. They must be loops of
// OneThread (their busiest thread's walks are the ones taken out).
var SeedSensitive = regexp.MustCompile(`/impl=fxamacker/`)

// TypeCacheSensitive matches the rows that run slower until a type
// assertion's cache holds their type: the runtime fills the cache of a
// call site (in the code the compiler generates for x.(T) and type
// switches) only on about one miss in 1024, at random, and until then each
// assertion takes the runtime's path, 79 instructions. fxamacker's decode
// asserts the Unmarshaler interface on every value: counted at n=500, in
// one process of five its decode of request_tap and request_snapshot
// still took that path in the third round (+1.4 %), and make
// micro-count-repro once failed on it; after 2001 ops a site is still
// uncached in one process of seven. Their class runs six
// rounds: a site uncached after five rounds of 2001 ops is one in 17 000.
// The bigger messages' loops dwarf 79 instructions.
var TypeCacheSensitive = regexp.MustCompile(`/impl=fxamacker/`)

// Classes are the workbench's classes, the last one taking the rest.
//
// Their HeapSensitive rows allocate many pages an op: each such
// allocation searches the page allocator from the lowest free page, past
// the small holes the process's setup left (their layout follows the
// setup's random map order and hash seeds), and updates its summaries,
// which costs a few hundred instructions more or less an op from process
// to process, whatever n. Measured in processes of their own: our decode
// of response_snapshot_500 gave 509054 to 512392 instructions/op
// (0.28 % apart in one make micro-count-repro), fxamacker's decode of the
// screenshot 83547 to 84020 (82934 to 83571 in processes of its whole
// class, 0.4 % apart in one repro), our decode of the screenshot moved by
// 0.16 %. The median of seven processes is the middle of that spread,
// where the least would follow its tail.
var Classes = []Class{
	{Pattern: `msg=response_snapshot_5000$`, N: 4},
	{Pattern: `msg=response_snapshot_500$`, N: 10, HeapSensitive: `^BenchmarkDecode/impl=codec/`, Median: 7},
	{Pattern: `msg=response_screenshot_256k`, N: 50, HeapSensitive: `^BenchmarkDecode/impl=(codec|fxamacker)/`, Median: 7},
	{Pattern: `msg=response_bounds_64$`, N: 100},
	{Pattern: `^Benchmark(Gate|Session)/`, N: 10},
	{Pattern: TypeCacheSensitive.String(), N: 2000, Rounds: 6},
	{Pattern: `.`, N: 2000},
}

// The environment variables support.Run reads in a count (support.CountEnv
// and the three selecting a class's benchmarks, the last one narrowing a
// process to a class's HeapSensitive rows).
const (
	envCount = "WIREBENCH_COUNT"
	envOnly  = "WIREBENCH_COUNT_ONLY"
	envSkip  = "WIREBENCH_COUNT_SKIP"
	envAlso  = "WIREBENCH_COUNT_ALSO"
)

// Options of Run.
type Options struct {
	Binary   string  // the test binary
	Bench    string  // its -test.bench
	Valgrind string  // the valgrind command
	Dir      string  // scratch directory for the dumps
	Classes  []Class // Classes if nil
	Log      io.Writer
	// Parallel is how many of a class's median processes (Class.Median)
	// run at once; 1 if not above it.
	Parallel int
	// Names, if not nil, are the full names of the benchmarks Bench
	// selects (from a quick run of the binary, see ListedNames): a class
	// none of them falls in is not run, which saves its valgrind process.
	Names []string
}

// Result is a count run: its rows in the order they ran and what the
// binary printed as its cpu.
type Result struct {
	Rows []Row
	CPU  string
}

// Run counts the benchmarks of o.Binary matching o.Bench, one valgrind
// process per class, and Class.Median more for the HeapSensitive rows of
// a class that has them.
func Run(ctx context.Context, o Options) (*Result, error) {
	classes := o.Classes
	if classes == nil {
		classes = Classes
	}
	res := &Result{}
	levels := Levels{}
	var before []string
	for i, c := range classes {
		start := time.Now()
		skip := strings.Join(before, "|")
		before = append(before, "(?:"+c.Pattern+")")
		if o.Names != nil {
			if in, err := anyInClass(o.Names, c.Pattern, skip); err != nil {
				return nil, err
			} else if !in {
				continue
			}
		}
		p, err := runClass(ctx, o, c, levels, filepath.Join(o.Dir, "cg"+strconv.Itoa(i)), skip, "")
		if err != nil {
			return nil, err
		}
		if res.CPU == "" {
			res.CPU = cpuOf(p.stdout)
		}
		allocs, err := allocsPerOp(p.stderr)
		if err != nil {
			return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
		}
		if err := median(ctx, o, c, levels, i, skip, p); err != nil {
			return nil, err
		}
		for _, name := range p.names {
			l := p.perOp[name]
			row := Row{Name: name, N: l.N, Instructions: l.PerOp, Cycles: p.est[name].PerOp, Allocs: -1, Bytes: -1}
			if a, ok := allocs[name]; ok {
				row.Allocs, row.Bytes = a[0], a[1]
				if row.Bytes > 0 {
					g, ok := p.gcPerByte[name]
					if !ok {
						return nil, fmt.Errorf("class %s: %s allocates %s B/op and no collection after its loop was counted", c.Pattern, name, trim(row.Bytes))
					}
					row.Cycles += row.Bytes * g
				}
			}
			row.Cycles = math.Round(row.Cycles*10) / 10
			res.Rows = append(res.Rows, row)
		}
		if o.Log != nil && len(p.names) > 0 {
			fmt.Fprintf(o.Log, "count: %3d benchmarks at n=%-4d (%s) in %.0fs\n", len(p.names), c.N, c.Pattern, time.Since(start).Seconds())
		}
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("no benchmark matched -bench %q (only those timed through support.CountAllocs are counted)", o.Bench)
	}
	return res, nil
}

// anyInClass reports whether one of names matches pattern and not skip.
func anyInClass(names []string, pattern, skip string) (bool, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false, fmt.Errorf("class %s: %v", pattern, err)
	}
	var sk *regexp.Regexp
	if skip != "" {
		if sk, err = regexp.Compile(skip); err != nil {
			return false, fmt.Errorf("class %s: %v", pattern, err)
		}
	}
	for _, n := range names {
		if re.MatchString(n) && (sk == nil || !sk.MatchString(n)) {
			return true, nil
		}
	}
	return false, nil
}

// ListedNames returns the full benchmark names of go test output (the
// first field of each "Benchmark" line, without its -GOMAXPROCS suffix),
// each once.
func ListedNames(output string) []string {
	names := []string{}
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// procsSuffix is the -GOMAXPROCS suffix go test appends to a benchmark's name.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// process is one valgrind process's count.
type process struct {
	names          []string
	perOp          map[string]Loop    // instructions
	est            map[string]Loop    // estimated cycles of the loop
	gcPerByte      map[string]float64 // GCPerByte of each allocating row
	stdout, stderr string
}

// runClass counts, in one valgrind process, the benchmarks of class c
// (those matching c.Pattern and not skip) that match also, if not empty,
// learning into levels the instructions of a trie level (see TrieWalk)
// from its dumps.
func runClass(ctx context.Context, o Options, c Class, levels Levels, base, skip, also string) (*process, error) {
	args := append([]string{"--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
		"--dump-instr=yes", "--dump-line=no", "--callgrind-out-file=" + base}, CacheSim...)
	cmd := exec.CommandContext(ctx, o.Valgrind, append(args,
		o.Binary, "-test.run=^$", "-test.bench="+o.Bench, "-test.benchtime="+strconv.Itoa(c.N)+"x", "-test.count="+strconv.Itoa(c.rounds()))...)
	cmd.Env = append(os.Environ(), Env...)
	cmd.Env = append(cmd.Env, envCount+"=callgrind", envOnly+"="+c.Pattern, envSkip+"="+skip, envAlso+"="+also)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s under valgrind (class %s, n=%d): %v\n%s\n%s", o.Binary, c.Pattern, c.N, err, tail(stdout.String()), tail(stderr.String()))
	}
	all, err := ReadDumps(base)
	if err != nil {
		return nil, err
	}
	var dumps, gcs []Dump
	for _, d := range all {
		if d.GC {
			gcs = append(gcs, d)
		} else {
			dumps = append(dumps, d)
		}
	}
	levelsMu.Lock() // median processes run side by side
	defer levelsMu.Unlock()
	if err := levels.learn(dumps); err != nil {
		return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	walked := map[string]bool{}
	for i, d := range dumps {
		switch {
		case SeedSensitive.MatchString(d.Name) && OneThread.MatchString(d.Name):
			if dumps[i].Ir, err = levels.topOfTrie(d); err != nil {
				return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
			}
			// The levels taken out count as instructions that hit
			// the first level.
			dumps[i].Est = d.BusiestEst - min(d.BusiestEst, d.Busiest-dumps[i].Ir)
			walked[d.Name] = walked[d.Name] || len(d.Walks) > 0
		case OneThread.MatchString(d.Name):
			dumps[i].Ir, dumps[i].Est = d.Busiest, d.BusiestEst
		}
	}
	names, perOp, err := PerOp(dumps)
	if err != nil {
		return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	ests := make([]Dump, len(dumps))
	for i, d := range dumps {
		ests[i] = Dump{Name: d.Name, N: d.N, Ir: d.Est}
	}
	_, est, err := PerOp(ests)
	if err != nil {
		return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	gc, err := gcPerByte(gcs, stderr.String())
	if err != nil {
		return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	for _, name := range names {
		if w, ok := walked[name]; ok && !w && o.Log != nil {
			// fxamacker looks its types up in every call: a Go that
			// renamed the trie's lookup would leave its depth counted.
			fmt.Fprintf(o.Log, "count: %s looked nothing up in a sync.Map trie (count.TrieWalk): its count may move with the process's hash seed\n", name)
		}
	}
	return &process{names, perOp, est, gc, stdout.String(), stderr.String()}, nil
}

// levelsMu guards the Levels that runClass learns and reads.
var levelsMu sync.Mutex

// median counts the rows of p that match c.HeapSensitive in c.Median more
// processes, each running those rows alone, and sets their count in p to
// the median of those processes'. The allocations per op stay p's: they
// do not depend on the heap's layout.
func median(ctx context.Context, o Options, c Class, levels Levels, class int, skip string, p *process) error {
	if c.Median < 2 || c.HeapSensitive == "" {
		return nil
	}
	heap, err := regexp.Compile(c.HeapSensitive)
	if err != nil {
		return fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	counts := map[string][]float64{}
	ests := map[string][]float64{}
	for _, name := range p.names {
		if heap.MatchString(name) {
			counts[name] = nil
		}
	}
	if len(counts) == 0 {
		return nil
	}
	// The processes run Parallel at a time: a count does not depend on
	// the host's load (make micro-count-repro checks it), and these
	// processes are most of the tier's time.
	procs := make([]*process, c.Median)
	errs := make([]error, c.Median)
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(o.Parallel, 1))
	for k := range c.Median {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			procs[k], errs[k] = runClass(ctx, o, c, levels, filepath.Join(o.Dir, fmt.Sprintf("cg%d-heap%d", class, k)), skip, c.HeapSensitive)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for k, q := range procs {
		for name := range counts {
			l, ok := q.perOp[name]
			if !ok {
				return fmt.Errorf("class %s: %s missing from its own process %d", c.Pattern, name, k)
			}
			counts[name] = append(counts[name], l.PerOp)
			ests[name] = append(ests[name], q.est[name].PerOp)
		}
	}
	for name, v := range counts {
		l := p.perOp[name]
		l.PerOp = middle(v)
		p.perOp[name] = l
		e := p.est[name]
		e.PerOp = middle(ests[name])
		p.est[name] = e
	}
	return nil
}

// middle returns the median of v, which it sorts.
func middle(v []float64) float64 {
	slices.Sort(v)
	return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
}

// gcPrefix is support.CountGCPrefix.
const gcLinePrefix = "wirebench-gc "

// gcPerByte returns, for each row with collections counted after its
// loop (dumps of support.CountGCDumpName, in the order they ran), what a
// byte it allocates costs the collector at GOGC=100, in estimated cycles:
// a collection's estimated cycles (all threads) over the bytes the
// program allocates between two collections (from the lines the binary
// wrote to stderr, in the same order: the heap kept, stacks and globals,
// or the runtime's 4 MiB least goal less the heap kept when that is
// more). support counts one collection a row, after its first round's
// loop; should there be more, the first is skipped, as PerOp skips its
// loop, and of the others the least ratio is kept.
func gcPerByte(gcs []Dump, stderr string) (map[string]float64, error) {
	scanned := map[string][]uint64{}
	lines, err := prefixed(stderr, gcLinePrefix, 3, "collection line %q: want name, b.N and bytes between collections")
	if err != nil {
		return nil, err
	}
	for _, f := range lines {
		v, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("collection line %q: bytes between collections: not a positive number", strings.Join(f, " "))
		}
		scanned[f[0]] = append(scanned[f[0]], v)
	}
	ratios := map[string][]float64{}
	for _, d := range gcs {
		k := len(ratios[d.Name])
		if k >= len(scanned[d.Name]) {
			return nil, fmt.Errorf("%s: %d collections counted and %d lines of bytes between collections", d.Name, k+1, len(scanned[d.Name]))
		}
		ratios[d.Name] = append(ratios[d.Name], float64(d.Est)/float64(scanned[d.Name][k]))
	}
	out := map[string]float64{}
	for name, r := range ratios {
		if len(r) != len(scanned[name]) {
			return nil, fmt.Errorf("%s: %d collections counted and %d lines of bytes between collections", name, len(r), len(scanned[name]))
		}
		if len(r) > 1 {
			r = r[1:]
		}
		out[name] = slices.Min(r)
	}
	return out, nil
}

// allocsPrefix is support.CountAllocsPrefix.
const allocsPrefix = "wirebench-allocs "

// allocsPerOp reads the allocation lines the binary wrote to stderr for
// every counted run and differences them as PerOp does the instructions:
// (A(n) - A(1)) / (n - 1) for allocations and bytes, from the last pair,
// so that a buffer grown once per run does not count as an allocation
// per op.
func allocsPerOp(stderr string) (map[string][2]float64, error) {
	var dumps [2][]Dump // allocations, bytes, as dumps of the same shape
	lines, err := prefixed(stderr, allocsPrefix, 4, "allocation line %q: want name, b.N, allocations and bytes")
	if err != nil {
		return nil, err
	}
	for _, f := range lines {
		n, err1 := strconv.Atoi(f[1])
		a, err2 := strconv.ParseUint(f[2], 10, 64)
		b, err3 := strconv.ParseUint(f[3], 10, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("allocation line %q: %v", allocsPrefix+strings.Join(f, " "), err)
		}
		dumps[0] = append(dumps[0], Dump{Name: f[0], N: n, Ir: a})
		dumps[1] = append(dumps[1], Dump{Name: f[0], N: n, Ir: b})
	}
	out := map[string][2]float64{}
	if len(dumps[0]) == 0 {
		return out, nil
	}
	names, allocs, err := PerOp(dumps[0])
	if err != nil {
		return nil, err
	}
	_, bytes, err := PerOp(dumps[1])
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		out[name] = [2]float64{round2(allocs[name].PerOp), round2(bytes[name].PerOp)}
	}
	return out, nil
}

// prefixed returns the fields after prefix of each line of text that
// starts with it; a line with other than n fields is an error, wrong
// (a format with a %q for the line) saying what it wants.
func prefixed(text, prefix string, n int, wrong string) ([][]string, error) {
	var out [][]string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		f := strings.Fields(line)
		if len(f) != n {
			return nil, fmt.Errorf(wrong, sc.Text())
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// cpuOf returns the cpu line of the binary's stdout.
func cpuOf(stdout string) string {
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "cpu:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
