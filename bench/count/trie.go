package count

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// TrieWalk matches the functions whose count depends on the process's
// random hash seed: the lookup of Go's sync.Map, a hash trie
// (internal/sync.HashTrieMap) that goes down one level, one iteration of
// its loop, for each leading 4-bit group of the key's hash it shares with
// another key. Where a key sits follows the map's seed, random per map and
// process, so the same lookup costs a step of instructions more or less
// from process to process (24 on amd64 with Go 1.26): fxamacker's type
// caches are sync.Maps keyed by reflect.Type, and its encode of
// event_content_changed counted 1461, 1485 or 1509 instructions/op, its
// encode of response_snapshot_500 0.5 % apart, in three processes.
//
// The counts of SeedSensitive rows take that out (see Walk and Levels):
// each lookup is counted as if its key sat at the top of the trie, the
// cheapest any seed gives, whatever this process's seed gave.
var TrieWalk = regexp.MustCompile(`^internal/sync\.\(\*HashTrieMap\[.*\]\)\.Load$`)

// recursion is the suffix callgrind gives a function called within a
// recursion (--separate-recs): "Load'2" when fxamacker's decode, which
// recurses into nested values, looks a type up a level down. It is the
// same code, read as one function.
var recursion = regexp.MustCompile(`'[0-9]+$`)

// walkFunc returns the TrieWalk function that name is, or "".
func walkFunc(name string) string {
	if name = recursion.ReplaceAllString(name, ""); TrieWalk.MatchString(name) {
		return name
	}
	return ""
}

// Walk is what one dump (one thread's) says of a TrieWalk function, from
// callgrind's counts of each of its instructions (--dump-instr=yes). Every
// instruction of the lookup runs once a call (Calls times, as its entry,
// the lowest address, does), once an iteration of the loop (Calls+Deeper
// times, the most), or once an iteration after the first (Deeper times,
// the step down to the next level).
type Walk struct {
	Calls  uint64 // times the function was entered
	Deeper uint64 // iterations of its loop beyond one a call: the levels below the top that its lookups went down
	// Step is the instructions of one level (one iteration: those run
	// Calls+Deeper times and those run Deeper times), 0 when this dump
	// cannot tell them apart: no lookup went deeper (Deeper 0), as many
	// levels as calls (Deeper == Calls), or instructions run another
	// number of times (a lookup that missed, in a warm-up round; an entry
	// run again after the stack grew).
	Step int
}

// walkReader collects the Walks of one dump file from its lines.
type walkReader struct {
	positions int                          // position columns of a cost line
	names     map[string]string            // compressed function names, "(24)" -> name
	inWalk    string                       // the TrieWalk function of the current fn= block, if any
	callCost  bool                         // the next cost line is a call's inclusive cost
	pos       uint64                       // the address of the last cost line
	counts    map[string]map[uint64]uint64 // function -> instruction address -> times run
}

func newWalkReader() *walkReader {
	return &walkReader{positions: 1, names: map[string]string{}, counts: map[string]map[uint64]uint64{}}
}

// name returns the function a fn= or cfn= value names, recording a
// compressed name's first use.
func (r *walkReader) name(v string) string {
	id, name, _ := strings.Cut(v, " ")
	if !strings.HasPrefix(id, "(") {
		return v // not compressed
	}
	if name != "" {
		r.names[id] = name
	}
	return r.names[id]
}

// line reads one line of a dump.
func (r *walkReader) line(s string) error {
	if s == "" {
		return nil
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || c == '*' || c >= '0' && c <= '9':
		return r.cost(s)
	case strings.HasPrefix(s, "positions:"):
		r.positions = len(strings.Fields(s)) - 1
		if f := strings.Fields(s); len(f) < 2 || f[1] != "instr" {
			r.positions = 0 // no addresses: nothing to read
		}
	case strings.HasPrefix(s, "fn="):
		r.inWalk = walkFunc(r.name(s[3:]))
	case strings.HasPrefix(s, "cfn="):
		r.name(s[4:]) // fn= and cfn= share the compressed names
	case strings.HasPrefix(s, "calls="):
		r.callCost = true
	}
	return nil
}

// cost reads a cost line: an instruction's address (absolute, or relative
// to the last line's) and the times it ran, or after calls= the call's
// inclusive cost at the call's address.
func (r *walkReader) cost(s string) error {
	if r.positions == 0 {
		return nil
	}
	f := strings.Fields(s)
	switch p := f[0]; {
	case p == "*":
	case p[0] == '+' || p[0] == '-':
		d, err := strconv.ParseUint(p[1:], 0, 64)
		if err != nil {
			return fmt.Errorf("cost line %q: %v", s, err)
		}
		if p[0] == '+' {
			r.pos += d
		} else {
			r.pos -= d
		}
	default:
		a, err := strconv.ParseUint(p, 0, 64)
		if err != nil {
			return fmt.Errorf("cost line %q: %v", s, err)
		}
		r.pos = a
	}
	if r.callCost {
		r.callCost = false
		return nil
	}
	if r.inWalk == "" {
		return nil
	}
	var n uint64
	if len(f) > r.positions {
		var err error
		if n, err = strconv.ParseUint(f[r.positions], 10, 64); err != nil {
			return fmt.Errorf("cost line %q: %v", s, err)
		}
	}
	m := r.counts[r.inWalk]
	if m == nil {
		m = map[uint64]uint64{}
		r.counts[r.inWalk] = m
	}
	m[r.pos] += n
	return nil
}

// walks returns the Walk of each TrieWalk function the dump counted.
func (r *walkReader) walks() map[string]Walk {
	if len(r.counts) == 0 {
		return nil
	}
	out := map[string]Walk{}
	for fn, counts := range r.counts {
		calls := counts[slices.Min(slices.Collect(maps.Keys(counts)))]
		most := slices.Max(slices.Collect(maps.Values(counts)))
		w := Walk{Calls: calls, Deeper: most - calls}
		if w.Deeper > 0 && w.Deeper != calls {
			step := 0
			for _, n := range counts {
				switch n {
				case calls:
				case calls + w.Deeper, w.Deeper:
					step++
				default:
					step = -1
				}
				if step < 0 {
					break
				}
			}
			w.Step = max(step, 0)
		}
		out[fn] = w
	}
	return out
}

// Levels is the instructions of one level of each TrieWalk function (see
// Walk.Step), learned from the dumps of a run: the same binary walks its
// tries with the same code in every process.
type Levels map[string]int

// learn records the steps the dumps tell; two that differ are an error.
func (l Levels) learn(dumps []Dump) error {
	for _, d := range dumps {
		for fn, w := range d.Walks {
			if w.Step == 0 {
				continue
			}
			if s, ok := l[fn]; ok && s != w.Step {
				return fmt.Errorf("%s: a level of %s counts %d instructions, in another dump %d", d.Name, fn, w.Step, s)
			}
			l[fn] = w.Step
		}
	}
	return nil
}

// topOfTrie returns the count of d with every TrieWalk lookup at the top
// of its trie: Busiest less the instructions of the levels the lookups
// went down.
func (l Levels) topOfTrie(d Dump) (uint64, error) {
	ir := d.Busiest
	for _, fn := range slices.Sorted(maps.Keys(d.Walks)) {
		w := d.Walks[fn]
		if w.Deeper == 0 {
			continue
		}
		step, ok := l[fn]
		if !ok {
			return 0, fmt.Errorf("%s (b.N=%d): %d levels down in %s, and no dump of the run tells the instructions of a level", d.Name, d.N, w.Deeper, fn)
		}
		less := w.Deeper * uint64(step)
		if less > ir {
			return 0, fmt.Errorf("%s (b.N=%d): %d levels of %d instructions in %s exceed the count %d", d.Name, d.N, w.Deeper, step, fn, ir)
		}
		ir -= less
	}
	return ir, nil
}
