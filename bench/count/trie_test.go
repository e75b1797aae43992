package count

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const loadFn = "internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load"

// TestReadDumpsWalks reads a real dump (callgrind 3.19, --dump-instr=yes,
// Go 1.26): fxamacker's encode of request_snapshot at b.N=100, four
// sync.Map lookups an op, one of them a level down in this process. The
// lookups' call of the hash function inside Load is not Load's own count.
func TestReadDumpsWalks(t *testing.T) {
	dumps, err := ReadDumps(filepath.Join("testdata", "walk"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 1 || dumps[0].Name != "BenchmarkEncode/impl=fxamacker/msg=request_snapshot" || dumps[0].N != 100 || dumps[0].Ir != 368230 {
		t.Fatalf("dumps %+v", dumps)
	}
	if w, want := dumps[0].Walks[loadFn], (Walk{Calls: 400, Deeper: 100, Step: 24}); w != want || len(dumps[0].Walks) != 1 {
		t.Errorf("walks %+v, want %s: %+v", dumps[0].Walks, loadFn, want)
	}
	levels := Levels{}
	if err := levels.learn(dumps); err != nil {
		t.Fatal(err)
	}
	if ir, err := levels.topOfTrie(dumps[0]); err != nil || ir != 368230-100*24 {
		t.Errorf("top of trie %d, %v; want %d", ir, err, 368230-100*24)
	}
}

// walkDump is a dump's lookup function: instructions run once a call (3),
// once an iteration (2) and once a level down (1).
func walkDump(calls, deeper uint64) string {
	var b strings.Builder
	b.WriteString("positions: instr\nevents: Ir\nfn=(1) caller\n0x10 5\ncfn=(2) " + loadFn + "\n")
	b.WriteString("calls=" + itoa(calls) + " 0x20\n* 999999\nfn=(2)\n0x20 " + itoa(calls) + "\n+1 " + itoa(calls) + "\n+1 " + itoa(calls) + "\n")
	b.WriteString("+1 " + itoa(calls+deeper) + "\n+1 " + itoa(calls+deeper) + "\n")
	if deeper > 0 {
		b.WriteString("+1 " + itoa(deeper) + "\n")
	}
	return b.String()
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func readWalks(t *testing.T, text string) map[string]Walk {
	t.Helper()
	r := newWalkReader()
	for _, line := range strings.Split(text, "\n") {
		if err := r.line(line); err != nil {
			t.Fatal(err)
		}
	}
	return r.walks()
}

// TestWalkStep: a dump tells the instructions of a level only when the
// three kinds of instruction run different numbers of times.
func TestWalkStep(t *testing.T) {
	for _, c := range []struct {
		calls, deeper uint64
		want          Walk
	}{
		{40, 0, Walk{Calls: 40}},                       // all at the top: nothing to tell
		{40, 13, Walk{Calls: 40, Deeper: 13, Step: 3}}, // 2 iteration + 1 step instructions
		{40, 40, Walk{Calls: 40, Deeper: 40}},          // step and call instructions both run 40 times
		{40, 90, Walk{Calls: 40, Deeper: 90, Step: 3}},
	} {
		if got := readWalks(t, walkDump(c.calls, c.deeper))[loadFn]; got != c.want {
			t.Errorf("%d calls, %d deeper: %+v, want %+v", c.calls, c.deeper, got, c.want)
		}
	}
	// An instruction run another number of times (a lookup that missed)
	// leaves the step untold, the depth still read.
	if got := readWalks(t, walkDump(40, 13)+"+1 7\n")[loadFn]; got != (Walk{Calls: 40, Deeper: 13}) {
		t.Errorf("with a miss: %+v", got)
	}
	// Without instruction-level counts there is nothing to read.
	if got := readWalks(t, strings.Replace(walkDump(40, 13), "positions: instr", "positions: line", 1)); got != nil {
		t.Errorf("line-level dump: %+v", got)
	}
	// callgrind names the function called within a recursion Load'2 (as
	// fxamacker's decode recurses): the same instructions, read as one
	// function. Here 60 calls, 30 of them within a recursion, 13 levels
	// down in all.
	split := walkDump(30, 6) +
		"fn=(3) " + loadFn + "'2\n0x20 30\n+1 30\n+1 30\n+1 37\n+1 37\n+1 7\n"
	if got := readWalks(t, split); len(got) != 1 || got[loadFn] != (Walk{Calls: 60, Deeper: 13, Step: 3}) {
		t.Errorf("Load and Load'2: %+v", got)
	}
	// An entry run again after the stack grew leaves the step untold.
	if got := readWalks(t, strings.Replace(walkDump(40, 13), "0x20 40", "0x20 41", 1))[loadFn]; got != (Walk{Calls: 41, Deeper: 12}) {
		t.Errorf("with the stack grown: %+v", got)
	}
}

// TestLevels: the step of a level comes from any dump of the run that
// tells it, must agree between dumps, and is needed by a dump whose
// lookups went down.
func TestLevels(t *testing.T) {
	tell := Dump{Name: "BenchmarkEncode/impl=fxamacker/msg=a", Busiest: 1000, Walks: map[string]Walk{loadFn: {Calls: 10, Deeper: 5, Step: 24}}}
	ambiguous := Dump{Name: "BenchmarkEncode/impl=fxamacker/msg=b", Busiest: 2000, Walks: map[string]Walk{loadFn: {Calls: 10, Deeper: 10}}}
	levels := Levels{}
	if _, err := levels.topOfTrie(ambiguous); err == nil {
		t.Error("a dump went down levels of an unknown size without error")
	}
	if err := levels.learn([]Dump{ambiguous, tell}); err != nil {
		t.Fatal(err)
	}
	if ir, err := levels.topOfTrie(ambiguous); err != nil || ir != 2000-240 {
		t.Errorf("top of trie %d, %v; want %d", ir, err, 2000-240)
	}
	if ir, err := levels.topOfTrie(Dump{Busiest: 77}); err != nil || ir != 77 {
		t.Errorf("a dump without lookups: %d, %v", ir, err)
	}
	other := tell
	other.Walks = map[string]Walk{loadFn: {Calls: 10, Deeper: 5, Step: 23}}
	if err := levels.learn([]Dump{other}); err == nil {
		t.Error("two sizes of a level learned without error")
	}
	if _, err := levels.topOfTrie(Dump{Busiest: 100, Walks: map[string]Walk{loadFn: {Calls: 1, Deeper: 5}}}); err == nil {
		t.Error("levels larger than the count taken out without error")
	}
}
