package count

import (
	"os"
	"strings"
	"testing"
)

func TestEstCycles(t *testing.T) {
	events := strings.Fields("Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw")
	// 1000 accesses, 100 first-level misses of which 10 miss the last
	// level too: 900 + 5*90 + 35*10.
	totals := []uint64{600, 300, 100, 20, 50, 30, 2, 5, 3}
	if got, want := EstCycles(events, totals), uint64(900+5*90+35*10); got != want {
		t.Errorf("EstCycles = %d, want %d", got, want)
	}
	// A dump of instructions alone (no cache simulation): its Ir.
	if got := EstCycles(nil, []uint64{1234}); got != 1234 {
		t.Errorf("EstCycles of Ir alone = %d, want 1234", got)
	}
	if got := EstCycles([]string{"Ir"}, []uint64{77, 5}); got != 77 {
		t.Errorf("EstCycles with an unnamed count = %d, want 77", got)
	}
}

func TestGCPerByte(t *testing.T) {
	gcs := []Dump{
		{Name: "BenchmarkDecode/impl=codec/msg=a", N: 10, Est: 9000, GC: true},
		{Name: "BenchmarkDecode/impl=msgp/msg=a", N: 10, Est: 5000, GC: true},
		{Name: "BenchmarkDecode/impl=codec/msg=a", N: 10, Est: 8800, GC: true},
		{Name: "BenchmarkDecode/impl=codec/msg=a", N: 10, Est: 8500, GC: true},
	}
	stderr := "wirebench-allocs x 1 0 0\nwirebench-gc BenchmarkDecode/impl=codec/msg=a 10 3000\n" +
		"wirebench-gc BenchmarkDecode/impl=msgp/msg=a 10 1000\nwirebench-gc BenchmarkDecode/impl=codec/msg=a 10 4000\n" +
		"wirebench-gc BenchmarkDecode/impl=codec/msg=a 10 2000\n"
	got, err := gcPerByte(gcs, stderr)
	if err != nil {
		t.Fatal(err)
	}
	// codec: the first round's 3.0 skipped, the least of 2.2 and 4.25;
	// msgp: its one collection.
	if got["BenchmarkDecode/impl=codec/msg=a"] != 2.2 || got["BenchmarkDecode/impl=msgp/msg=a"] != 5 || len(got) != 2 {
		t.Errorf("gcPerByte = %v", got)
	}
	for _, bad := range []string{
		"wirebench-gc BenchmarkDecode/impl=codec/msg=a 10 3000\n",         // fewer lines than collections
		strings.Replace(stderr, "10 3000", "10 0", 1),                     // nothing scanned
		strings.Replace(stderr, "10 3000", "10", 1),                       // no bytes
		stderr + "wirebench-gc BenchmarkDecode/impl=msgp/msg=a 10 1000\n", // more lines than collections
	} {
		if _, err := gcPerByte(gcs, bad); err == nil {
			t.Errorf("no error for\n%s", bad)
		}
	}
}

// TestCheckCycles: est-cycles/op are gated as instructions are; a
// baseline from before the figure gates the rest and marks the rows.
func TestCheckCycles(t *testing.T) {
	base := []Row{
		{Name: "BenchmarkDecode/impl=codec/msg=a", N: 10, Instructions: 1000, Cycles: 2000, Allocs: 4, Bytes: 1000},
		{Name: "BenchmarkDecode/impl=codec/msg=b", N: 10, Instructions: 1000, Cycles: 2000, Allocs: 4, Bytes: 1000},
		{Name: "BenchmarkDecode/impl=msgp/msg=a", N: 10, Instructions: 1000, Cycles: 2000, Allocs: 4, Bytes: 1000},
	}
	latest := []Row{
		{Name: "BenchmarkDecode/impl=codec/msg=a", N: 10, Instructions: 1000, Cycles: 2050, Allocs: 4, Bytes: 1000}, // +2.5 %: fails
		{Name: "BenchmarkDecode/impl=codec/msg=b", N: 10, Instructions: 1000, Cycles: 2030, Allocs: 4, Bytes: 1000}, // +1.5 %
		{Name: "BenchmarkDecode/impl=msgp/msg=a", N: 10, Instructions: 1000, Cycles: 4000, Allocs: 4, Bytes: 1000},  // a peer
	}
	changes := Check(base, latest, MaxGrowth)
	if !changes[0].Failed || !strings.Contains(strings.Join(changes[0].Reasons, ","), "est-cycles +2.5%") {
		t.Errorf("est-cycles +2.5%%: %+v", changes[0])
	}
	if changes[1].Failed || changes[2].Failed {
		t.Errorf("within the limit, or a peer, failed: %+v %+v", changes[1], changes[2])
	}

	// A baseline written before est-cycles/op: read as -1, not gated,
	// the rest still gated, and the table says why.
	old := "Unit instructions/op assume=exact\n\nBenchmarkDecode/impl=codec/msg=a\t10\t1000.0 instructions/op\t4 allocs/op\t1000 B/op\n" +
		"BenchmarkDecode/impl=codec/msg=b\t10\t1000.0 instructions/op\t4 allocs/op\t1000 B/op\n"
	oldRows, _, err := Read(strings.NewReader(old), "old.txt")
	if err != nil || len(oldRows) != 2 || oldRows[0].Cycles != -1 {
		t.Fatalf("old format read as %+v (%v)", oldRows, err)
	}
	latest[1].Bytes = 1001
	changes = Check(oldRows, latest[:2], MaxGrowth)
	if changes[0].Failed || !changes[0].NoCyclesInBase {
		t.Errorf("old baseline: est-cycles gated: %+v", changes[0])
	}
	if !changes[1].Failed {
		t.Errorf("old baseline: B/op growth passed: %+v", changes[1])
	}
	var b strings.Builder
	WriteTable(&b, changes, false)
	if !strings.Contains(b.String(), "2 row(s) have no est-cycles/op in the baseline") {
		t.Errorf("table:\n%s", b.String())
	}

	// Same: est-cycles must agree too, and be in both runs.
	if _, ok := Same(base[:1], latest[:1], MaxSpread); ok {
		t.Error("Same: est-cycles 2.5 % apart agreed")
	}
	if _, ok := Same(oldRows[:1], base[:1], MaxSpread); ok {
		t.Error("Same: est-cycles in one run only agreed")
	}
	if _, ok := Same(base, base, MaxSpread); !ok {
		t.Error("Same: a run differs from itself")
	}
}

// TestCountedMatchesScripts: mk/lib.sh's COUNTED, which mk/count.sh and
// mk/diff.sh count by default, is Counted.
func TestCountedMatchesScripts(t *testing.T) {
	lib, err := os.ReadFile("../../mk/lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nCOUNTED='" + Counted + "'\n"; !strings.Contains(string(lib), want) {
		t.Errorf("mk/lib.sh lacks the line %q", strings.TrimSpace(want))
	}
}
