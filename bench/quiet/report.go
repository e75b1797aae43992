package quiet

import (
	"fmt"
	"strings"
	"time"
)

// Verdicts of a Report.
const (
	VerdictQuiet       = "quiet"        // Need quiet windows in a row
	VerdictNotQuiet    = "not quiet"    // not quiet within the wait
	VerdictNotVerified = "not verified" // readings recorded, no decision asked for
)

// NotVerifiedStamp is the stamp every report of a run on a host that was
// not verified quiet carries.
const NotVerifiedStamp = "host not verified quiet"

// Report is quiethost's final word: the verdict, the readings it rests on
// and what the host is. Its ConfigLines go at the top of benchmark reports.
type Report struct {
	Verdict string        `json:"verdict"`
	Windows int           `json:"windows"`
	Need    int           `json:"need"`
	Window  time.Duration `json:"-"`
	Wait    time.Duration `json:"-"`
	// WindowSeconds and WaitSeconds are Window and Wait for JSON.
	WindowSeconds float64    `json:"window_s"`
	WaitSeconds   float64    `json:"wait_s"`
	Readings      Readings   `json:"readings"`
	Failures      []string   `json:"failures,omitempty"`
	Thresholds    Thresholds `json:"thresholds"`
	Host          Host       `json:"host"`
}

// NewReport builds the report of a finished wait. verify false means the
// readings were only recorded (QUIET=off): the verdict is then
// VerdictNotVerified whatever they say.
func NewReport(o Outcome, w *Waiter, host Host, verify bool) Report {
	r := Report{
		Verdict:       VerdictQuiet,
		Windows:       o.Windows,
		Need:          max(w.Need, 1),
		Window:        w.Window,
		Wait:          w.Wait,
		WindowSeconds: w.Window.Seconds(),
		WaitSeconds:   w.Wait.Seconds(),
		Readings:      o.Last,
		Thresholds:    w.Thresholds,
		Host:          host,
	}
	switch {
	case !verify:
		r.Verdict = VerdictNotVerified
		for _, f := range o.Last.Check(w.Thresholds) {
			r.Failures = append(r.Failures, f.String())
		}
	case !o.Quiet:
		r.Verdict = VerdictNotQuiet
		r.Readings = o.FailedReadings
		if o.FailedWindow == 0 { // every window quiet, just not enough of them
			r.Readings = o.Last
		}
		for _, f := range o.Failures {
			r.Failures = append(r.Failures, f.String())
		}
	}
	return r
}

// ConfigLines renders the report as Go benchmark configuration lines
// ("key: value", keys lower-case without spaces), ready to prepend to
// benchmark output so that every report carries the host's readings.
func (r Report) ConfigLines() []string {
	rd, t := r.Readings, r.Thresholds
	var verdict string
	switch r.Verdict {
	case VerdictQuiet:
		verdict = fmt.Sprintf("verified (%d quiet windows of %s in a row)", r.Need, r.Window)
		if r.Need == 1 {
			verdict = fmt.Sprintf("verified (1 quiet window of %s)", r.Window)
		}
	case VerdictNotQuiet:
		verdict = fmt.Sprintf("not quiet within %s (%s)", r.Wait, strings.Join(r.Failures, ", "))
	default:
		verdict = NotVerifiedStamp
		if len(r.Failures) > 0 {
			verdict += " (" + strings.Join(r.Failures, ", ") + ")"
		}
	}
	psi := "n/a (" + oneLine(rd.PSIMissing) + ")"
	if rd.PSI != nil {
		psi = fmt.Sprintf("%.2f (max %s)", *rd.PSI, num(t.MaxPSI))
	}
	thr := "n/a (" + oneLine(rd.ThrottledFrom) + ")"
	if rd.Throttled != nil {
		thr = fmt.Sprintf("%d (max %d, %s)", *rd.Throttled, t.MaxThrottled, oneLine(rd.ThrottledFrom))
	}
	load := "n/a"
	if rd.LoadPerCPU != nil {
		load = fmt.Sprintf("%.2f (advice)", *rd.LoadPerCPU)
	}
	lines := []string{
		"quiet: " + verdict,
		fmt.Sprintf("quiet-busy: %s (max %s, own process excluded)", val(rd.BusyPct), pct(t.MaxBusyPct)),
		fmt.Sprintf("quiet-steal: %s (max %s)", val(rd.StealPct), pct(t.MaxStealPct)),
		fmt.Sprintf("quiet-iowait: %s (max %s)", val(rd.IOWaitPct), pct(t.MaxIOWaitPct)),
		"quiet-psi-cpu-some-avg10: " + psi,
		"quiet-throttled: " + thr,
		"quiet-load-per-cpu: " + load,
		fmt.Sprintf("quiet-window: %s over %d CPUs", rd.Window.Round(10*time.Millisecond), rd.CPUs),
		"quiet-kernel: " + oneLine(r.Host.Kernel),
		"quiet-cpu-model: " + oneLine(r.Host.CPUModel),
		"quiet-governor: " + oneLine(r.Host.Governor),
		"quiet-turbo: " + oneLine(r.Host.Turbo),
	}
	return lines
}

// oneLine keeps a recorded value on one config line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "unknown"
	}
	return s
}
