//go:build !race

// The race detector multiplies memory use, which these tests measure.

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec/schema"
)

// lineReader streams a JSON line of any length without holding it: head,
// then fill repeated n times, then tail, then more.
type lineReader struct {
	parts [][]byte
	fill  []byte
	n     int // repetitions of fill left, between parts[0] and parts[1]
	pos   int // in fill
}

func newLineReader(head, fill string, n int, tail string) *lineReader {
	return &lineReader{parts: [][]byte{[]byte(head), []byte(tail)}, fill: []byte(fill), n: n}
}

func (r *lineReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		switch {
		case len(r.parts) == 2 && len(r.parts[0]) > 0:
			c := copy(p[w:], r.parts[0])
			r.parts[0] = r.parts[0][c:]
			w += c
		case r.n > 0:
			c := copy(p[w:], r.fill[r.pos:])
			w += c
			if r.pos += c; r.pos == len(r.fill) {
				r.pos = 0
				r.n--
			}
		case len(r.parts) == 2:
			r.parts = r.parts[1:]
		case len(r.parts[0]) > 0:
			c := copy(p[w:], r.parts[0])
			r.parts[0] = r.parts[0][c:]
			w += c
		default:
			if w == 0 {
				return 0, io.EOF
			}
			return w, nil
		}
	}
	return w, nil
}

// frameCounter keeps the count and the payload lengths of the frames
// written, not the frames.
type frameCounter struct {
	n       int64
	head    []byte
	lengths []uint32
	left    int64 // bytes of the current frame's payload still to come
}

func (f *frameCounter) Write(p []byte) (int, error) {
	f.n += int64(len(p))
	for q := p; len(q) > 0; {
		if f.left > 0 {
			k := min(f.left, int64(len(q)))
			f.left -= k
			q = q[k:]
			continue
		}
		k := min(schema.HeaderLen-len(f.head), len(q))
		f.head = append(f.head, q[:k]...)
		q = q[k:]
		if len(f.head) == schema.HeaderLen {
			size := binary.BigEndian.Uint32(f.head)
			f.lengths = append(f.lengths, size)
			f.left, f.head = int64(size), f.head[:0]
		}
	}
	return len(p), nil
}

// tapLine is a small good line, written before and after a large one.
const tapLine = `{"kind":"request","id":6,"method":"tap","params":{"x":540,"y":1200}}` + "\n"

// memoryCases are lines that test wire encode's memory bound at the
// default limit, each made by a reader: the largest frame there is (an
// image event just under 16 MiB, from a 22 MB line), a line over the
// longest allowed, and a message that takes more memory than its line
// may (ten million versions: 40 MB as Go holds them, from a 20 MB line).
var memoryCases = map[string]struct {
	in   func() io.Reader
	want string // in stderr; "" for none
	tail []uint32
}{
	"image": {func() io.Reader {
		return io.MultiReader(strings.NewReader(tapLine), newLineReader(`{"kind":"event","stream":"frames","seq":1,"type":"frame","width":1,"height":1,"format":0,"uptime_ms":0,"image":"`,
			strings.Repeat("AAAA", 1024), imageKiB3, "\"}\n"+tapLine))
	}, "", []uint32{imageKiB3*3<<10 + 14}}, // 14: the event's head and the image's
	"overlong": {func() io.Reader {
		return io.MultiReader(strings.NewReader(tapLine), newLineReader(`{"kind":"request","id":6,"method":"type_text","params":{"text":"`,
			strings.Repeat("x", 1024), 200<<10, "\"}}\n"+tapLine))
	}, "longer than", nil},
	"versions": {func() io.Reader {
		return io.MultiReader(strings.NewReader(tapLine), newLineReader(`{"kind":"hello","versions":[`,
			strings.Repeat("1,", 1000), 10_000, `1],"max_frame":16777216,"capabilities":0,"agent":"a"}`+"\n"+tapLine))
	}, "field /versions: the message takes more memory", nil},
}

// imageKiB3 is the image of the largest frame in units of 3 KiB (4 KiB
// of base64): its payload is just under the default limit.
const imageKiB3 = (schema.DefaultMaxFrame - 64) / (3 << 10)

// encodeMemoryChild names the case the test binary, run again as a
// child, encodes instead of running its tests.
const encodeMemoryChild = "WIRE_ENCODE_MEMORY_CHILD"

// TestEncodeBoundedMemory encodes each memory case in a child process
// and checks what the encoding added to the child's resident memory (its
// high-water mark, VmHWM, less what it held before it read a byte: the
// binary, the runtime and the tables packages fill at start, such as
// gopacket's 8 MiB of link-layer tables) against the bound of issue 26:
// 1.5 × the frame limit + 32 MiB, 56 MiB at the default 16 MiB. Before the bound a
// line over the longest allowed peaked at 413 MB, and the versions line
// at 180 MB.
func TestEncodeBoundedMemory(t *testing.T) {
	if name := os.Getenv(encodeMemoryChild); name != "" {
		encodeMemoryInChild(name)
		return
	}
	bound := encodeBudget(schema.DefaultMaxFrame)
	for name, c := range memoryCases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestEncodeBoundedMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), encodeMemoryChild+"="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			tap := uint32(len(vtSample(t, "request_tap")) - schema.HeaderLen)
			want := fmt.Sprint(append(append([]uint32{tap}, c.tail...), tap))
			if !strings.Contains(string(out), "frames "+want) {
				t.Errorf("child wrote other frames than %s: %s", want, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("child's stderr lacks %q: %s", c.want, out)
			}
			// The child's own high-water mark: its rusage may carry the
			// parent's, whose address space it shared until exec.
			start, hwm := childKiB(t, out, "VmRSS0 "), childKiB(t, out, "VmHWM ")
			peak := (hwm - start) << 10
			t.Logf("%s: resident %.1f MiB at start, peak %.1f MiB: encoding added %.1f MiB, bound %d MiB", name,
				float64(start)/(1<<10), float64(hwm)/(1<<10), float64(peak)/(1<<20), bound>>20)
			if peak > bound {
				t.Errorf("%s: encoding added %.1f MiB at its peak, over the bound of %d MiB", name, float64(peak)/(1<<20), bound>>20)
			}
		})
	}
}

// encodeMemoryInChild runs wire encode on the named case and reports the
// payload lengths of the frames it wrote, and its stderr.
func encodeMemoryInChild(name string) {
	var out frameCounter
	var errb bytes.Buffer
	in := memoryCases[name].in()
	fmt.Printf("VmRSS0 %d\n", procStatusKiB("VmRSS:"))
	code := run([]string{"encode"}, in, &out, &errb)
	fmt.Printf("exit %d, frames %v, stderr %q\n", code, out.lengths, errb.String())
	fmt.Printf("VmHWM %d\n", procStatusKiB("VmHWM:"))
	os.Exit(0)
}

// procStatusKiB reads one of this process's /proc/self/status sizes, in
// KiB (-1 when it is not there).
func procStatusKiB(key string) int64 {
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb
			}
		}
	}
	return -1
}

// childKiB reads the size the child printed after label, in KiB.
func childKiB(t *testing.T, out []byte, label string) int64 {
	t.Helper()
	_, rest, ok := strings.Cut(string(out), label)
	rest, _, _ = strings.Cut(rest, "\n")
	kb, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
	if !ok || err != nil || kb < 0 {
		t.Fatalf("no %q in the child's output: %s", label, out)
	}
	return kb
}

// TestEncodeOverlongLineAllocation feeds a line four times the longest
// allowed through a reader, in this process: wire encode refuses it after
// allocating no more than the memory bound in total, and encodes the
// good lines around it.
func TestEncodeOverlongLineAllocation(t *testing.T) {
	const limit = schema.DefaultMaxFrame
	n := 4 * maxLineLen(limit) / 1024
	in := io.MultiReader(strings.NewReader(tapLine), newLineReader(`{"kind":"request","id":6,"method":"type_text","params":{"text":"`,
		strings.Repeat("x", 1024), n, "\"}}\n"+tapLine))
	var out frameCounter
	var errb bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := run([]string{"encode"}, in, &out, &errb)
	runtime.ReadMemStats(&after)
	total := int64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("a %d MiB line: %.1f MiB allocated in total", n>>10, float64(total)/(1<<20))
	tap := uint32(len(vtSample(t, "request_tap")) - schema.HeaderLen)
	if code != 1 || !strings.Contains(errb.String(), "line 2: longer than") || fmt.Sprint(out.lengths) != fmt.Sprint([]uint32{tap, tap}) {
		t.Errorf("exit %d, frames %v, stderr %q", code, out.lengths, errb.String())
	}
	if bound := encodeBudget(limit); total > bound {
		t.Errorf("allocated %d bytes, over the bound of %d", total, bound)
	}
}

// TestEncodeLineAtTheLimit: a line of exactly maxLineLen bytes is read,
// one byte more is refused as too long, for a small limit.
func TestEncodeLineAtTheLimit(t *testing.T) {
	const limit = 4096
	max := maxLineLen(limit)
	head := `{"kind":"request","id":6,"method":"type_text","params":{"text":"`
	tail := `"}}`
	for _, c := range []struct {
		extra int
		want  string
	}{{0, "over -max-frame 4096"}, {1, "longer than"}} {
		n := max - len(head) - len(tail) + c.extra
		line := head + strings.Repeat("x", n) + tail + "\n"
		code, _, errs := vtRun(t, []byte(line), "encode", "-max-frame", "4096")
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("a line of %d bytes: exit %d, stderr %q, want %q", len(line)-1, code, errs, c.want)
		}
	}
}
