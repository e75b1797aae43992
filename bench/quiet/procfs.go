package quiet

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// CPUTimes are the aggregate "cpu" counters of /proc/stat, in clock ticks
// (USER_HZ). Guest time is already counted in User and Nice by the kernel,
// so it is not kept separately.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is the sum of all counters: the capacity of every CPU over the
// interval the counters cover.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Busy is the time spent running something: user, nice, system, irq and
// softirq.
func (c CPUTimes) Busy() uint64 {
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
}

// ParseProcStat reads the aggregate "cpu" line of /proc/stat and counts the
// per-CPU "cpuN" lines. Kernels older than 2.6.11 print fewer than eight
// counters; missing ones are zero. At least the first four are required.
func ParseProcStat(data []byte) (CPUTimes, int, error) {
	var (
		times CPUTimes
		found bool
		cpus  int
	)
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "cpu") {
			continue
		}
		if fields[0] != "cpu" {
			if _, err := strconv.ParseUint(fields[0][3:], 10, 32); err == nil {
				cpus++
			}
			continue
		}
		if found {
			return CPUTimes{}, 0, fmt.Errorf("two aggregate cpu lines")
		}
		found = true
		if len(fields) < 5 {
			return CPUTimes{}, 0, fmt.Errorf("cpu line has %d counters, want at least 4", len(fields)-1)
		}
		dst := []*uint64{&times.User, &times.Nice, &times.System, &times.Idle,
			&times.IOWait, &times.IRQ, &times.SoftIRQ, &times.Steal}
		for i, f := range fields[1:] {
			if i >= len(dst) {
				break // guest and guest_nice: already in user and nice
			}
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return CPUTimes{}, 0, fmt.Errorf("cpu counter %d: %q is not a count", i+1, f)
			}
			*dst[i] = v
		}
	}
	if !found {
		return CPUTimes{}, 0, fmt.Errorf("no aggregate cpu line")
	}
	if cpus == 0 {
		cpus = 1
	}
	return times, cpus, nil
}

// ParseSelfStat returns utime+stime (clock ticks) from a /proc/PID/stat
// line. The command name is in parentheses and may itself contain spaces
// and parentheses, so fields are counted from the last ')'.
func ParseSelfStat(data []byte) (uint64, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, fmt.Errorf("no ')' closing the command name")
	}
	fields := strings.Fields(string(data[end+1:]))
	// fields[0] is field 3 (state); utime is field 14, stime field 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(fields))
	}
	utime, err := strconv.ParseUint(fields[11], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %q is not a count", fields[11])
	}
	stime, err := strconv.ParseUint(fields[12], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %q is not a count", fields[12])
	}
	return utime + stime, nil
}

// ParsePSI returns the "some avg10" value of a pressure file such as
// /proc/pressure/cpu: the share of the last 10 s, in percent, in which at
// least one task waited for the resource.
func ParsePSI(data []byte) (float64, error) {
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "some" {
			continue
		}
		for _, f := range fields[1:] {
			v, ok := strings.CutPrefix(f, "avg10=")
			if !ok {
				continue
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x >= 0 && x <= 100) {
				return 0, fmt.Errorf("some avg10: %q is not a percentage", v)
			}
			return x, nil
		}
		return 0, fmt.Errorf("some line has no avg10")
	}
	return 0, fmt.Errorf("no \"some\" line")
}

// ParseThrottled returns nr_throttled from a cgroup cpu.stat file (v1 or
// v2): the number of CFS periods in which the group ran out of quota.
func ParseThrottled(data []byte) (uint64, error) {
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || fields[0] != "nr_throttled" {
			continue
		}
		v, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("nr_throttled: %q is not a count", fields[1])
		}
		return v, nil
	}
	return 0, fmt.Errorf("no nr_throttled line")
}

// ParseLoadavg returns the one-minute load average of /proc/loadavg.
func ParseLoadavg(data []byte) (float64, error) {
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, fmt.Errorf("empty")
	}
	x, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || !(x >= 0 && x < 1e9) {
		return 0, fmt.Errorf("%q is not a load average", fields[0])
	}
	return x, nil
}

// CgroupEntry is one line of /proc/self/cgroup: "hierarchy:controllers:path".
// Controllers is empty for the cgroup v2 unified hierarchy.
type CgroupEntry struct {
	Hierarchy   string
	Controllers []string
	Path        string
}

// ParseCgroups parses /proc/self/cgroup. Malformed lines are skipped: the
// file only tells where to look for cpu.stat.
func ParseCgroups(data []byte) []CgroupEntry {
	var out []CgroupEntry
	for _, line := range strings.Split(string(data), "\n") {
		h, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctl, p, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(p, "/") {
			continue
		}
		e := CgroupEntry{Hierarchy: h, Path: p}
		if ctl != "" {
			e.Controllers = strings.Split(ctl, ",")
		}
		out = append(out, e)
	}
	return out
}

// ParseCPUModel returns the CPU model of /proc/cpuinfo: "model name" on x86,
// otherwise the first of a few architecture-specific keys; "" if none.
func ParseCPUModel(data []byte) string {
	keys := []string{"model name", "Model", "Hardware", "cpu model", "uarch", "cpu"}
	found := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := found[k]; !seen && v != "" {
			found[k] = v
		}
	}
	for _, k := range keys {
		if v, ok := found[k]; ok {
			return v
		}
	}
	return ""
}
