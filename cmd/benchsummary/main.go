// Command benchsummary writes the Markdown summary of a `make micro` run:
//
//	benchsummary [-baseline reports/micro/baseline.json] [-unverified]
//	             [-counts reports/micro/counts.txt] [-svg latest.svg]
//	             [-attach 'title=file']... [-o latest.md] [reports/micro/latest.txt]
//
// -counts adds the instruction counts of make micro-count (a missing file
// is noted on stderr, not an error); -svg writes the chart of the run
// (summary.WriteChart) to a file and embeds it in the summary by its
// path relative to the summary's directory.
// The baseline may be the JSON form (wirebench.micro/v1) or Go benchmark
// text; a missing baseline file is noted in the summary, not an error.
// -attach appends a text report (benchstat output) in a collapsed section.
// The summary goes to stdout, or to -o. Exit status 1 on error.
//
//	benchsummary diff [-base-counts file] -head-counts file
//	             [-base-times file -head-times file] [-base-rev name]
//	             [-head-rev name] [-threshold 2] [-rounds n] [-unverified]
//	             [-benchstat file] [-o reports/micro] [-chart path]
//
// writes the reports of make micro-diff (diff.txt, diff.md, diff.svg; see
// internal/diff) and prints diff.txt. Exit status 1 when a row of ours
// grew more than -threshold percent in instructions/op or at all in
// allocs/op, 2 on error.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wirebench/wirebench/bench/baseline"
	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/cmd/benchsummary/internal/summary"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "diff" {
		switch err := runDiff(os.Args[2:], os.Stdout); {
		case errors.Is(err, errFailed):
			os.Exit(1)
		case err != nil:
			fmt.Fprintf(os.Stderr, "benchsummary diff: %v\n", err)
			os.Exit(2)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchsummary: %v\n", err)
		os.Exit(1)
	}
}

type attachFlag []summary.Attachment

func (a *attachFlag) String() string { return fmt.Sprint(len(*a), " attachments") }

func (a *attachFlag) Set(v string) error {
	title, path, ok := strings.Cut(v, "=")
	if !ok || title == "" || path == "" {
		return fmt.Errorf("want title=file, have %q", v)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	*a = append(*a, summary.Attachment{Title: title, Text: string(data)})
	return nil
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("benchsummary", flag.ContinueOnError)
	var (
		baseline   = fl.String("baseline", "", "baseline `file` (JSON or benchmark text); absent file = no baseline")
		unverified = fl.Bool("unverified", false, "stamp the summary \"host not verified quiet\"")
		out        = fl.String("o", "", "write the summary to `file` instead of stdout")
		countsPath = fl.String("counts", "", "instruction counts `file` of make micro-count (absent file = no counts)")
		svgPath    = fl.String("svg", "", "write the chart to `file` and embed it")
		attach     attachFlag
	)
	fl.Var(&attach, "attach", "append `title=file` (e.g. benchstat output) in a collapsed section; repeatable")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 1 {
		return fmt.Errorf("at most one latest file, have %q", fl.Args())
	}
	latestPath := "reports/micro/latest.txt"
	if fl.NArg() == 1 {
		latestPath = fl.Arg(0)
	}
	latest, err := loadText(latestPath)
	if err != nil {
		return err
	}
	opt := summary.Options{Unverified: *unverified, Attachments: attach}
	if *baseline != "" {
		opt.Baseline, err = loadBaseline(*baseline)
		if errors.Is(err, fs.ErrNotExist) {
			opt.Baseline, opt.BaselineNote = nil, *baseline+" absent"
		} else if err != nil {
			return err
		}
	}
	if *countsPath != "" {
		f, err := os.Open(*countsPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(os.Stderr, "benchsummary: %s absent: no instruction counts in the summary (make micro-count)\n", *countsPath)
		case err != nil:
			return err
		default:
			rows, _, err := count.Read(f, *countsPath)
			f.Close()
			if err != nil {
				return err
			}
			opt.Counts = summary.NewCounts(rows)
		}
	}
	if *svgPath != "" {
		var chart bytes.Buffer
		if err := summary.WriteChart(&chart, latest, opt.Counts); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(*svgPath), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(*svgPath, chart.Bytes(), 0o644); err != nil {
			return err
		}
		opt.Chart = *svgPath
		if *out != "" {
			if rel, err := filepath.Rel(filepath.Dir(*out), *svgPath); err == nil {
				opt.Chart = rel
			}
		}
	}
	var buf bytes.Buffer
	if err := summary.Write(&buf, latest, opt); err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	if dir := filepath.Dir(*out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

func loadText(path string) (*summary.Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return summary.Load(f, filepath.Base(path))
}

// loadBaseline reads a JSON baseline through its text form, or text as is.
func loadBaseline(path string) (*summary.Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		doc, err := baseline.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var text bytes.Buffer
		if err := baseline.WriteText(&text, doc); err != nil {
			return nil, err
		}
		data = text.Bytes()
	}
	return summary.Load(bytes.NewReader(data), filepath.Base(path))
}
