package quiet

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Snapshot is what the host's counters say at one instant. Two snapshots
// a window apart give the Readings of that window.
type Snapshot struct {
	CPU  CPUTimes // aggregate /proc/stat counters
	CPUs int      // number of cpuN lines in /proc/stat
	Self uint64   // utime+stime of this process, from /proc/self/stat

	PSI    float64 // /proc/pressure/cpu some avg10, when HasPSI
	HasPSI bool
	// PSIMissing says why PSI is absent (file missing, unreadable, malformed).
	PSIMissing string

	Throttled    uint64 // cgroup nr_throttled, when HasThrottled
	HasThrottled bool
	// ThrottledFrom is the cpu.stat file Throttled was read from, relative
	// to the filesystem root; why it is absent when !HasThrottled.
	ThrottledFrom string

	Load1   float64 // /proc/loadavg one-minute load, when HasLoad
	HasLoad bool
}

// Host is what is recorded about the machine but never failed on: these
// are often unreadable in containers and virtual machines. Unreadable
// values are "unknown".
type Host struct {
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpu_model"`
	Governor string `json:"governor"`
	Turbo    string `json:"turbo"`
}

// Source reads snapshots from a filesystem laid out like a Linux root:
// proc/stat, proc/self/stat, proc/pressure/cpu, sys/fs/cgroup/..., so that
// tests can point it at recorded samples. Use os.DirFS("/") for the live
// host.
type Source struct {
	FS fs.FS
}

// Snapshot reads the counters. Only /proc/stat and /proc/self/stat are
// required; PSI, cgroup throttling and the load average are optional.
func (s Source) Snapshot() (Snapshot, error) {
	var snap Snapshot
	data, err := fs.ReadFile(s.FS, "proc/stat")
	if err != nil {
		return snap, fmt.Errorf("reading /proc/stat: %w", err)
	}
	snap.CPU, snap.CPUs, err = ParseProcStat(data)
	if err != nil {
		return snap, fmt.Errorf("/proc/stat: %w", err)
	}
	data, err = fs.ReadFile(s.FS, "proc/self/stat")
	if err != nil {
		return snap, fmt.Errorf("reading /proc/self/stat: %w", err)
	}
	snap.Self, err = ParseSelfStat(data)
	if err != nil {
		return snap, fmt.Errorf("/proc/self/stat: %w", err)
	}

	if data, err := fs.ReadFile(s.FS, "proc/pressure/cpu"); err != nil {
		snap.PSIMissing = "no /proc/pressure/cpu"
		if !isNotExist(err) {
			snap.PSIMissing = "/proc/pressure/cpu unreadable"
		}
	} else if snap.PSI, err = ParsePSI(data); err != nil {
		snap.PSIMissing = "/proc/pressure/cpu: " + err.Error()
	} else {
		snap.HasPSI = true
	}

	snap.Throttled, snap.ThrottledFrom, snap.HasThrottled = s.throttled()

	if data, err := fs.ReadFile(s.FS, "proc/loadavg"); err == nil {
		if snap.Load1, err = ParseLoadavg(data); err == nil {
			snap.HasLoad = true
		}
	}
	return snap, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// cpuStatCandidates lists the cpu.stat files that may hold this process's
// throttling counters, most specific first: its own cgroup (v2, then v1
// under each usual mount name of the cpu controller), then the roots of
// those mounts, which is what a container with a cgroup namespace sees.
func (s Source) cpuStatCandidates() []string {
	var out []string
	add := func(p string) {
		p = path.Clean(p)
		if fs.ValidPath(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	v1 := []string{"cpu", "cpu,cpuacct", "cpuacct,cpu"}
	data, _ := fs.ReadFile(s.FS, "proc/self/cgroup")
	for _, e := range ParseCgroups(data) {
		if e.Hierarchy == "0" && len(e.Controllers) == 0 {
			add(path.Join("sys/fs/cgroup", e.Path, "cpu.stat"))
			add(path.Join("sys/fs/cgroup/unified", e.Path, "cpu.stat"))
		} else if slices.Contains(e.Controllers, "cpu") {
			for _, m := range v1 {
				add(path.Join("sys/fs/cgroup", m, e.Path, "cpu.stat"))
			}
		}
	}
	add("sys/fs/cgroup/cpu.stat")
	for _, m := range v1 {
		add(path.Join("sys/fs/cgroup", m, "cpu.stat"))
	}
	return out
}

func (s Source) throttled() (uint64, string, bool) {
	for _, p := range s.cpuStatCandidates() {
		data, err := fs.ReadFile(s.FS, p)
		if err != nil {
			continue
		}
		if n, err := ParseThrottled(data); err == nil {
			return n, "/" + p, true
		}
	}
	return 0, "no cgroup cpu.stat with nr_throttled", false
}

// Host reads the recorded-only facts about the machine.
func (s Source) Host() Host {
	h := Host{Kernel: "unknown", CPUModel: "unknown", Governor: "unknown", Turbo: "unknown"}
	if data, err := fs.ReadFile(s.FS, "proc/sys/kernel/osrelease"); err == nil {
		if v := strings.TrimSpace(string(data)); v != "" && !strings.ContainsAny(v, "\n") {
			h.Kernel = v
		}
	}
	if data, err := fs.ReadFile(s.FS, "proc/cpuinfo"); err == nil {
		if v := ParseCPUModel(data); v != "" {
			h.CPUModel = v
		}
	}
	govs, _ := fs.Glob(s.FS, "sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")
	var seen []string
	for _, g := range govs {
		if data, err := fs.ReadFile(s.FS, g); err == nil {
			if v := strings.TrimSpace(string(data)); v != "" && !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
	}
	if len(seen) > 0 {
		slices.Sort(seen)
		h.Governor = strings.Join(seen, ",")
	}
	if data, err := fs.ReadFile(s.FS, "sys/devices/system/cpu/intel_pstate/no_turbo"); err == nil {
		switch strings.TrimSpace(string(data)) {
		case "0":
			h.Turbo = "on"
		case "1":
			h.Turbo = "off"
		}
	} else if data, err := fs.ReadFile(s.FS, "sys/devices/system/cpu/cpufreq/boost"); err == nil {
		switch strings.TrimSpace(string(data)) {
		case "1":
			h.Turbo = "on"
		case "0":
			h.Turbo = "off"
		}
	}
	return h
}
