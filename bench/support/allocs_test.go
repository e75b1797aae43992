//go:build !race

// Allocation counts. Left out of race builds: the race detector adds
// allocations of its own and makes sync.Pool drop items at random, so a
// count taken there means nothing. make test runs them in the plain run.

package support

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

var allocSink [][]byte

// allocating allocates k objects of 64 bytes per iteration, b.N times,
// inside a counted loop.
func allocating(k int) func(b *testing.B) {
	return func(b *testing.B) {
		allocSink = make([][]byte, k)
		c := CountAllocs(b)
		for i := 0; i < b.N; i++ {
			for j := 0; j < k; j++ {
				allocSink[j] = make([]byte, 64)
			}
		}
		c.Stop()
	}
}

// shortBenchtime makes testing.Benchmark run 200 iterations, not a second.
func shortBenchtime(t *testing.T) {
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	if err := flag.Set("test.benchtime", "200x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.benchtime", old) })
}

func TestCountAllocsExact(t *testing.T) {
	shortBenchtime(t)
	var out bytes.Buffer
	allocOut = &out
	defer func() { allocOut = os.Stdout }()
	for _, k := range []int{0, 1, 3} {
		// The counts are process-wide (runtime.ReadMemStats): a stray
		// allocation by the runtime or the test framework lands in a run
		// now and then (the collection before each counted loop wakes the
		// runtime's background goroutines), so a count gets three tries,
		// and the test fails when none of them keeps every check.
		var problems []string
		for try := 0; try < 3; try++ {
			if problems = countAllocsExact(t, &out, k); len(problems) == 0 {
				break
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}

// countAllocsExact runs k allocations per iteration through Run and
// CountAllocs and returns what did not come out as k allocations of 64
// bytes.
func countAllocsExact(t *testing.T, out *bytes.Buffer, k int) (problems []string) {
	out.Reset()
	var perIter [2]float64
	r := testing.Benchmark(func(b *testing.B) {
		Run(b, "", func(b *testing.B) {
			allocating(k)(b)
		})
		Run(b, "", func(b *testing.B) {
			c := CountAllocs(b)
			for i := 0; i < b.N; i++ {
				for j := 0; j < k; j++ {
					allocSink = append(allocSink[:0], make([]byte, 64))
				}
			}
			c.Stop()
			perIter[0], perIter[1] = c.PerOp()
		})
	})
	if r.N == 0 {
		t.Fatalf("k=%d: the benchmark did not run", k)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("k=%d: %d allocation lines, want 2 (one per sub-benchmark):\n%s", k, len(lines), out.String())
	}
	// A stray allocation during the 200 iterations shows as a few
	// hundredths, so allow up to 2 of them.
	near := func(got float64, want int, per int) bool {
		return got >= float64(want) && got <= float64(want)+2.0*float64(per)/200
	}
	for _, l := range lines {
		f := strings.Fields(l) // testing.Benchmark names nothing: "allocations <allocs> <bytes>"
		if len(f) != 3 || f[0] != "allocations" {
			problems = append(problems, fmt.Sprintf("k=%d: line %q", k, l))
			continue
		}
		a, err1 := strconv.ParseFloat(f[1], 64)
		by, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || !near(a, k, 1) || !near(by, 64*k, 1024) {
			problems = append(problems, fmt.Sprintf("k=%d: line %q, want %d allocations of 64 bytes", k, l, k))
		}
	}
	if !near(perIter[0], k, 1) || !near(perIter[1], 64*k, 1024) {
		problems = append(problems, fmt.Sprintf("k=%d: PerOp = %v allocs, %v bytes", k, perIter[0], perIter[1]))
	}
	return problems
}

func TestCountAllocsWithoutStop(t *testing.T) {
	shortBenchtime(t)
	var out bytes.Buffer
	allocOut = &out
	defer func() { allocOut = os.Stdout }()
	testing.Benchmark(func(b *testing.B) {
		Run(b, "", func(b *testing.B) {
			CountAllocs(b)
			for i := 0; i < b.N; i++ {
				allocSink = append(allocSink[:0], make([]byte, 64), make([]byte, 64))
			}
		})
		Run(b, "", func(b *testing.B) {
			b.Skip("skipped: no line")
			CountAllocs(b)
		})
	})
	// The count ends when the function returns, so testing's own work
	// between the loop and the cleanups adds a little: allow 0.05 a loop.
	var a, by float64
	if n, err := fmt.Sscanf(out.String(), "allocations  %g %g\n", &a, &by); n != 2 || err != nil ||
		strings.Count(out.String(), "\n") != 1 || a < 2 || a > 2.05 || by < 128 || by > 140 {
		t.Errorf("output %q, want one line of 2 allocations and 128 bytes", out.String())
	}
}

func TestPerOp(t *testing.T) {
	for _, c := range []struct {
		v    uint64
		n    int
		want string
	}{{0, 10, "0"}, {30, 10, "3"}, {4553, 10, "455.3"}, {1, 3, "0.33"}, {2, 3, "0.67"}, {7, 0, "7"}} {
		if got := perOp(c.v, c.n); got != c.want {
			t.Errorf("perOp(%d, %d) = %q, want %q", c.v, c.n, got, c.want)
		}
	}
}

// BenchmarkAllocsSelfTest is run by TestAllocationLines in a child
// process; elsewhere it skips, so it never joins a real benchmark run.
func BenchmarkAllocsSelfTest(b *testing.B) {
	if os.Getenv("WIREBENCH_ALLOCS_SELFTEST") != "1" {
		b.Skip("run by TestAllocationLines")
	}
	for _, k := range []int{0, 2} {
		Run(b, "allocs="+strconv.Itoa(k), allocating(k))
	}
}

var allocLine = regexp.MustCompile(`^allocations (BenchmarkAllocsSelfTest/allocs=(\d+)) ([0-9.]+) ([0-9.]+)$`)

// TestAllocationLines runs BenchmarkAllocsSelfTest through the real
// benchmark driver in a child process (this test binary) and checks the
// output: one allocation line per result line, after it and never inside
// it, with the right counts, and benchfmt reads the whole output as the
// results alone.
func TestAllocationLines(t *testing.T) {
	if os.Getenv("WIREBENCH_ALLOCS_SELFTEST") == "1" {
		t.Skip("in the child")
	}
	for _, v := range []bool{false, true} {
		args := []string{"-test.run=^$", "-test.bench=^BenchmarkAllocsSelfTest$", "-test.benchtime=20x", "-test.count=2", "-test.cpu=1,2"}
		if v {
			args = append(args, "-test.v")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "WIREBENCH_ALLOCS_SELFTEST=1")
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("child: %v\n%s\n%s", err, out, ee.Stderr)
			}
			t.Fatal(err)
		}
		results := map[string]int{} // results printed so far, by name without the -cpu suffix
		lines := map[string]int{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			l := sc.Text()
			if strings.Contains(l, "allocations") && !strings.HasPrefix(l, "allocations ") {
				t.Errorf("-v=%v: allocation line merged into another: %q", v, l)
			}
			if strings.HasPrefix(l, "BenchmarkAllocsSelfTest/") && strings.Contains(l, "ns/op") {
				name := strings.Fields(l)[0]
				name = strings.TrimSuffix(name, "-2")
				results[name]++
				continue
			}
			m := allocLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			lines[m[1]]++
			if lines[m[1]] > results[m[1]] {
				t.Errorf("-v=%v: allocation line %q before its result line", v, l)
			}
			k, _ := strconv.Atoi(m[2])
			// Counts are process-wide: allow two stray runtime allocations
			// (of up to 512 bytes each) over the 20 iterations.
			a, err1 := strconv.ParseFloat(m[3], 64)
			by, err2 := strconv.ParseFloat(m[4], 64)
			if err1 != nil || err2 != nil || a < float64(k) || a > float64(k)+0.1 || by < float64(64*k) || by > float64(64*k)+1024.0/20 {
				t.Errorf("-v=%v: %q: want %d allocations and %d bytes", v, l, k, 64*k)
			}
		}
		for _, name := range []string{"BenchmarkAllocsSelfTest/allocs=0", "BenchmarkAllocsSelfTest/allocs=2"} {
			if results[name] != 4 || lines[name] != 4 {
				t.Errorf("-v=%v: %s: %d result lines, %d allocation lines, want 4 and 4 (-count 2 x -cpu 1,2)\n%s", v, name, results[name], lines[name], out)
			}
		}
		// benchfmt sees the 8 results and nothing else.
		r := benchfmt.NewReader(bytes.NewReader(out), "child")
		n := 0
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.Result:
				n++
				if strings.Contains(string(rec.Name), "allocations") {
					t.Errorf("benchfmt read an allocation line as result %s", rec.Name)
				}
			case *benchfmt.SyntaxError:
				t.Errorf("-v=%v: benchfmt: %v", v, rec)
			}
		}
		if n != 8 {
			t.Errorf("-v=%v: benchfmt read %d results, want 8", v, n)
		}
	}
}
