// Command quiethost decides whether this host is quiet enough to run
// benchmarks on, and waits until it is.
//
// It measures back-to-back windows (default 2 s) and reads, per window:
//
//   - busy: CPU time used by other processes, as % of all CPUs' capacity,
//     from /proc/stat minus quiethost's own /proc/self/stat;
//   - steal: time the hypervisor gave our virtual CPUs to someone else, %;
//   - iowait: %, from /proc/stat;
//   - psi: "some avg10" of /proc/pressure/cpu, where present;
//   - throttled: increase of nr_throttled in the cgroup's cpu.stat (v2 or
//     v1), where present;
//   - load per CPU (one-minute load average / CPUs): advice, never failed on.
//
// The kernel, CPU model, cpufreq governor and turbo state are recorded and
// never failed on (they are often unreadable in containers).
//
// The host is quiet after -need (default 3) quiet windows in a row. One
// progress line per window goes to stderr. The final readings go to stdout
// as Go benchmark configuration lines ("quiet-busy: 1.2% (max 10%)"), or as
// JSON with -json. With -record, quiethost measures one window and reports
// it without deciding (verdict "host not verified quiet").
//
// Exit status: 0 quiet (or recorded with -record), 1 not quiet within
// -wait (the failing readings are printed on stderr), 2 error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/wirebench/wirebench/bench/quiet"
)

// source is what quiethost reads: quiet.Source, or recorded samples in tests.
type source interface {
	Snapshot() (quiet.Snapshot, error)
	Host() quiet.Host
}

// newSource opens the filesystem root to read; tests replace it.
var newSource = func(root string) source { return quiet.Source{FS: os.DirFS(root)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("quiethost", flag.ContinueOnError)
	fl.SetOutput(stderr)
	t := quiet.DefaultThresholds
	var (
		wait    = fl.Duration("wait", 10*time.Minute, "give up when the host is not quiet after this long")
		window  = fl.Duration("window", 2*time.Second, "length of one measurement window")
		need    = fl.Int("need", 3, "quiet windows in a row that make the host quiet")
		asJSON  = fl.Bool("json", false, "print the final readings as JSON instead of config lines")
		record  = fl.Bool("record", false, "measure one window and print its readings without deciding (exit 0)")
		root    = fl.String("root", "/", "filesystem root holding proc/ and sys/ (for recorded samples)")
		quietly = fl.Bool("q", false, "no progress lines on stderr")
	)
	fl.Float64Var(&t.MaxBusyPct, "max-busy", t.MaxBusyPct, "max CPU busy by other processes, `percent` of all CPUs")
	fl.Float64Var(&t.MaxStealPct, "max-steal", t.MaxStealPct, "max hypervisor steal, `percent` of all CPUs")
	fl.Float64Var(&t.MaxIOWaitPct, "max-iowait", t.MaxIOWaitPct, "max iowait, `percent` of all CPUs")
	fl.Float64Var(&t.MaxPSI, "max-psi", t.MaxPSI, "max /proc/pressure/cpu some avg10 (`percent`; not checked where absent)")
	fl.Uint64Var(&t.MaxThrottled, "max-throttled", t.MaxThrottled, "max cgroup nr_throttled increase per window (`periods`, default 0; not checked where absent)")
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), `usage: quiethost [flags]

Waits until this host is quiet enough for benchmarks: -need windows in a
row with every reading within its threshold. Readings per window:
  busy       CPU time of other processes, % of all CPUs (/proc/stat minus
             quiethost's own /proc/self/stat)
  steal      hypervisor steal, % of all CPUs (/proc/stat)
  iowait     % of all CPUs (/proc/stat)
  psi        /proc/pressure/cpu "some avg10", where present
  throttled  nr_throttled increase of the cgroup's cpu.stat (v2 or v1),
             where present
  load/cpu   1-minute load average / CPUs: advice only, never failed on
Kernel, CPU model, governor and turbo are recorded, never failed on.
Prints the final readings as benchmark config lines ("quiet-busy: ...")
or JSON on stdout, and one progress line per window on stderr.

Exit status: 0 quiet, 1 not quiet within -wait, 2 error.

Flags:
`)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "quiethost: unexpected arguments %q\n", fl.Args())
		return 2
	}
	if *window <= 0 || *wait < 0 || *need < 1 {
		fmt.Fprintln(stderr, "quiethost: -window must be positive, -wait not negative, -need at least 1")
		return 2
	}

	src := newSource(*root)
	w := &quiet.Waiter{
		Sample:     src.Snapshot,
		Sleep:      quiet.SleepContext,
		Now:        time.Now,
		Window:     *window,
		Wait:       *wait,
		Need:       *need,
		Thresholds: t,
		Progress:   stderr,
	}
	if *quietly {
		w.Progress = nil
	}
	if *record {
		w.Need, w.Wait = 1, 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := w.Run(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "quiethost: %v\n", err)
		return 2
	}
	rep := quiet.NewReport(out, w, src.Host(), !*record)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "quiethost: %v\n", err)
			return 2
		}
	} else {
		fmt.Fprintln(stdout, strings.Join(rep.ConfigLines(), "\n"))
	}
	if rep.Verdict == quiet.VerdictNotQuiet {
		fmt.Fprintf(stderr, "quiethost: host not quiet within %s (%d window(s), needed %d quiet in a row); failing readings of window %d: %s\n",
			*wait, out.Windows, w.Need, out.FailedWindow, strings.Join(rep.Failures, ", "))
		if out.FailedWindow == 0 {
			fmt.Fprintf(stderr, "quiethost: every window was quiet but -wait ended after %d of %d\n", out.Streak, w.Need)
		}
		return 1
	}
	return 0
}
