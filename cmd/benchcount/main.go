// Command benchcount is the workbench's deterministic tier (make
// micro-count, make micro-check; see bench/count):
//
//	benchcount run -bin bench.test [-bench regexp] [-o counts.txt] [-commit id] [-list file] [-j n]
//	    count the instructions of each benchmark's timed loop under
//	    valgrind and write them as Go benchmark text; with -list (the
//	    output of a quick run, -test.benchtime 1x), the count classes
//	    none of the listed benchmarks fall in are not run; -j (the number
//	    of CPUs) valgrind processes of a class's median run at once
//	benchcount check -baseline baseline-counts.txt [-recount bench.test] counts.txt
//	    exit 1, with a table, when a row of ours grew more than 2 % in
//	    instructions/op or est-cycles/op or at all in allocs/op or B/op
//	    (a baseline without est-cycles/op gates the rest; the peers' rows are listed,
//	    not gated); with -recount, such rows are counted once more in a
//	    new process first and the lesser count stands
//	benchcount same counts-a.txt counts-b.txt
//	    exit 1 unless two runs agree within 0.5 % on every row
//
// Exit status 2 on a usage or run error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wirebench/wirebench/bench/count"
)

// errFailed is a comparison that failed: exit status 1.
var errFailed = errors.New("failed")

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, errFailed):
		os.Exit(1)
	case err != nil:
		fmt.Fprintf(os.Stderr, "benchcount: %v\n", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: benchcount run|check|same ... (go doc ./cmd/benchcount)")
	}
	switch args[0] {
	case "run":
		return runCounts(args[1:], stderr)
	case "check":
		return check(args[1:], stdout)
	case "same":
		return same(args[1:], stdout)
	}
	return fmt.Errorf("unknown command %q: want run, check or same", args[0])
}

func runCounts(args []string, log io.Writer) error {
	fl := flag.NewFlagSet("benchcount run", flag.ContinueOnError)
	bin := fl.String("bin", "", "the test `binary` (go test -c)")
	bench := fl.String("bench", count.Counted, "the benchmarks, as go test -bench takes them")
	out := fl.String("o", "", "write the counts to `file` (default stdout)")
	commit := fl.String("commit", "", "the commit, for the header")
	vg := fl.String("valgrind", "valgrind", "the valgrind `command`")
	parallel := fl.Int("j", runtime.NumCPU(), "how many valgrind processes of a class's median run at once")
	list := fl.String("list", "", "go test output of a quick run of the same benchmarks (`file`): the classes it lists none of are not run")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *bin == "" || fl.NArg() > 0 {
		return errors.New("usage: benchcount run -bin bench.test [-bench regexp] [-o file] [-commit id] [-list file]")
	}
	var names []string
	if *list != "" {
		data, err := os.ReadFile(*list)
		if err != nil {
			return err
		}
		names = count.ListedNames(string(data))
	}
	binary, err := filepath.Abs(*bin) // valgrind looks a bare name up in PATH
	if err != nil {
		return err
	}
	version, err := exec.Command(*vg, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %v (make micro-count installs valgrind)", *vg, err)
	}
	dir, err := os.MkdirTemp("", "benchcount")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res, err := count.Run(context.Background(), count.Options{Binary: binary, Bench: *bench, Valgrind: *vg, Dir: dir, Log: log, Names: names, Parallel: *parallel})
	if err != nil {
		return err
	}
	cfg := []count.Config{
		{Key: "goos", Value: runtime.GOOS},
		{Key: "goarch", Value: runtime.GOARCH},
		{Key: "cpu", Value: res.CPU},
		{Key: "counter", Value: strings.TrimSpace(string(version)) + " callgrind, Ir of the timed loop: (min I(n) - min I(1))/(n-1) over the rounds after the first (3 rounds, 6 for fxamacker's small rows); fxamacker's sync.Map lookups at the top of their trie; est-cycles: " + strings.Join(count.CacheSim, " ") + ", L1 hits + 5 LL hits + 35 RAM, + B/op x the est-cycles per byte scanned of a collection after the loop (GOGC=100)"},
		{Key: "runtime", Value: strings.Join(count.Env, " ")},
	}
	if *commit != "" {
		cfg = append(cfg, count.Config{Key: "commit", Value: *commit})
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return count.Write(w, cfg, res.Rows)
}

func check(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("benchcount check", flag.ContinueOnError)
	baseline := fl.String("baseline", "reports/micro/baseline-counts.txt", "the stored counts `file`")
	all := fl.Bool("all", false, "list every row, not only the failed ones")
	recount := fl.String("recount", "", "count the failed rows again with this test `binary` before failing (the lesser count stands)")
	vg := fl.String("valgrind", "valgrind", "the valgrind `command` of -recount")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return errors.New("usage: benchcount check [-baseline file] [-all] [-recount bench.test] counts.txt")
	}
	base, err := count.ReadFile(*baseline)
	if err != nil {
		return fmt.Errorf("%v (make baseline-counts records one)", err)
	}
	latest, err := count.ReadFile(fl.Arg(0))
	if err != nil {
		return err
	}
	changes := count.Check(base, latest, count.MaxGrowth)
	failed := count.Failed(changes)
	if failed && *recount != "" {
		// What else valgrind counts in a process only ever adds: a row
		// that grew is counted once more, in a new process, and the
		// lesser count stands. A real regression shows in both.
		var names []string
		for _, c := range changes {
			if c.Failed {
				names = append(names, c.Name)
			}
		}
		fmt.Fprintf(stdout, "micro-check: %d row(s) over the limit; counting them again in a new process\n", len(names))
		again, err := recountRows(*recount, *vg, count.BenchRegexp(names), stdout)
		if err != nil {
			return err
		}
		latest = count.Least(latest, again)
		changes = count.Check(base, latest, count.MaxGrowth)
		failed = count.Failed(changes)
	}
	count.WriteTable(stdout, changes, *all)
	if failed {
		fmt.Fprintf(stdout, "micro-check: FAILED against %s: instructions/op and est-cycles/op may grow at most %.0f%%, allocs/op and B/op not at all; a deliberate change re-records with make baseline-counts\n", *baseline, 100*count.MaxGrowth)
		return errFailed
	}
	fmt.Fprintf(stdout, "micro-check: %d rows within %.0f%% of %s in instructions and est-cycles, no allocation or byte per op added\n", len(latest), 100*count.MaxGrowth, *baseline)
	return nil
}

// recountRows counts the benchmarks matching bench again with the test
// binary bin.
func recountRows(bin, vg, bench string, log io.Writer) ([]count.Row, error) {
	binary, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchcount")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res, err := count.Run(context.Background(), count.Options{Binary: binary, Bench: bench, Valgrind: vg, Dir: dir, Log: log, Parallel: runtime.NumCPU()})
	if err != nil {
		return nil, err
	}
	return res.Rows, nil
}

func same(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return errors.New("usage: benchcount same counts-a.txt counts-b.txt")
	}
	a, err := count.ReadFile(args[0])
	if err != nil {
		return err
	}
	b, err := count.ReadFile(args[1])
	if err != nil {
		return err
	}
	changes, ok := count.Same(a, b, count.MaxSpread)
	count.WriteTable(stdout, changes, !ok)
	worst, worstCycles := 0.0, 0.0
	for _, c := range changes {
		worst = max(worst, c.InstrChange, -c.InstrChange)
		worstCycles = max(worstCycles, c.CycleChange, -c.CycleChange)
	}
	if !ok {
		fmt.Fprintf(stdout, "the two runs differ by more than ±%.1f%% (largest %.3f%% in instructions, %.3f%% in est-cycles)\n", 100*count.MaxSpread, 100*worst, 100*worstCycles)
		return errFailed
	}
	fmt.Fprintf(stdout, "%d rows agree within ±%.1f%%: the largest difference is %.3f%% in instructions, %.3f%% in est-cycles\n", len(changes), 100*count.MaxSpread, 100*worst, 100*worstCycles)
	return nil
}
