package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/cmd/benchsummary/internal/summary"
)

func row(name string, instr, allocs, bytes float64) count.Row {
	return count.Row{Name: "Benchmark" + name, N: 2000, Instructions: instr, Allocs: allocs, Bytes: bytes}
}

// times returns timed rounds of the benchmarks, ns/op each, n runs.
func times(t *testing.T, n int, ns map[string]float64, order ...string) *summary.Set {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\n")
	for i := range n {
		for _, name := range order {
			fmt.Fprintf(&b, "Benchmark%s-2\t1000\t%.1f ns/op\n", name, ns[name]*(1+0.001*float64(i)))
		}
	}
	s, err := summary.Load(strings.NewReader(b.String()), "times.txt")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	tap      = "Decode/impl=codec/msg=request_tap"
	hello    = "Decode/impl=codec/msg=hello_full"
	snapshot = "Decode/impl=codec/msg=request_snapshot"
	peer     = "Decode/impl=fxamacker/msg=request_tap"
	relay    = "Relay/viewers=1"
)

func TestCompare(t *testing.T) {
	base := Side{Rev: "main (abc1234)",
		Counts: []count.Row{row(tap, 500, 1, 48), row(hello, 5000, 3, 280), row(peer, 3000, 5, 200), row("Decode/impl=codec/msg=gone_row", 10, 0, 0)},
		Times:  times(t, 10, map[string]float64{tap: 100, hello: 1000, peer: 500, relay: 9000}, tap, hello, peer, relay)}
	head := Side{Rev: "working tree",
		Counts: []count.Row{row(tap, 509, 1, 48), row(hello, 5150, 3, 280), row(snapshot, 600, 1, 96), row(peer, 3300, 5, 200)},
		Times:  times(t, 10, map[string]float64{tap: 100, hello: 1500, snapshot: 120, peer: 500, relay: 9000}, tap, hello, snapshot, peer, relay)}
	res := Compare(base, head, Options{Threshold: 0.02, Rounds: 10})
	if !res.Failed {
		t.Fatal("hello_full grew 3 %: the diff must fail")
	}
	var order []string
	status := map[string]Row{}
	for _, r := range res.Rows {
		order = append(order, r.Name)
		status[r.Name] = r
	}
	want := []string{hello, peer, snapshot, "Decode/impl=codec/msg=gone_row", tap, relay}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v (failed, changed, new, gone, the rest)", order, want)
	}
	for name, w := range map[string]struct {
		status string
		failed bool
	}{
		hello: {Changed, true}, peer: {Changed, false}, snapshot: {New, false},
		"Decode/impl=codec/msg=gone_row": {Gone, false}, tap: {Same, false}, relay: {Same, false},
	} {
		if r := status[name]; r.Status != w.status || r.Failed != w.failed {
			t.Errorf("%s: status %q failed %v, want %q %v (%v)", name, r.Status, r.Failed, w.status, w.failed, r.Reasons)
		}
	}
	if r := status[hello]; r.Time.P < 0 || r.Time.P >= 0.05 || !strings.HasPrefix(r.Time.Delta, "+50") {
		t.Errorf("hello_full's time: %+v, want a significant +50 %%", r.Time)
	}
	if r := status[relay]; r.Counted || r.Time.Delta != "~" {
		t.Errorf("relay (timed only): %+v", r)
	}
	v := res.Verdict()
	for _, s := range []string{"FAIL: 1 row(s) of ours grew more than 2 %", hello + " (instructions +3.0% (limit +2%))", "1 new", "1 gone"} {
		if !strings.Contains(v, s) {
			t.Errorf("verdict %q lacks %q", v, s)
		}
	}

	var txt, md, svg strings.Builder
	if err := res.WriteText(&txt, "benchstat output\n"); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteMarkdown(&md, "benchstat output\n", "reports/micro/diff.svg"); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteChart(&svg); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "diff.txt", txt.String(), "micro-diff: FAIL", "base: main (abc1234)", "+3.00%", "+10.00%", "FAIL: instructions +3.0%", "a peer: not gated", "benchstat output", "new", "gone")
	mustContain(t, "diff.md", md.String(), "### make micro-diff: main (abc1234) → working tree", "❌ **FAIL", "<details><summary>All 6 rows</summary>",
		"<details><summary>benchstat base=… head=…</summary>", "reports/micro/diff.svg")
	// The open part (before the first <details>) has the changed rows, not the unchanged ones.
	open, _, _ := strings.Cut(md.String(), "<details>")
	if !strings.Contains(open, "`"+hello+"`") || strings.Contains(open, "`"+tap+"`") {
		t.Errorf("diff.md's open part should list the changed rows only:\n%s", open)
	}
	mustContain(t, "diff.svg", svg.String(), "<svg", hello+": +3.00%", ">new<", ">gone<", `fill="`+colourWorse+`"`, "(peer)")
	if strings.Count(svg.String(), "<rect x=") != 3 { // tap, hello, peer
		t.Errorf("diff.svg: want a bar for each of the 3 rows in both:\n%s", svg.String())
	}
}

func TestSameBinary(t *testing.T) {
	rows := []count.Row{row(tap, 500, 1, 48), row(hello, 5000, 3, 280)}
	res := Compare(Side{Rev: "HEAD", Counts: rows}, Side{Rev: "HEAD", Counts: rows}, Options{Threshold: 0.02, Unverified: true})
	if res.Failed {
		t.Fatal("identical counts fail")
	}
	for _, r := range res.Rows {
		if r.Status != Same || r.Count.InstrChange != 0 {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	v := res.Verdict()
	if !strings.HasPrefix(v, "OK: 2 counted rows compared") || !strings.Contains(v, "largest change of ours +0.00%") {
		t.Errorf("verdict %q", v)
	}
	var md strings.Builder
	res.WriteMarkdown(&md, "", "")
	mustContain(t, "diff.md", md.String(), "✅ **OK", "host not verified quiet", "No row changed by more than 2 %")
}

func TestAllocsAndThreshold(t *testing.T) {
	base := Side{Counts: []count.Row{row(tap, 500, 1, 48), row(hello, 5000, 3, 280)}}
	head := Side{Counts: []count.Row{row(tap, 500, 2, 96), row(hello, 4800, 3, 280)}}
	res := Compare(base, head, Options{Threshold: 0.005})
	if !res.Failed || !res.Rows[0].Failed || res.Rows[0].Name != tap {
		t.Fatalf("an added allocation must fail, first: %+v", res.Rows)
	}
	if res.Rows[1].Status != Changed || res.Rows[1].Failed {
		t.Errorf("4 %% fewer instructions: changed, not failed: %+v", res.Rows[1])
	}
	if v := res.Verdict(); !strings.Contains(v, "more than 0.5 %") || !strings.Contains(v, "1 with fewer instructions beyond 0.5 %") {
		t.Errorf("verdict %q", v)
	}
	var svg strings.Builder
	res.WriteChart(&svg)
	mustContain(t, "diff.svg", svg.String(), `fill="`+colourBetter+`"`)
}

func TestPct(t *testing.T) {
	for v, want := range map[float64]string{0.02: "2 %", 0.005: "0.5 %", 0.1: "10 %", 0.0125: "1.25 %", 0: "0 %"} {
		if got := pct(v); got != want {
			t.Errorf("pct(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]float64{0.3: 0.5, 4: 5, 5: 5, 12: 20, 150: 200} {
		if got := niceCeil(v); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", v, got, want)
		}
	}
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
