package benchcount

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
	"time"
)

// Env is the runtime settings every count runs with (see the package doc).
var Env = []string{
	"GOMAXPROCS=1",
	"GOGC=off",
	"GODEBUG=asyncpreemptoff=1,cpu.all=off,memprofilerate=0",
}

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
// warm up, two to take the least of (see PerOp).
const Rounds = 3

// Class is a group of benchmarks counted with the same b.N, in one
// valgrind process: a loop's cost spans five orders of magnitude, and its
// n is chosen so that the counted run is long enough for the per-iteration
// count to swamp the loop's fixed costs and short enough to keep the tier
// within minutes and the heap (no collection) small.
type Class struct {
	Pattern string // regexp on the full benchmark name; the first class that matches wins
	N       int
	// Reseed is how many processes count the class's SeedSensitive rows
	// (the least is the count); 0 or 1 for one.
	Reseed int
}

// SeedSensitive matches the rows whose count depends on the process's
// random map hash seed: fxamacker's type caches are sync.Maps keyed by
// reflect.Type, a hash trie whose depth at a type (one more level costs 24
// instructions a lookup) follows the seed. Measured in six processes, the
// same binary gave 1485 or 1509 instructions/op for fxamacker's encode of
// event_content_changed, 3351 or 3375 for request_tap (about as often),
// and 6035 to 6108 for its decode of hello_full. The least of seven
// processes is the shallowest placement the seeds gave, as PerOp takes the
// least of its rounds; the median of five still differed by one step.
// Only the small loops need it: on the snapshots the lookups are
// hundredths of a percent.
var SeedSensitive = regexp.MustCompile(`/impl=fxamacker/`)

// Classes are the workbench's classes, the last one taking the rest.
var Classes = []Class{
	{`msg=response_snapshot_5000$`, 4, 0},
	{`msg=response_snapshot_500$`, 10, 0},
	{`msg=response_screenshot_256k`, 50, 0},
	{`msg=response_bounds_64$`, 100, 7},
	{`^Benchmark(Gate|Session)/`, 10, 0},
	{`.`, 2000, 7},
}

// The environment variables support.Run reads in a count (support.CountEnv
// and the two selecting a class's benchmarks).
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
}

// Result is a count run: its rows in the order they ran and what the
// binary printed as its cpu.
type Result struct {
	Rows []Row
	CPU  string
}

// Run counts the benchmarks of o.Binary matching o.Bench, one valgrind
// process per class, and Class.Reseed processes in all for the rows of
// SeedSensitive.
func Run(ctx context.Context, o Options) (*Result, error) {
	classes := o.Classes
	if classes == nil {
		classes = Classes
	}
	res := &Result{}
	var before []string
	for i, c := range classes {
		start := time.Now()
		skip := strings.Join(before, "|")
		before = append(before, "(?:"+c.Pattern+")")
		p, err := runClass(ctx, o, c, filepath.Join(o.Dir, "cg"+strconv.Itoa(i)), skip, "")
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
		if err := reseed(ctx, o, c, i, skip, p); err != nil {
			return nil, err
		}
		for _, name := range p.names {
			l := p.perOp[name]
			row := Row{Name: name, N: l.N, Instructions: l.PerOp, Allocs: -1, Bytes: -1}
			if a, ok := allocs[name]; ok {
				row.Allocs, row.Bytes = a[0], a[1]
			}
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

// process is one valgrind process's count.
type process struct {
	names          []string
	perOp          map[string]Loop
	stdout, stderr string
}

// runClass counts, in one valgrind process, the benchmarks of class c
// (those matching c.Pattern and not skip) that match also, if not empty.
func runClass(ctx context.Context, o Options, c Class, base, skip, also string) (*process, error) {
	cmd := exec.CommandContext(ctx, o.Valgrind, "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
		"--dump-instr=no", "--dump-line=no", "--callgrind-out-file="+base,
		o.Binary, "-test.run=^$", "-test.bench="+o.Bench, "-test.benchtime="+strconv.Itoa(c.N)+"x", "-test.count="+strconv.Itoa(Rounds))
	cmd.Env = append(os.Environ(), Env...)
	cmd.Env = append(cmd.Env, envCount+"=callgrind", envOnly+"="+c.Pattern, envSkip+"="+skip, envAlso+"="+also)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s under valgrind (class %s, n=%d): %v\n%s\n%s", o.Binary, c.Pattern, c.N, err, tail(stdout.String()), tail(stderr.String()))
	}
	dumps, err := ReadDumps(base)
	if err != nil {
		return nil, err
	}
	for i := range dumps {
		if OneThread.MatchString(dumps[i].Name) {
			dumps[i].Ir = dumps[i].Busiest
		}
	}
	names, perOp, err := PerOp(dumps)
	if err != nil {
		return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
	}
	return &process{names, perOp, stdout.String(), stderr.String()}, nil
}

// reseed counts the rows of p that match SeedSensitive in c.Reseed-1 more
// processes, each with its own map hash seed, and sets their count in p
// to the least of all.
func reseed(ctx context.Context, o Options, c Class, class int, skip string, p *process) error {
	counts := map[string][]float64{}
	for _, name := range p.names {
		if SeedSensitive.MatchString(name) {
			counts[name] = []float64{p.perOp[name].PerOp}
		}
	}
	if len(counts) == 0 {
		return nil
	}
	for k := 1; k < c.Reseed; k++ {
		q, err := runClass(ctx, o, c, filepath.Join(o.Dir, fmt.Sprintf("cg%d-seed%d", class, k)), skip, SeedSensitive.String())
		if err != nil {
			return err
		}
		for name := range counts {
			l, ok := q.perOp[name]
			if !ok {
				return fmt.Errorf("class %s: %s missing from reseeded process %d", c.Pattern, name, k)
			}
			counts[name] = append(counts[name], l.PerOp)
		}
	}
	for name, v := range counts {
		l := p.perOp[name]
		l.PerOp = slices.Min(v)
		p.perOp[name] = l
	}
	return nil
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
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), allocsPrefix)
		if !ok {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("allocation line %q: want name, b.N, allocations and bytes", sc.Text())
		}
		n, err1 := strconv.Atoi(f[1])
		a, err2 := strconv.ParseUint(f[2], 10, 64)
		b, err3 := strconv.ParseUint(f[3], 10, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("allocation line %q: %v", sc.Text(), err)
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
