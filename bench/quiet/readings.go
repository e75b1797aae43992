package quiet

import (
	"fmt"
	"strings"
	"time"
)

// Thresholds are the limits a window must stay within to count as quiet.
type Thresholds struct {
	MaxBusyPct   float64 `json:"max_busy_pct"`   // CPU busy by other processes, % of all CPUs
	MaxStealPct  float64 `json:"max_steal_pct"`  // hypervisor steal, % of all CPUs
	MaxIOWaitPct float64 `json:"max_iowait_pct"` // iowait, % of all CPUs
	MaxPSI       float64 `json:"max_psi"`        // /proc/pressure/cpu some avg10
	MaxThrottled uint64  `json:"max_throttled"`  // cgroup nr_throttled increase over the window
}

// DefaultThresholds are the limits of issue 3.
var DefaultThresholds = Thresholds{
	MaxBusyPct:   10,
	MaxStealPct:  2,
	MaxIOWaitPct: 5,
	MaxPSI:       5,
	MaxThrottled: 0,
}

// Readings are what one window measured. Optional readings are nil when
// the host does not provide them; they are then neither passed nor failed.
type Readings struct {
	Window time.Duration `json:"-"`
	// WindowSeconds is Window for JSON.
	WindowSeconds float64 `json:"window_s"`
	CPUs          int     `json:"cpus"`
	BusyPct       float64 `json:"busy_pct"`
	StealPct      float64 `json:"steal_pct"`
	IOWaitPct     float64 `json:"iowait_pct"`
	// SelfPct is this process's own CPU use, already excluded from BusyPct.
	SelfPct float64 `json:"self_pct"`

	PSI        *float64 `json:"psi_cpu_some_avg10"`
	PSIMissing string   `json:"psi_missing,omitempty"`

	Throttled     *uint64 `json:"throttled"`
	ThrottledFrom string  `json:"throttled_from"`

	// LoadPerCPU is the one-minute load average divided by the CPU count:
	// advice only, never failed on (it lags by a minute and counts tasks in
	// uninterruptible sleep).
	LoadPerCPU *float64 `json:"load_per_cpu"`
}

// Measure computes the readings of the window between two snapshots taken
// window apart. It fails when the counters did not advance or went
// backwards (a counter reset, or samples taken in the wrong order).
func Measure(before, after Snapshot, window time.Duration) (Readings, error) {
	b, a := before.CPU, after.CPU
	pairs := [][2]uint64{{b.User, a.User}, {b.Nice, a.Nice}, {b.System, a.System}, {b.Idle, a.Idle},
		{b.IOWait, a.IOWait}, {b.IRQ, a.IRQ}, {b.SoftIRQ, a.SoftIRQ}, {b.Steal, a.Steal}}
	for _, p := range pairs {
		if p[1] < p[0] {
			return Readings{}, fmt.Errorf("/proc/stat counters went backwards between samples")
		}
	}
	if after.Self < before.Self {
		return Readings{}, fmt.Errorf("/proc/self/stat CPU time went backwards between samples")
	}
	total := float64(a.Total() - b.Total())
	if total == 0 {
		return Readings{}, fmt.Errorf("/proc/stat counters did not advance over the window")
	}
	self := float64(after.Self - before.Self)
	others := float64(a.Busy()-b.Busy()) - self
	if others < 0 { // per-process and global accounting round differently
		others = 0
	}
	r := Readings{
		Window:        window,
		WindowSeconds: window.Seconds(),
		CPUs:          after.CPUs,
		BusyPct:       100 * others / total,
		StealPct:      100 * float64(a.Steal-b.Steal) / total,
		IOWaitPct:     100 * float64(a.IOWait-b.IOWait) / total,
		SelfPct:       100 * min(self, total) / total,
		PSIMissing:    after.PSIMissing,
		ThrottledFrom: after.ThrottledFrom,
	}
	if after.HasPSI {
		psi := after.PSI
		r.PSI = &psi
	}
	switch {
	case before.HasThrottled && after.HasThrottled && before.ThrottledFrom == after.ThrottledFrom:
		if after.Throttled < before.Throttled {
			return Readings{}, fmt.Errorf("%s nr_throttled went backwards between samples", after.ThrottledFrom)
		}
		d := after.Throttled - before.Throttled
		r.Throttled = &d
	case after.HasThrottled:
		r.ThrottledFrom = "cgroup cpu.stat appeared or moved during the window"
	}
	if after.HasLoad && after.CPUs > 0 {
		l := after.Load1 / float64(after.CPUs)
		r.LoadPerCPU = &l
	}
	return r, nil
}

// Failure is one reading over its threshold.
type Failure struct {
	Reading string // "busy", "steal", "iowait", "psi", "throttled"
	Value   string // the reading, formatted with its unit
	Limit   string // the threshold, formatted with its unit
}

// String reads like "busy 34.1% > 10%".
func (f Failure) String() string { return f.Reading + " " + f.Value + " > " + f.Limit }

// check is one reading against one threshold, for Check and the progress
// line alike.
type check struct {
	name, value, limit string
	present, fail      bool
}

func (r Readings) checks(t Thresholds) []check {
	c := []check{
		{"busy", val(r.BusyPct), pct(t.MaxBusyPct), true, r.BusyPct > t.MaxBusyPct},
		{"steal", val(r.StealPct), pct(t.MaxStealPct), true, r.StealPct > t.MaxStealPct},
		{"iowait", val(r.IOWaitPct), pct(t.MaxIOWaitPct), true, r.IOWaitPct > t.MaxIOWaitPct},
		{"psi", "n/a", num(t.MaxPSI), false, false},
		{"throttled", "n/a", fmt.Sprint(t.MaxThrottled), false, false},
	}
	if r.PSI != nil {
		c[3] = check{"psi", fmt.Sprintf("%.2f", *r.PSI), num(t.MaxPSI), true, *r.PSI > t.MaxPSI}
	}
	if r.Throttled != nil {
		c[4] = check{"throttled", fmt.Sprint(*r.Throttled), fmt.Sprint(t.MaxThrottled), true, *r.Throttled > t.MaxThrottled}
	}
	return c
}

// Check returns the readings that exceed their thresholds; none means the
// window was quiet. Absent optional readings never fail.
func (r Readings) Check(t Thresholds) []Failure {
	var out []Failure
	for _, c := range r.checks(t) {
		if c.fail {
			out = append(out, Failure{c.name, c.value, c.limit})
		}
	}
	return out
}

// Progress formats the readings of one window against the thresholds, the
// line quiethost prints per window:
//
//	busy 23.0% > 10% FAIL | steal 1.7% <= 2% | ... | load/cpu 0.28 (advice)
func (r Readings) Progress(t Thresholds) string {
	var parts []string
	for _, c := range r.checks(t) {
		switch {
		case !c.present:
			parts = append(parts, c.name+" n/a")
		case c.fail:
			parts = append(parts, c.name+" "+c.value+" > "+c.limit+" FAIL")
		default:
			parts = append(parts, c.name+" "+c.value+" <= "+c.limit)
		}
	}
	load := "n/a"
	if r.LoadPerCPU != nil {
		load = fmt.Sprintf("%.2f", *r.LoadPerCPU)
	}
	parts = append(parts, "load/cpu "+load+" (advice)")
	return strings.Join(parts, " | ")
}

// val formats a percentage reading.
func val(x float64) string { return fmt.Sprintf("%.1f%%", x) }

// pct formats a percentage threshold: no decimals when it has none.
func pct(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprintf("%d%%", int64(x))
	}
	return fmt.Sprintf("%.1f%%", x)
}

// num formats a plain threshold.
func num(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprintf("%.2f", x)
}
