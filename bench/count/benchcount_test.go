package count

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeDump writes a callgrind dump as callgrind writes one (the lines
// ReadDumps reads, among others it skips).
func writeDump(t *testing.T, base string, seq int, trigger string, ir uint64) {
	t.Helper()
	text := fmt.Sprintf("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 1\ncmd:  ./bench.test\npart: %d\n\n"+
		"desc: I1 cache: \ndesc: Timerange: Basic block 0 - 10\ndesc: Trigger: %s\n\npositions: line\nevents: Ir\n"+
		"summary: %d\n\nfn=(1) main\n0 %d\n\ntotals: %d\n", seq, trigger, ir, ir, ir)
	if err := os.WriteFile(fmt.Sprintf("%s.%d", base, seq), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadDumpsAndPerOp(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cg0")
	// Two rounds of two benchmarks; the dump numbers sort numerically
	// (10 after 9), and the program's own dump is skipped.
	seq := 0
	dump := func(name string, n int, ir uint64) {
		seq++
		writeDump(t, base, seq, fmt.Sprintf("Client Request: wirebench %s %d", name, n), ir)
	}
	for round := range 2 {
		warm := uint64(100 * (1 - round)) // the first round's b.N=1 pays a warm-up
		dump("BenchmarkA/msg=x", 1, 1000+warm)
		dump("BenchmarkA/msg=x", 11, 1000+10*500)
		dump("BenchmarkB/msg=y", 1, 50+warm)
		dump("BenchmarkB/msg=y", 401, 50+400*7)
	}
	dump("BenchmarkC/msg=z", 1, 10)
	dump("BenchmarkC/msg=z", 3, 10+2*1000001)
	writeDump(t, base, 99, "Program termination", 29)
	if err := os.WriteFile(base, []byte("not a dump"), 0o644); err != nil {
		t.Fatal(err)
	}
	dumps, err := ReadDumps(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 10 || dumps[9].Seq != 10 || dumps[9].Name != "BenchmarkC/msg=z" || dumps[9].N != 3 || dumps[9].Ir != 2000012 {
		t.Fatalf("dumps %+v", dumps)
	}
	names, perOp, err := PerOp(dumps)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"BenchmarkA/msg=x", "BenchmarkB/msg=y", "BenchmarkC/msg=z"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	for name, want := range map[string]Loop{"BenchmarkA/msg=x": {11, 500}, "BenchmarkB/msg=y": {401, 7}, "BenchmarkC/msg=z": {3, 1000001}} {
		if perOp[name] != want {
			t.Errorf("%s: %+v, want %+v", name, perOp[name], want)
		}
	}
}

func TestPerOpNeedsTwoCounts(t *testing.T) {
	if _, _, err := PerOp([]Dump{{Name: "BenchmarkA", N: 1, Ir: 5}}); err == nil {
		t.Error("a benchmark run only with b.N=1 gave a count")
	}
	if _, _, err := PerOp([]Dump{{Name: "BenchmarkA", N: 10, Ir: 5}}); err == nil {
		t.Error("a run of b.N=10 without one of b.N=1 gave a count")
	}
}

func TestReadDumpRefusesBrokenDumps(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{
		"desc: Trigger: Client Request: wirebench BenchmarkA\ntotals: 5\n",       // no b.N
		"desc: Trigger: Client Request: wirebench BenchmarkA x\ntotals: 5\n",     // b.N not a number
		"desc: Trigger: Client Request: wirebench BenchmarkA 10\n",               // no totals
		"desc: Trigger: Client Request: wirebench BenchmarkA 10\ntotals: many\n", // totals not a number
	} {
		base := filepath.Join(dir, fmt.Sprint("cg", i))
		if err := os.WriteFile(base+".1", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadDumps(base); err == nil {
			t.Errorf("%q: no error", text)
		}
	}
}

var rows = []Row{
	{Name: "BenchmarkDecode/impl=codec/msg=request_tap", N: 400, Instructions: 530.8, Cycles: 912.5, Allocs: 1, Bytes: 48},
	{Name: "BenchmarkDecode/impl=fxamacker/msg=response_snapshot_500", N: 10, Instructions: 5551703.8, Cycles: 8012345.6, Allocs: 2208, Bytes: 113041.6},
	{Name: "BenchmarkSession/op=request_roundtrip", N: 10, Instructions: 420268.6, Cycles: -1, Allocs: -1, Bytes: -1},
}

func TestWriteRead(t *testing.T) {
	var buf bytes.Buffer
	cfg := []Config{{"goos", "linux"}, {"runtime", "GOMAXPROCS=1 GOGC=off"}}
	if err := Write(&buf, cfg, rows); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"Unit instructions/op assume=exact\n", "Unit allocs/op assume=exact\n",
		"BenchmarkDecode/impl=codec/msg=request_tap\t400\t530.8 instructions/op\t912.5 est-cycles/op\t1 allocs/op\t48 B/op\n",
		"BenchmarkSession/op=request_roundtrip\t10\t420268.6 instructions/op\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "Unit B/op") {
		t.Error("B/op declared exact")
	}
	got, gotCfg, err := Read(strings.NewReader(text), "counts.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, rows)
	}
	if len(gotCfg) < 2 || gotCfg[0] != cfg[0] || gotCfg[1] != cfg[1] {
		t.Errorf("config %v, want %v first", gotCfg, cfg)
	}
}

func with(r Row, instr, allocs float64) Row {
	r.Instructions, r.Allocs = instr, allocs
	return r
}

func TestCheck(t *testing.T) {
	latest := []Row{
		with(rows[0], 530.8*1.0199, 1),                                     // +1.99 %: within
		with(rows[1], 5551703.8*1.021, 2208),                               // +2.1 %: fails
		with(rows[2], 420268.6*0.5, -1),                                    // faster, not counted allocs
		{Name: "BenchmarkNew", N: 1, Instructions: 1, Allocs: 0, Bytes: 0}, // new: listed
	}
	changes := Check(rows, latest, MaxGrowth)
	failed := map[string]bool{}
	for _, c := range changes {
		failed[c.Name] = c.Failed
	}
	// The peer's row grew past the limit: listed, not failed.
	want := map[string]bool{rows[0].Name: false, rows[1].Name: false, rows[2].Name: false, "BenchmarkNew": false}
	if !reflect.DeepEqual(failed, want) {
		t.Errorf("failed %v, want %v", failed, want)
	}
	// Ours past the limit fails.
	if c := Check(rows[:1], []Row{with(rows[0], 530.8*1.021, 1)}, MaxGrowth); !Failed(c) || !strings.Contains(c[0].Reasons[0], "instructions +2.1%") {
		t.Errorf("ours 2.1 %% more: %+v", c)
	}
	// One allocation more fails at the same instruction count.
	if c := Check(rows[:1], []Row{with(rows[0], rows[0].Instructions, 2)}, MaxGrowth); !Failed(c) || !strings.Contains(c[0].Reasons[0], "allocs 1 -> 2") {
		t.Errorf("an added allocation: %+v", c)
	}
	// More bytes fail too, at the same instructions and allocations.
	more := with(rows[0], rows[0].Instructions, 1)
	more.Bytes = 96
	if c := Check(rows[:1], []Row{more}, MaxGrowth); !Failed(c) || !strings.Contains(c[0].Reasons[0], "B/op 48 -> 96") {
		t.Errorf("bytes doubled: %+v", c)
	}
	more.Bytes = 32
	if c := Check(rows[:1], []Row{more}, MaxGrowth); Failed(c) {
		t.Errorf("fewer bytes: %+v", c)
	}
	// A row missing from the run is listed, not failed.
	c := Check(rows, rows[:1], MaxGrowth)
	if Failed(c) || len(c) != 3 || !c[1].MissingLatest {
		t.Errorf("a narrowed run: %+v", c)
	}
	var buf bytes.Buffer
	WriteTable(&buf, changes, false)
	table := buf.String()
	if !strings.Contains(table, "Decode/impl=fxamacker/msg=response_snapshot_500") || !strings.Contains(table, "+2.10%") ||
		!strings.Contains(table, "a peer: not gated") || strings.Contains(table, "request_tap") {
		t.Errorf("table of the failed rows:\n%s", table)
	}
}

func TestSame(t *testing.T) {
	b := []Row{with(rows[0], 530.8*1.0049, 1), with(rows[1], 5551703.8*0.996, 2208), rows[2]}
	if _, ok := Same(rows, b, MaxSpread); !ok {
		t.Error("runs 0.5 % apart differ")
	}
	b[1].Instructions = 5551703.8 * 0.994
	if _, ok := Same(rows, b, MaxSpread); ok {
		t.Error("runs 0.6 % apart agree")
	}
	if _, ok := Same(rows, rows[:2], MaxSpread); ok {
		t.Error("runs of other rows agree")
	}
	b = []Row{rows[0], rows[1], with(rows[2], rows[2].Instructions, 3)}
	if _, ok := Same(rows, b, MaxSpread); ok {
		t.Error("runs with other allocs/op agree")
	}
}

func TestAllocsPerOp(t *testing.T) {
	// Two rounds; the writer's buffer grows once per run (one allocation
	// of 4096 bytes), the loop allocates 2 times 48 bytes per iteration.
	stderr := "==1== Callgrind\n" +
		"wirebench-allocs BenchmarkA 1 9 4192\nwirebench-allocs BenchmarkA 11 27 4576\n" +
		"wirebench-allocs BenchmarkA 1 3 4192\nwirebench-allocs BenchmarkA 11 23 5152\n" +
		"wirebench-allocs BenchmarkB 1 0 0\nwirebench-allocs BenchmarkB 4 1 3\n"
	got, err := allocsPerOp(stderr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"BenchmarkA": {2, 96}, "BenchmarkB": {0.33, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := allocsPerOp("wirebench-allocs BenchmarkA 1 x 0\n"); err == nil {
		t.Error("a malformed line read")
	}
	if got, err := allocsPerOp("nothing\n"); err != nil || len(got) != 0 {
		t.Errorf("no lines: %v %v", got, err)
	}
}

// TestPerOpTakesTheLeast: of the rounds after the first, each run's least
// count is taken (what else valgrind counts only ever adds).
func TestPerOpTakesTheLeast(t *testing.T) {
	dumps := []Dump{
		{Name: "A", N: 1, Ir: 900}, {Name: "A", N: 11, Ir: 9000}, // warm-up: left out
		{Name: "A", N: 1, Ir: 100}, {Name: "A", N: 11, Ir: 3100}, // the n run preempted
		{Name: "A", N: 1, Ir: 130}, {Name: "A", N: 11, Ir: 1100}, // the 1 run preempted
	}
	_, perOp, err := PerOp(dumps)
	if err != nil {
		t.Fatal(err)
	}
	if got := perOp["A"]; got != (Loop{N: 11, PerOp: 100}) {
		t.Errorf("got %+v, want n=11, 100 per op", got)
	}
	if _, _, err := PerOp(append(dumps, Dump{Name: "A", N: 1, Ir: 1}, Dump{Name: "A", N: 12, Ir: 1})); err == nil {
		t.Error("rounds of different b.N gave a count")
	}
}

func TestBenchRegexpAndLeast(t *testing.T) {
	names := []string{"BenchmarkDecode/impl=codec/msg=request_tap", "BenchmarkEncode/impl=codec/msg=response_snapshot_500", "BenchmarkSession/op=request_roundtrip"}
	got := BenchRegexp(names)
	want := `^(BenchmarkDecode|BenchmarkEncode|BenchmarkSession)$/^(impl=codec|op=request_roundtrip)$/^(msg=request_tap|msg=response_snapshot_500)$`
	if got != want {
		t.Errorf("BenchRegexp:\n%s\nwant\n%s", got, want)
	}
	again := []Row{with(rows[0], 500, 1), with(rows[1], 6e6, 2000)}
	merged := Least(rows, again)
	if merged[0].Instructions != 500 || merged[1].Instructions != rows[1].Instructions || merged[1].Allocs != 2000 || merged[2] != rows[2] {
		t.Errorf("Least: %+v", merged)
	}
	if rows[0].Instructions != 530.8 {
		t.Error("Least changed its input")
	}
}

// TestReadDumpsThreads: under --separate-threads=yes a dump is a file per
// thread (base.<seq>-<thread>); ReadDumps sums them in Ir and keeps the
// busiest in Busiest (a pinned loop's count, OneThread).
func TestReadDumpsThreads(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cg0")
	writeDump(t, base, 1, "Client Request: wirebench BenchmarkFrame/op=memmove 1", 33000)
	for thread, ir := range map[string]uint64{"01": 1641883, "02": 34000, "04": 120} {
		text := fmt.Sprintf("desc: Trigger: Client Request: wirebench BenchmarkFrame/op=memmove 50\nthread: %s\ntotals: %d\n", thread, ir)
		if err := os.WriteFile(base+".2-"+thread, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dumps, err := ReadDumps(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 2 || dumps[1].Seq != 2 || dumps[1].N != 50 || dumps[1].Ir != 1641883+34000+120 || dumps[1].Busiest != 1641883 || dumps[0].Busiest != 33000 {
		t.Fatalf("dumps %+v", dumps)
	}
	if !OneThread.MatchString("BenchmarkFrame/op=memmove/msg=x") || OneThread.MatchString("BenchmarkSession/op=request_roundtrip") {
		t.Error("OneThread: Frame loops are pinned, Session ones are not")
	}
	// Two threads' files of one dump number must name the same loop.
	if err := os.WriteFile(base+".2-05", []byte("desc: Trigger: Client Request: wirebench BenchmarkOther 50\ntotals: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDumps(base); err == nil {
		t.Error("dump 2 of two loops read without error")
	}
}

// fakeValgrind stands for valgrind in TestRunTakesTopOfTrie: each process
// writes the dumps, with instruction-level counts, of three rounds at
// b.N=1 and 11 of a codec row (100 instructions an op) and of a fxamacker
// row that costs as much plus two sync.Map lookups an op, each $DEPTH
// levels down a trie: 3 instructions a call, 2 an iteration of the loop,
// 1 a step down (5 at the top, 3 a level more).
const fakeValgrind = `#!/bin/sh
for a; do case $a in --callgrind-out-file=*) base=${a#*=};; esac; done
k=$(cat "$COUNTER" 2>/dev/null || echo 0); echo $((k+1)) > "$COUNTER"
seq=0
write() {
	seq=$((seq+1)); n=$2; c=$((2*n)); x=$((c*(DEPTH-1)))
	case $1 in *fxamacker*) load=$((3*c+2*(c+x)+x));; *) load=0;; esac
	{
		printf 'desc: Trigger: Client Request: wirebench %s %s\npositions: instr\nevents: Ir\n' "$1" "$n"
		printf 'fn=(1) github.com/fxamacker/cbor/v2.encode\n0x1000 %s\n' $((100*n))
		if [ $load -gt 0 ]; then
			printf 'cfn=(2) internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load\ncalls=%s 0x2000\n+4 %s\n' $c $load
			printf 'fn=(2)\n0x2000 %s\n+1 %s\n*\n+1 %s\n+1 %s\n+1 %s\n' $c $c $c $((c+x)) $((c+x))
			[ $x -eq 0 ] || printf -- '+2 %s\n' $x
		fi
		printf 'totals: %s\n' $((100*n+load))
	} > "$base.$seq-01"
}
for r in 1 2 3; do
	for impl in codec fxamacker; do write BenchmarkEncode/impl=$impl/msg=x 1; write BenchmarkEncode/impl=$impl/msg=x 11; done
done
`

// fakeRun runs Run with the classes and the valgrind script, and returns
// its rows' instructions/op by name and how many valgrind processes ran.
func fakeRun(t *testing.T, script string, classes []Class) (map[string]float64, string, error) {
	t.Helper()
	return fakeRunWith(t, script, Options{Classes: classes})
}

// fakeRunWith is fakeRun with more options (Binary, Bench, Valgrind and
// Dir are set).
func fakeRunWith(t *testing.T, script string, o Options) (map[string]float64, string, error) {
	t.Helper()
	dir := t.TempDir()
	vg := filepath.Join(dir, "valgrind")
	if err := os.WriteFile(vg, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(dir, "counter")
	t.Setenv("COUNTER", counter)
	o.Binary, o.Bench, o.Valgrind, o.Dir = "bench.test", ".", vg, dir
	res, err := Run(context.Background(), o)
	n, _ := os.ReadFile(counter)
	if err != nil {
		return nil, strings.TrimSpace(string(n)), err
	}
	got := map[string]float64{}
	for _, r := range res.Rows {
		got[r.Name] = r.Instructions
	}
	return got, strings.TrimSpace(string(n)), nil
}

// TestRunTakesTopOfTrie: a seed-sensitive row is counted with its
// sync.Map lookups at the top of the trie whatever depth the process's
// seed put them at, in one process; the other rows are counted as they
// ran. A process whose dumps cannot tell the instructions of a level
// (each lookup exactly one level down: as many levels as calls) fails.
func TestRunTakesTopOfTrie(t *testing.T) {
	want := map[string]float64{"BenchmarkEncode/impl=codec/msg=x": 100, "BenchmarkEncode/impl=fxamacker/msg=x": 110}
	for _, depth := range []string{"1", "3", "4"} {
		t.Setenv("DEPTH", depth)
		got, processes, err := fakeRun(t, fakeValgrind, []Class{{Pattern: ".", N: 11}})
		if err != nil {
			t.Fatalf("depth %s: %v", depth, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("depth %s: rows %v, want %v", depth, got, want)
		}
		if processes != "1" {
			t.Errorf("depth %s: %s processes, want 1", depth, processes)
		}
	}
	t.Setenv("DEPTH", "2")
	if _, _, err := fakeRun(t, fakeValgrind, []Class{{Pattern: ".", N: 11}}); err == nil || !strings.Contains(err.Error(), "no dump of the run tells") {
		t.Errorf("lookups one level down each, no level measured: %v", err)
	}
}

// fakeHeapValgrind stands for valgrind in TestRunTakesMedian: each process
// writes the dumps of three rounds, at b.N=1 and 11, of a codec row and a
// fxamacker encode row (unless WIREBENCH_COUNT_ALSO narrows it to the
// heap-sensitive rows) and of a fxamacker decode row whose per-op count is
// the next of $HEAP.
const fakeHeapValgrind = `#!/bin/sh
for a; do case $a in --callgrind-out-file=*) base=${a#*=};; esac; done
k=$(cat "$COUNTER" 2>/dev/null || echo 0); echo $((k+1)) > "$COUNTER"
per=$(echo "$HEAP" | cut -d' ' -f$((k+1)))
seq=0
write() { seq=$((seq+1)); printf 'desc: Trigger: Client Request: wirebench %s %s\ntotals: %s\n' "$1" "$2" "$3" > "$base.$seq-01"; }
for r in 1 2 3; do
	if [ -z "$WIREBENCH_COUNT_ALSO" ]; then
		write BenchmarkDecode/impl=codec/msg=x 1 100; write BenchmarkDecode/impl=codec/msg=x 11 1100
		write BenchmarkEncode/impl=fxamacker/msg=x 1 100; write BenchmarkEncode/impl=fxamacker/msg=x 11 $((100+10*per))
	fi
	write BenchmarkDecode/impl=fxamacker/msg=x 1 100; write BenchmarkDecode/impl=fxamacker/msg=x 11 $((100+10*per))
done
`

// TestRunTakesMedian: a class with Median counts the heap-sensitive rows
// in that many processes of their own and keeps the median of those; the
// other rows come from the class's process alone, and a class without
// Median takes no more processes.
func TestRunTakesMedian(t *testing.T) {
	t.Setenv("HEAP", "10 50 30 90 20 40 60 80")
	for _, c := range []struct {
		median    int
		processes string
		want      map[string]float64
	}{
		{7, "8", map[string]float64{"BenchmarkDecode/impl=codec/msg=x": 100, "BenchmarkEncode/impl=fxamacker/msg=x": 10, "BenchmarkDecode/impl=fxamacker/msg=x": 50}},
		{4, "5", map[string]float64{"BenchmarkDecode/impl=codec/msg=x": 100, "BenchmarkEncode/impl=fxamacker/msg=x": 10, "BenchmarkDecode/impl=fxamacker/msg=x": 40}},
		{0, "1", map[string]float64{"BenchmarkDecode/impl=codec/msg=x": 100, "BenchmarkEncode/impl=fxamacker/msg=x": 10, "BenchmarkDecode/impl=fxamacker/msg=x": 10}},
	} {
		got, processes, err := fakeRun(t, fakeHeapValgrind, []Class{{Pattern: ".", N: 11, HeapSensitive: `^BenchmarkDecode/impl=fxamacker/`, Median: c.median}})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("median of %d: rows %v, want %v", c.median, got, c.want)
		}
		if processes != c.processes {
			t.Errorf("median of %d: %s processes, want %s", c.median, processes, c.processes)
		}
	}
}

// TestRunTakesMedianInParallel: the median processes may run side by
// side (Options.Parallel); the rows come out the same.
func TestRunTakesMedianInParallel(t *testing.T) {
	t.Setenv("HEAP", strings.Repeat("30 ", 9))
	got, _, err := fakeRunWith(t, fakeHeapValgrind, Options{Parallel: 3,
		Classes: []Class{{Pattern: ".", N: 11, HeapSensitive: `^BenchmarkDecode/impl=fxamacker/`, Median: 7}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"BenchmarkDecode/impl=codec/msg=x": 100, "BenchmarkEncode/impl=fxamacker/msg=x": 30, "BenchmarkDecode/impl=fxamacker/msg=x": 30}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// fakeSlowValgrind stands for valgrind in TestRunRounds: each process
// runs the rounds -test.count asks of a fxamacker row that costs 100
// instructions an op, 79 more an op in the rounds up to $SLOW (a type
// assertion's cache still empty).
const fakeSlowValgrind = `#!/bin/sh
for a; do case $a in --callgrind-out-file=*) base=${a#*=};; -test.count=*) rounds=${a#*=};; esac; done
seq=0
write() { seq=$((seq+1)); printf 'desc: Trigger: Client Request: wirebench %s %s\ntotals: %s\n' "$1" "$2" "$3" > "$base.$seq-01"; }
r=1
while [ $r -le $rounds ]; do
	per=100; [ $r -gt $SLOW ] || per=179
	write BenchmarkDecode/impl=fxamacker/msg=x 1 $per; write BenchmarkDecode/impl=fxamacker/msg=x 11 $((11*per))
	r=$((r+1))
done
`

// TestRunRounds: a class that asks for more rounds runs them, and the
// count is the least of every round after the first.
func TestRunRounds(t *testing.T) {
	t.Setenv("SLOW", "3")
	const row = "BenchmarkDecode/impl=fxamacker/msg=x"
	for rounds, want := range map[int]float64{0: 179, 3: 179, 4: 100, 6: 100} {
		if got, _, err := fakeRun(t, fakeSlowValgrind, []Class{{Pattern: ".", N: 11, Rounds: rounds}}); err != nil || got[row] != want {
			t.Errorf("%d rounds: %v instructions/op (%v), want %v", rounds, got[row], err, want)
		}
	}
}

// TestRunSkipsUnlistedClasses: with the names of a quick run, a class
// none of them falls in runs no valgrind process; ListedNames reads those
// names from go test output.
func TestRunSkipsUnlistedClasses(t *testing.T) {
	listed := "goos: linux\nBenchmarkDecode/impl=codec/msg=x-2   \t1\t100 ns/op\nallocations: 1\n" +
		"BenchmarkDecode/impl=fxamacker/msg=x-2\t1\t200 ns/op\nBenchmarkDecode/impl=codec/msg=x-2\t1\t90 ns/op\n" +
		"BenchmarkEncode/impl=fxamacker/msg=x\t1\t50 ns/op\n--- FAIL: BenchmarkFrame\n"
	names := ListedNames(listed)
	want := []string{"BenchmarkDecode/impl=codec/msg=x", "BenchmarkDecode/impl=fxamacker/msg=x", "BenchmarkEncode/impl=fxamacker/msg=x"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("ListedNames = %q, want %q", names, want)
	}
	t.Setenv("HEAP", "10 10 10")
	classes := []Class{{Pattern: `^BenchmarkGate/`, N: 10}, {Pattern: `^BenchmarkDecode/`, N: 11}, {Pattern: `impl=codec`, N: 11}, {Pattern: `.`, N: 11}}
	got, processes, err := fakeRunWith(t, fakeHeapValgrind, Options{Classes: classes[:2], Names: names})
	if err != nil {
		t.Fatal(err)
	}
	if processes != "1" || len(got) != 3 {
		t.Errorf("%s processes, rows %v: want the Decode class's process alone", processes, got)
	}
	// A class whose rows an earlier class took runs no process either.
	if _, processes, _ = fakeRunWith(t, fakeHeapValgrind, Options{Classes: classes[1:3], Names: names[:2]}); processes != "1" {
		t.Errorf("%s processes, want 1: impl=codec's rows are in the Decode class", processes)
	}
	if _, _, err := fakeRunWith(t, fakeHeapValgrind, Options{Classes: classes[:1], Names: names}); err == nil || !strings.Contains(err.Error(), "no benchmark matched") {
		t.Errorf("no class with a listed row: %v, want no benchmark matched", err)
	}
}
