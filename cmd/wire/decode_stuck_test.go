package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/testio"
)

// TestDecodeStuckInput: an input of endless empty reads ends the run with
// an error naming the input and the offset where it stuck, after the one
// retry of empty reads (codec.Reader's, 100 in a row), whether it sticks
// between frames or inside one; the frames before it are printed.
func TestDecodeStuckInput(t *testing.T) {
	ping := vtSample(t, "ping")
	big := vtFrameOf(make([]byte, 64<<10)) // read in place, past the read-ahead
	for name, c := range map[string]struct {
		in     []byte
		offset int
		out    string
	}{
		"at the start":         {nil, 0, ""},
		"after a frame":        {ping, len(ping), `{"kind":"ping","nonce":1}` + "\n"},
		"inside a header":      {ping[:2], 2, ""},
		"inside a large frame": {big[:40<<10], 40 << 10, ""},
	} {
		s := &testio.Stuck{R: bytes.NewReader(c.in)}
		var out, errb bytes.Buffer
		code := run([]string{"decode"}, s, &out, &errb)
		want := "wire decode: stdin: the input is stuck at stream offset " + strconv.Itoa(c.offset) + ": it gave only empty reads"
		if code != 1 || !strings.Contains(errb.String(), want) || out.String() != c.out {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want %q)", name, code, out.String(), errb.String(), want)
		}
		if s.Empty != 100 {
			t.Errorf("%s: %d empty reads before giving up, want 100 (one retry loop)", name, s.Empty)
		}
	}
}
