package main

// The verbs' flags: -max-frame, usage, and parsing.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wirebench/wirebench/codec/schema"
)

// maxFrameFlag is -max-frame: a byte count, optionally with a K, KiB, M or
// MiB suffix, from 0 to 2^32-1.
type maxFrameFlag struct {
	limit uint32
}

func (f *maxFrameFlag) String() string { return strconv.FormatUint(uint64(f.limit), 10) }

func (f *maxFrameFlag) Set(s string) error {
	mult := uint64(1)
	num := s
	for _, suf := range []struct {
		s string
		m uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}} {
		if rest, ok := strings.CutSuffix(s, suf.s); ok {
			num, mult = rest, suf.m
			break
		}
	}
	v, err := strconv.ParseUint(num, 10, 32)
	if err != nil || v*mult > 1<<32-1 {
		return errors.New("want a byte count from 0 to 4294967295 (K, KiB, M, MiB suffixes allowed)")
	}
	f.limit = uint32(v * mult)
	return nil
}

// newFlagSet returns a verb's flag set with -max-frame registered.
func newFlagSet(verb, args, doc string, stderr io.Writer) (*flag.FlagSet, *maxFrameFlag) {
	return flagSet(verb, fmt.Sprintf("usage: wire %s [flags] %s\n\n%s\n\nflags:\n", verb, args, doc), stderr)
}

// flagSet returns the flag set of a verb, reporting to stderr, whose -h
// prints usage and then the flags, with -max-frame already defined.
func flagSet(verb, usage string, stderr io.Writer) (*flag.FlagSet, *maxFrameFlag) {
	fs := flag.NewFlagSet("wire "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	mf := &maxFrameFlag{limit: schema.DefaultMaxFrame}
	fs.Var(mf, "max-frame", "the frame limit in bytes, K, KiB, M or MiB suffixes allowed (default 16777216 = 16 MiB)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs, mf
}

// parseExit is the exit status of a flag parse that failed: 0 after -h,
// 2 after a usage error (the flag package has reported it).
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// sessionLimit checks a session verb's -max-frame against the least the
// protocol allows.
func sessionLimit(mf *maxFrameFlag) error {
	if mf.limit < schema.MinMaxFrame {
		return fmt.Errorf("-max-frame %d: want %d to 4294967295", mf.limit, schema.MinMaxFrame)
	}
	return nil
}

// verbArgs parses the arguments of a verb that reads files and whose one
// flag is -max-frame: the files, the frame limit, and code as parseFlags
// returns it.
func verbArgs(verb, doc string, args []string, stderr io.Writer) ([]string, uint32, int) {
	fs, mf := newFlagSet(verb, "[FILE...]", doc, stderr)
	names, code := parseFlags(fs, args)
	return names, mf.limit, code
}

// parseFlags parses flags anywhere among the arguments (until "--") and
// returns the other arguments. code is -1 to go on, or the exit status:
// 0 after -h, 2 after a usage error (already reported).
func parseFlags(fs *flag.FlagSet, args []string) (rest []string, code int) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, parseExit(err)
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, -1
		}
		// fs.Parse stops at the first non-flag, or consumes "--" and
		// stops after it: then everything left is an argument.
		if used := len(args) - len(left); used > 0 && args[used-1] == "--" {
			return append(rest, left...), -1
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}
