package quiet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/perf/benchfmt"
)

// recorded returns a waiter driven by the snapshots of testdata/<name>/:
// each Sample reads the next directory, and the clock advances one window
// per Sleep without sleeping.
func recorded(t *testing.T, name string) (*Waiter, Source) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", name, "[0-9]*"))
	if err != nil || len(dirs) < 2 {
		t.Fatalf("scenario %s: want at least two snapshots, have %d (%v)", name, len(dirs), err)
	}
	next := 0
	now := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	w := &Waiter{
		Sample: func() (Snapshot, error) {
			if next >= len(dirs) {
				return Snapshot{}, fmt.Errorf("scenario %s has only %d snapshots", name, len(dirs))
			}
			dir := filepath.Join("testdata", name, fmt.Sprint(next))
			next++
			return Source{FS: os.DirFS(dir)}.Snapshot()
		},
		Sleep:      func(context.Context, time.Duration) error { now = now.Add(2 * time.Second); return nil },
		Now:        func() time.Time { return now },
		Window:     2 * time.Second,
		Wait:       10 * time.Minute,
		Need:       3,
		Thresholds: DefaultThresholds,
	}
	return w, Source{FS: os.DirFS(filepath.Join("testdata", name, "0"))}
}

func names(fs []Failure) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Reading)
	}
	return strings.Join(out, ",")
}

func TestRecordedScenarios(t *testing.T) {
	for _, tc := range []struct {
		name     string
		need     int
		wait     time.Duration
		quiet    bool
		windows  int
		failures string // readings that failed in the last failing window
	}{
		{"quiet", 3, 10 * time.Minute, true, 3, ""},
		{"busy", 1, 0, false, 1, "busy"}, // two hogs on two CPUs: nobody waits, PSI stays low
		{"psi-lagging", 3, 6 * time.Second, false, 3, "psi"},
		{"stolen", 1, 0, false, 1, "steal"},
		{"iowait", 1, 0, false, 1, "iowait"},
		{"self-busy", 1, 0, true, 1, ""},
		{"throttled-v2", 1, 0, false, 1, "throttled"},
		{"throttled-v1", 1, 0, false, 1, "throttled"},
		{"missing-optional", 1, 0, true, 1, ""},
		{"flapping", 3, 10 * time.Minute, true, 6, "busy"},
		// The same host given only 8 s: the busy third window resets the
		// streak and the wait ends with 1 quiet window of 3.
		{"flapping", 3, 8 * time.Second, false, 4, "busy"},
	} {
		t.Run(fmt.Sprintf("%s/wait=%s", tc.name, tc.wait), func(t *testing.T) {
			w, _ := recorded(t, tc.name)
			w.Need, w.Wait = tc.need, tc.wait
			var progress strings.Builder
			w.Progress = &progress
			out, err := w.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if out.Quiet != tc.quiet || out.Windows != tc.windows {
				t.Errorf("quiet=%v after %d windows, want quiet=%v after %d\n%s", out.Quiet, out.Windows, tc.quiet, tc.windows, progress.String())
			}
			if got := names(out.Failures); got != tc.failures {
				t.Errorf("failures %q, want %q", got, tc.failures)
			}
			if n := strings.Count(progress.String(), "\n"); n != out.Windows {
				t.Errorf("%d progress lines for %d windows", n, out.Windows)
			}
		})
	}
}

func TestRecordedReadings(t *testing.T) {
	measure := func(name string) Readings {
		t.Helper()
		w, _ := recorded(t, name)
		w.Need, w.Wait = 1, 0
		out, err := w.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out.Last
	}
	approx := func(what string, got, want float64) {
		t.Helper()
		if got < want-0.05 || got > want+0.05 {
			t.Errorf("%s = %.3f, want %.2f", what, got, want)
		}
	}

	q := measure("quiet")
	// Window 1 of the idle host: system +1, idle +400; our own tick +1.
	approx("quiet busy", q.BusyPct, 0)
	approx("quiet steal", q.StealPct, 0)
	if q.CPUs != 2 || q.PSI == nil || *q.PSI != 0.29 || q.LoadPerCPU == nil || *q.LoadPerCPU != 0.72/2 {
		t.Errorf("quiet: cpus %d psi %v load/cpu %v", q.CPUs, deref(q.PSI), deref(q.LoadPerCPU))
	}
	if q.Throttled == nil || *q.Throttled != 0 || q.ThrottledFrom != "/sys/fs/cgroup/cpu/cpu.stat" {
		t.Errorf("quiet: throttled %v from %q", q.Throttled, q.ThrottledFrom)
	}

	b := measure("busy")
	// user +144, system +258, steal +7 of 409 ticks; our own +1.
	approx("busy busy", b.BusyPct, 100*401.0/409)
	approx("busy steal", b.StealPct, 100*7.0/409)

	s := measure("stolen")
	approx("stolen steal", s.StealPct, 100*40.0/401)

	io := measure("iowait")
	approx("iowait iowait", io.IOWaitPct, 100*60.0/401)

	self := measure("self-busy")
	approx("self-busy busy", self.BusyPct, 100*6.0/401)
	approx("self-busy self", self.SelfPct, 100*385.0/401)

	v2 := measure("throttled-v2")
	if v2.Throttled == nil || *v2.Throttled != 12 || v2.ThrottledFrom != "/sys/fs/cgroup/wirebench.slice/run.scope/cpu.stat" {
		t.Errorf("throttled-v2: %v from %q, want 12 from the process's own cgroup", v2.Throttled, v2.ThrottledFrom)
	}

	m := measure("missing-optional")
	if m.PSI != nil || m.Throttled != nil || m.LoadPerCPU != nil {
		t.Errorf("missing-optional: psi %v throttled %v load %v, want all absent", m.PSI, m.Throttled, m.LoadPerCPU)
	}
	if m.PSIMissing != "no /proc/pressure/cpu" || !strings.Contains(m.ThrottledFrom, "no cgroup cpu.stat") {
		t.Errorf("missing-optional: reasons %q, %q", m.PSIMissing, m.ThrottledFrom)
	}
}

func TestRecordedGarbageIsAnError(t *testing.T) {
	w, _ := recorded(t, "garbage")
	_, err := w.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/proc/stat") {
		t.Fatalf("err = %v, want an error naming /proc/stat", err)
	}
}

func TestRunStopsOnContext(t *testing.T) {
	w, _ := recorded(t, "quiet")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.Sleep = SleepContext
	if _, err := w.Run(ctx); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestHost(t *testing.T) {
	_, src := recorded(t, "quiet")
	h := src.Host()
	want := Host{Kernel: "6.18.44-fc-v1045", CPUModel: "Intel(R) Xeon(R) Processor @ 2.60GHz", Governor: "unknown", Turbo: "unknown"}
	if h != want {
		t.Errorf("host %+v, want %+v", h, want)
	}
	m := fstest.MapFS{
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": {Data: []byte("performance\n")},
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": {Data: []byte("powersave\n")},
		"sys/devices/system/cpu/cpu2/cpufreq/scaling_governor": {Data: []byte("performance\n")},
		"sys/devices/system/cpu/intel_pstate/no_turbo":         {Data: []byte("1\n")},
		"proc/cpuinfo": {Data: []byte("processor\t: 0\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n")},
	}
	h = Source{FS: m}.Host()
	want = Host{Kernel: "unknown", CPUModel: "Raspberry Pi 4 Model B Rev 1.4", Governor: "performance,powersave", Turbo: "off"}
	if h != want {
		t.Errorf("host %+v, want %+v", h, want)
	}
	m = fstest.MapFS{"sys/devices/system/cpu/cpufreq/boost": {Data: []byte("1\n")}}
	if h := (Source{FS: m}).Host(); h.Turbo != "on" {
		t.Errorf("boost 1: turbo %q, want on", h.Turbo)
	}
}

// TestConfigLinesAreBenchmarkConfig checks that a report prepended to
// benchmark output reads back, through benchfmt, as configuration of the
// results — the readings travel with every report.
func TestConfigLinesAreBenchmarkConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verify  bool
		verdict string
	}{
		{"quiet", true, "verified (3 quiet windows of 2s in a row)"},
		{"busy", true, "not quiet within 0s (busy 98.0% > 10%)"},
		{"busy", false, "host not verified quiet (busy 98.0% > 10%)"},
		{"missing-optional", false, "host not verified quiet"},
	} {
		w, src := recorded(t, tc.name)
		if tc.name != "quiet" {
			w.Need, w.Wait = 1, 0
		}
		out, err := w.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		lines := NewReport(out, w, src.Host(), tc.verify).ConfigLines()
		text := strings.Join(lines, "\n") + "\nBenchmarkX-2 1 5 ns/op\n"
		r := benchfmt.NewReader(strings.NewReader(text), tc.name)
		if !r.Scan() {
			t.Fatalf("%s: no result: %v", tc.name, r.Err())
		}
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("%s: %v", tc.name, r.Result())
		}
		if len(res.Config) != len(lines) {
			t.Errorf("%s: %d config keys read back from %d lines:\n%s", tc.name, len(res.Config), len(lines), text)
		}
		if got := res.GetConfig("quiet"); got != tc.verdict {
			t.Errorf("%s verify=%v: quiet: %q, want %q", tc.name, tc.verify, got, tc.verdict)
		}
		if got := res.GetConfig("quiet-kernel"); tc.name == "quiet" && got != "6.18.44-fc-v1045" {
			t.Errorf("quiet-kernel: %q", got)
		}
		if tc.name == "missing-optional" {
			if got := res.GetConfig("quiet-psi-cpu-some-avg10"); got != "n/a (no /proc/pressure/cpu)" {
				t.Errorf("missing PSI reads %q", got)
			}
		}
	}
}

func TestProgressLine(t *testing.T) {
	psi, thr, load := 42.78, uint64(0), 0.6
	r := Readings{BusyPct: 98.04, StealPct: 1.71, PSI: &psi, Throttled: &thr, LoadPerCPU: &load}
	got := r.Progress(DefaultThresholds)
	want := "busy 98.0% > 10% FAIL | steal 1.7% <= 2% | iowait 0.0% <= 5% | psi 42.78 > 5 FAIL | throttled 0 <= 0 | load/cpu 0.60 (advice)"
	if got != want {
		t.Errorf("progress\n got %s\nwant %s", got, want)
	}
	r = Readings{}
	if got := r.Progress(DefaultThresholds); !strings.Contains(got, "psi n/a | throttled n/a | load/cpu n/a") {
		t.Errorf("absent readings: %s", got)
	}
}

func TestMeasureRejectsBackwardsCounters(t *testing.T) {
	a := Snapshot{CPU: CPUTimes{User: 10, Idle: 100}, CPUs: 1}
	b := Snapshot{CPU: CPUTimes{User: 9, Idle: 200}, CPUs: 1}
	if _, err := Measure(a, b, time.Second); err == nil {
		t.Error("user went backwards: no error")
	}
	if _, err := Measure(a, a, time.Second); err == nil {
		t.Error("no time elapsed: no error")
	}
	c := Snapshot{CPU: CPUTimes{User: 20, Idle: 300}, CPUs: 1, HasThrottled: true, Throttled: 5, ThrottledFrom: "/x"}
	d := Snapshot{CPU: CPUTimes{User: 30, Idle: 400}, CPUs: 1, HasThrottled: true, Throttled: 4, ThrottledFrom: "/x"}
	if _, err := Measure(c, d, time.Second); err == nil {
		t.Error("nr_throttled went backwards: no error")
	}
}

var _ fs.FS = fstest.MapFS{}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
