package benchcount

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Env is the runtime settings every count runs with (see the package doc).
var Env = []string{
	"GOMAXPROCS=1",
	"GOGC=off",
	"GOMEMLIMIT=4GiB",
	"GODEBUG=asyncpreemptoff=1,cpu.all=off",
}

// Class is a group of benchmarks counted with the same b.N, in one
// valgrind process: a loop's cost spans five orders of magnitude, and its
// n is chosen so that the counted run is long enough for the per-iteration
// count to swamp the loop's fixed costs and short enough to keep the tier
// within minutes and the heap (no collection) small.
type Class struct {
	Pattern string // regexp on the full benchmark name; the first class that matches wins
	N       int
}

// Classes are the workbench's classes, the last one taking the rest.
var Classes = []Class{
	{`msg=response_snapshot_5000$`, 4},
	{`msg=response_snapshot_500$`, 10},
	{`msg=response_screenshot_256k`, 20},
	{`msg=response_bounds_64$`, 100},
	{`^Benchmark(Gate|Session)/`, 10},
	{`.`, 400},
}

// The environment variables support.Run reads in a count (support.CountEnv
// and the two selecting a class's benchmarks).
const (
	envCount = "WIREBENCH_COUNT"
	envOnly  = "WIREBENCH_COUNT_ONLY"
	envSkip  = "WIREBENCH_COUNT_SKIP"
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
// process per class.
func Run(ctx context.Context, o Options) (*Result, error) {
	classes := o.Classes
	if classes == nil {
		classes = Classes
	}
	res := &Result{}
	var before []string
	for i, c := range classes {
		start := time.Now()
		base := filepath.Join(o.Dir, "cg"+strconv.Itoa(i))
		cmd := exec.CommandContext(ctx, o.Valgrind, "--tool=callgrind", "--instr-atstart=no",
			"--dump-instr=no", "--dump-line=no", "--callgrind-out-file="+base,
			o.Binary, "-test.run=^$", "-test.bench="+o.Bench, "-test.benchtime="+strconv.Itoa(c.N)+"x", "-test.count=2")
		cmd.Env = append(os.Environ(), Env...)
		cmd.Env = append(cmd.Env, envCount+"=callgrind", envOnly+"="+c.Pattern, envSkip+"="+strings.Join(before, "|"))
		before = append(before, "(?:"+c.Pattern+")")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s under valgrind (class %s, n=%d): %v\n%s\n%s", o.Binary, c.Pattern, c.N, err, tail(stdout.String()), tail(stderr.String()))
		}
		dumps, err := ReadDumps(base)
		if err != nil {
			return nil, err
		}
		names, perOp, err := PerOp(dumps)
		if err != nil {
			return nil, fmt.Errorf("class %s: %v", c.Pattern, err)
		}
		allocs, cpu := parseOutput(stdout.String())
		if res.CPU == "" {
			res.CPU = cpu
		}
		for _, name := range names {
			l := perOp[name]
			row := Row{Name: name, N: l.N, Instructions: l.Instructions, Allocs: -1, Bytes: -1}
			if a, ok := allocs[name]; ok {
				row.Allocs, row.Bytes = a[0], a[1]
			}
			res.Rows = append(res.Rows, row)
		}
		if o.Log != nil && len(names) > 0 {
			fmt.Fprintf(o.Log, "count: %3d benchmarks at n=%-4d (%s) in %.0fs\n", len(names), c.N, c.Pattern, time.Since(start).Seconds())
		}
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("no benchmark matched -bench %q (only those timed through support.CountAllocs are counted)", o.Bench)
	}
	return res, nil
}

// parseOutput reads the binary's stdout: the allocation line of each
// benchmark's last run (support.CountAllocs) and the cpu line.
func parseOutput(out string) (allocs map[string][2]float64, cpu string) {
	allocs = map[string][2]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 4 && f[0] == "allocations":
			a, err1 := strconv.ParseFloat(f[2], 64)
			b, err2 := strconv.ParseFloat(f[3], 64)
			if err1 == nil && err2 == nil {
				allocs[f[1]] = [2]float64{a, b}
			}
		case len(f) > 1 && f[0] == "cpu:" && cpu == "":
			cpu = strings.TrimSpace(strings.TrimPrefix(sc.Text(), "cpu:"))
		}
	}
	return allocs, cpu
}

func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
