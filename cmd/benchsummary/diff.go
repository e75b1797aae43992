package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wirebench/wirebench/bench/count"
	"github.com/wirebench/wirebench/cmd/benchsummary/internal/diff"
)

// errFailed is a diff whose verdict fails: exit status 1.
var errFailed = errors.New("the diff failed its gate")

// runDiff is `benchsummary diff`: the reports of make micro-diff.
func runDiff(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("benchsummary diff", flag.ContinueOnError)
	var (
		baseCounts = fl.String("base-counts", "", "the base's counts `file` (cmd/benchcount run); none: the base has none of the rows")
		headCounts = fl.String("head-counts", "", "the head's counts `file`")
		baseTimes  = fl.String("base-times", "", "the base's timed rounds `file` (Go benchmark text; empty: none)")
		headTimes  = fl.String("head-times", "", "the head's timed rounds `file`")
		baseRev    = fl.String("base-rev", "base", "the base revision's `name`, for the reports")
		headRev    = fl.String("head-rev", "head", "the head revision's `name`")
		threshold  = fl.String("threshold", "2", "how much instructions/op may grow, in `percent`")
		rounds     = fl.Int("rounds", 0, "how many interleaved rounds were timed")
		unverified = fl.Bool("unverified", false, "stamp the reports \"host not verified quiet\"")
		benchstat  = fl.String("benchstat", "", "benchstat's comparison of the timings, attached (`file`)")
		out        = fl.String("o", "reports/micro", "write diff.txt, diff.md and diff.svg into `dir`")
		chart      = fl.String("chart", "", "where diff.md says the chart is (`path or URL`; default: diff.svg in -o)")
	)
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 || *headCounts == "" {
		return errors.New("usage: benchsummary diff [-base-counts file] -head-counts file [-base-times file -head-times file] [-threshold percent] [-o dir]")
	}
	th, err := parsePercent(*threshold)
	if err != nil {
		return err
	}
	base := diff.Side{Rev: *baseRev}
	head := diff.Side{Rev: *headRev}
	if *baseCounts != "" {
		if base.Counts, err = count.ReadFile(*baseCounts); err != nil {
			return err
		}
	}
	if head.Counts, err = count.ReadFile(*headCounts); err != nil {
		return err
	}
	if *baseTimes != "" {
		if base.Times, err = loadText(*baseTimes); err != nil {
			return err
		}
	}
	if *headTimes != "" {
		if head.Times, err = loadText(*headTimes); err != nil {
			return err
		}
	}
	var bs string
	if *benchstat != "" {
		data, err := os.ReadFile(*benchstat)
		if err != nil {
			return err
		}
		bs = string(data)
	}
	res := diff.Compare(base, head, diff.Options{Threshold: th, Unverified: *unverified, Rounds: *rounds})
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var txt, md, svg bytes.Buffer
	if err := res.WriteText(&txt, bs); err != nil {
		return err
	}
	if *chart == "" {
		*chart = filepath.ToSlash(filepath.Join(*out, "diff.svg"))
	}
	if err := res.WriteMarkdown(&md, bs, *chart); err != nil {
		return err
	}
	if err := res.WriteChart(&svg); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"diff.txt": txt.Bytes(), "diff.md": md.Bytes(), "diff.svg": svg.Bytes()} {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			return err
		}
	}
	if _, err := stdout.Write(txt.Bytes()); err != nil {
		return err
	}
	if res.Failed {
		return errFailed
	}
	return nil
}

// parsePercent reads a threshold in percent: "2", "2%", "0.5 %".
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || v < 0 || v > 1000 {
		return 0, fmt.Errorf("threshold %q: want a percentage from 0 to 1000, such as 2 or 0.5", s)
	}
	return v / 100, nil
}
