package quiet

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Waiter waits for a quiet host: it measures back-to-back windows and
// succeeds after Need quiet windows in a row, or gives up once Wait has
// passed. Its clock and sampler are fields so that tests can drive it with
// recorded samples and no real sleeping.
type Waiter struct {
	Sample     func() (Snapshot, error)                   // reads the counters
	Sleep      func(context.Context, time.Duration) error // waits one window
	Now        func() time.Time
	Window     time.Duration // length of one window
	Wait       time.Duration // give up after this long; at least one window always runs
	Need       int           // quiet windows in a row required
	Thresholds Thresholds
	// Progress, when not nil, gets one line per window: each reading
	// against its threshold and the current streak.
	Progress io.Writer
}

// Outcome is the result of Waiter.Run.
type Outcome struct {
	Quiet    bool     // Need quiet windows in a row were seen in time
	Windows  int      // windows measured
	Streak   int      // quiet windows in a row at the end
	Last     Readings // readings of the last window
	Failures []Failure
	// FailedWindow is the window (1-based) the Failures are from: the last
	// one that was not quiet, 0 if every window was quiet.
	FailedWindow int
	// FailedReadings are the readings of FailedWindow.
	FailedReadings Readings
}

// Run measures windows until the host is quiet or Wait has passed. Errors
// reading the counters end the wait at once.
func (w *Waiter) Run(ctx context.Context) (Outcome, error) {
	var out Outcome
	if w.Window <= 0 {
		return out, fmt.Errorf("window %v: must be positive", w.Window)
	}
	need := max(w.Need, 1)
	start := w.Now()
	before, err := w.Sample()
	if err != nil {
		return out, err
	}
	t0 := start
	for {
		if err := w.Sleep(ctx, w.Window); err != nil {
			return out, err
		}
		after, err := w.Sample()
		if err != nil {
			return out, err
		}
		t1 := w.Now()
		r, err := Measure(before, after, t1.Sub(t0))
		if err != nil {
			return out, err
		}
		out.Windows++
		out.Last = r
		if f := r.Check(w.Thresholds); len(f) > 0 {
			out.Streak = 0
			out.Failures, out.FailedWindow, out.FailedReadings = f, out.Windows, r
		} else {
			out.Streak++
		}
		out.Quiet = out.Streak >= need
		if w.Progress != nil {
			fmt.Fprintf(w.Progress, "quiethost: window %d (%s): %s => %d/%d quiet in a row\n",
				out.Windows, t1.Sub(start).Round(100*time.Millisecond), r.Progress(w.Thresholds), out.Streak, need)
		}
		if out.Quiet || t1.Sub(start) >= w.Wait {
			return out, nil
		}
		before, t0 = after, t1
	}
}

// SleepContext sleeps for d or until ctx is done.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
