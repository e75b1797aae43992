package quiet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	got, cpus, err := ParseProcStat([]byte("cpu  10 1 5 100 2 3 4 6 9 9\ncpu0 5 0 2 50 1 1 2 3 0 0\ncpu1 5 1 3 50 1 2 2 3 0 0\nintr 1 2\n"))
	want := CPUTimes{User: 10, Nice: 1, System: 5, Idle: 100, IOWait: 2, IRQ: 3, SoftIRQ: 4, Steal: 6}
	if err != nil || got != want || cpus != 2 {
		t.Fatalf("got %+v, %d CPUs, %v; want %+v, 2", got, cpus, err, want)
	}
	if got.Total() != 131 || got.Busy() != 23 {
		t.Errorf("total %d busy %d, want 131 and 23", got.Total(), got.Busy())
	}
	// An old kernel: only four counters.
	if got, _, err := ParseProcStat([]byte("cpu 1 2 3 4\n")); err != nil || got != (CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}) {
		t.Errorf("four counters: %+v, %v", got, err)
	}
	for _, bad := range []string{
		"", "\n\n", "intr 1 2 3\n", "cpu\n", "cpu 1 2 3\n", "cpu 1 2 x 4\n", "cpu -1 2 3 4\n",
		"cpu 1 2 3 99999999999999999999999\n", "cpu 1 2 3 4\ncpu 1 2 3 4\n", "\x00\xff cpu 1 2 3 4",
	} {
		if _, _, err := ParseProcStat([]byte(bad)); err == nil {
			t.Errorf("ParseProcStat(%q): no error", bad)
		}
	}
}

func TestParseSelfStat(t *testing.T) {
	line := "4242 (a (b) c) S 1 1 1 0 -1 4194304 10 0 0 0 17 4 0 0 20 0 1 0 100 1000 10 0\n"
	if got, err := ParseSelfStat([]byte(line)); err != nil || got != 21 {
		t.Errorf("got %d, %v; want 17+4", got, err)
	}
	for _, bad := range []string{
		"", "4242 (x S 1 1 1 0 -1 0 0 0 0 0 1 2 3", "4242 (x) S 1 1",
		"4242 (x) S 1 1 1 0 -1 0 0 0 0 0 u 2 0 0", "4242 (x) S 1 1 1 0 -1 0 0 0 0 0 1 -2 0 0",
	} {
		if _, err := ParseSelfStat([]byte(bad)); err == nil {
			t.Errorf("ParseSelfStat(%q): no error", bad)
		}
	}
}

func TestParsePSI(t *testing.T) {
	if got, err := ParsePSI([]byte("some avg10=1.73 avg60=2.55 avg300=1.46 total=8466901\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")); err != nil || got != 1.73 {
		t.Errorf("got %v, %v; want 1.73", got, err)
	}
	for _, bad := range []string{"", "full avg10=1.00\n", "some avg60=2\n", "some avg10=x\n", "some avg10=-1\n", "some avg10=101\n", "some avg10=NaN\n"} {
		if _, err := ParsePSI([]byte(bad)); err == nil {
			t.Errorf("ParsePSI(%q): no error", bad)
		}
	}
}

func TestParseThrottled(t *testing.T) {
	if got, err := ParseThrottled([]byte("nr_periods 5\nnr_throttled 3\nthrottled_time 9\n")); err != nil || got != 3 {
		t.Errorf("got %d, %v; want 3", got, err)
	}
	for _, bad := range []string{"", "usage_usec 5\n", "nr_throttled x\n", "nr_throttled -3\n"} {
		if _, err := ParseThrottled([]byte(bad)); err == nil {
			t.Errorf("ParseThrottled(%q): no error", bad)
		}
	}
}

func TestParseLoadavg(t *testing.T) {
	if got, err := ParseLoadavg([]byte("0.55 0.26 0.11 3/86 4988\n")); err != nil || got != 0.55 {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "x 1 2", "-1 0 0", "NaN 1 1", "+Inf 0 0"} {
		if _, err := ParseLoadavg([]byte(bad)); err == nil {
			t.Errorf("ParseLoadavg(%q): no error", bad)
		}
	}
}

func TestParseCgroups(t *testing.T) {
	got := ParseCgroups([]byte("12:cpu,cpuacct:/docker/abc\n0::/user.slice\ngarbage\n3:x:relative\n"))
	if len(got) != 2 || got[0].Path != "/docker/abc" || strings.Join(got[0].Controllers, "+") != "cpu+cpuacct" ||
		got[1].Hierarchy != "0" || got[1].Controllers != nil || got[1].Path != "/user.slice" {
		t.Errorf("got %+v", got)
	}
	src := Source{FS: os.DirFS(t.TempDir())}
	_ = src.cpuStatCandidates() // no /proc/self/cgroup: defaults only, no panic
}

// The fuzz targets check that no input makes a parser panic, and that what
// parses is self-consistent. Seeds are the recorded samples.
func addSeeds(f *testing.F, rel string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*", rel))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("cpu 1 2 3 4 5 6 7 8 9 10 11 12\n"))
}

func FuzzParseProcStat(f *testing.F) {
	addSeeds(f, "proc/stat")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, cpus, err := ParseProcStat(data)
		if err == nil && (cpus < 1 || c.Total() < c.Busy()) {
			t.Errorf("%q: %+v with %d CPUs", data, c, cpus)
		}
	})
}

func FuzzParseSelfStat(f *testing.F) {
	addSeeds(f, "proc/self/stat")
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseSelfStat(data) })
}

func FuzzParsePSI(f *testing.F) {
	addSeeds(f, "proc/pressure/cpu")
	f.Fuzz(func(t *testing.T, data []byte) {
		if x, err := ParsePSI(data); err == nil && (x < 0 || x > 100) {
			t.Errorf("%q: %v", data, x)
		}
	})
}

func FuzzParseOthers(f *testing.F) {
	addSeeds(f, "sys/fs/cgroup/cpu/cpu.stat")
	addSeeds(f, "proc/loadavg")
	addSeeds(f, "proc/self/cgroup")
	addSeeds(f, "proc/cpuinfo")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseThrottled(data)
		_, _ = ParseLoadavg(data)
		_ = ParseCgroups(data)
		_ = ParseCPUModel(data)
	})
}
