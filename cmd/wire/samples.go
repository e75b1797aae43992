package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// runSamples is `wire samples`: without names it lists the golden samples,
// one name per line; with names it writes those samples as frames, back to
// back, to stdout or to the file of -o.
func runSamples(args []string, stdout, stderr io.Writer) int {
	fs, maxFrame := newFlagSet("samples", "[NAME...]", "Lists the golden samples, one name per line, or writes the named ones as\nframes (to stdout, or to the file given with -o).", stderr)
	outName := fs.String("o", "", "write the frames to this `file` instead of stdout")
	names, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	rep := &reporter{verb: "samples", w: stderr}
	if len(names) == 0 {
		if *outName != "" {
			fmt.Fprintln(stderr, "wire samples: -o needs a sample NAME")
			return 2
		}
		w := bufio.NewWriter(stdout)
		for _, s := range golden.Samples() {
			fmt.Fprintln(w, s.Name)
		}
		if err := w.Flush(); err != nil {
			rep.reportf("%v", err)
		}
		return rep.status()
	}
	var frames []byte
	for _, name := range names {
		s, ok := golden.Lookup(name)
		if !ok {
			rep.reportf("no golden sample named %q (run 'wire samples' for the list)", name)
			continue
		}
		var err error
		if frames, err = codec.AppendFrame(frames, s.Msg, maxFrame.limit); err != nil {
			rep.reportf("sample %s: %v", name, err)
		}
	}
	if rep.n > 0 {
		return 1
	}
	var err error
	if *outName != "" {
		err = os.WriteFile(*outName, frames, 0o644)
	} else {
		_, err = stdout.Write(frames)
	}
	if err != nil {
		rep.reportf("%v", err)
	}
	return rep.status()
}
