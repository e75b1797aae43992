// Command benchjson converts between Go benchmark text and the workbench's
// JSON baseline form (schema "wirebench.micro/v1", see package
// bench/baseline):
//
//	benchjson tojson [-o out.json] [in.txt]   text → JSON
//	benchjson totext [-o out.txt] [in.json]   JSON → canonical text
//
// Input defaults to stdin, output to stdout. An output file is written
// through a temporary file and renamed, so a failed conversion never
// leaves a half-written baseline. Exit status 1 on any error.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wirebench/wirebench/bench/baseline"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchjson: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage: benchjson tojson|totext [-o file] [input]

  tojson  Go benchmark text (go test -bench output) to JSON
  totext  JSON to canonical Go benchmark text, e.g. for benchstat
`

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("missing verb\n%s", usage)
	}
	verb := args[0]
	fl := flag.NewFlagSet("benchjson "+verb, flag.ContinueOnError)
	out := fl.String("o", "", "write to `file` instead of stdout")
	fl.SetOutput(io.Discard)
	if err := fl.Parse(args[1:]); err != nil {
		return fmt.Errorf("%v\n%s", err, usage)
	}
	if fl.NArg() > 1 {
		return fmt.Errorf("at most one input file\n%s", usage)
	}
	in, inName := stdin, "stdin"
	if fl.NArg() == 1 {
		f, err := os.Open(fl.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in, inName = f, fl.Arg(0)
	}
	var buf bytes.Buffer
	switch verb {
	case "tojson":
		doc, err := baseline.ReadText(in, inName)
		if err != nil {
			return err
		}
		if err := baseline.WriteJSON(&buf, doc); err != nil {
			return err
		}
	case "totext":
		doc, err := baseline.ReadJSON(in)
		if err != nil {
			return fmt.Errorf("%s: %w", inName, err)
		}
		if err := baseline.WriteText(&buf, doc); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown verb %q\n%s", verb, usage)
	}
	if *out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return writeFileAtomic(*out, buf.Bytes())
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
