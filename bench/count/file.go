package count

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Units of a counts file.
const (
	UnitInstructions = "instructions/op"
	UnitCycles       = "est-cycles/op"
	UnitAllocs       = "allocs/op"
	UnitBytes        = "B/op"
)

// Row is one benchmark's line of a counts file.
type Row struct {
	Name         string  // full benchmark name, "BenchmarkDecode/impl=codec/msg=request_tap"
	N            int     // b.N of the longer counted run
	Instructions float64 // per op
	// Cycles is the estimated cycles per op (see the package doc): the
	// loop's under a cache simulation and the collector's share of the
	// bytes it allocates (-1: not counted, a file from before it).
	Cycles float64
	Allocs float64 // per op, counted around the same loop (-1: not counted)
	Bytes  float64 // per op (-1: not counted)
}

// Config is one "key: value" line of a counts file's header.
type Config struct{ Key, Value string }

// Write writes rows as Go benchmark text after the header lines cfg, with
// unit metadata: instructions/op and allocs/op are exact (the same binary
// counts the same on every run); B/op is not declared exact, as it moves
// with the size classes a growing buffer lands in.
func Write(w io.Writer, cfg []Config, rows []Row) error {
	var b strings.Builder
	for _, c := range cfg {
		fmt.Fprintf(&b, "%s: %s\n", c.Key, c.Value)
	}
	b.WriteString("Unit " + UnitInstructions + " assume=exact\n")
	b.WriteString("Unit " + UnitAllocs + " assume=exact\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%d\t%s %s", r.Name, r.N, strconv.FormatFloat(r.Instructions, 'f', 1, 64), UnitInstructions)
		if r.Cycles >= 0 {
			fmt.Fprintf(&b, "\t%s %s", strconv.FormatFloat(r.Cycles, 'f', 1, 64), UnitCycles)
		}
		if r.Allocs >= 0 {
			fmt.Fprintf(&b, "\t%s %s\t%s %s", trim(r.Allocs), UnitAllocs, trim(r.Bytes), UnitBytes)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func trim(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Read reads a counts file (or any Go benchmark text with instructions/op):
// its rows, the last of each name winning, and the configuration of its
// first result.
func Read(r io.Reader, name string) ([]Row, []Config, error) {
	br := benchfmt.NewReader(r, name)
	var rows []Row
	var cfg []Config
	at := map[string]int{}
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if cfg == nil {
			for _, c := range res.Config {
				cfg = append(cfg, Config{c.Key, string(c.Value)})
			}
		}
		row := Row{Name: "Benchmark" + string(res.Name), N: res.Iters, Cycles: -1, Allocs: -1, Bytes: -1}
		have := false
		for _, v := range res.Values {
			switch v.Unit {
			case UnitInstructions:
				row.Instructions, have = v.Value, true
			case UnitCycles:
				row.Cycles = v.Value
			case UnitAllocs:
				row.Allocs = v.Value
			case UnitBytes:
				row.Bytes = v.Value
			}
		}
		if !have {
			continue
		}
		if i, ok := at[row.Name]; ok {
			rows[i] = row
			continue
		}
		at[row.Name] = len(rows)
		rows = append(rows, row)
	}
	if err := br.Err(); err != nil {
		return nil, nil, err
	}
	return rows, cfg, nil
}

// ReadFile reads the counts file at path (Read); a file without an
// instructions/op row is an error.
func ReadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, _, err := Read(f, path)
	if err == nil && len(rows) == 0 {
		err = fmt.Errorf("%s: no instructions/op rows", path)
	}
	return rows, err
}
