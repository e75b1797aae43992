package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
)

// stuckReader reads r, then gives empty reads (no bytes, no error) for
// ever, counting them.
type stuckReader struct {
	r     io.Reader
	empty int
}

func (s *stuckReader) Read(p []byte) (int, error) {
	if n, err := s.r.Read(p); n > 0 || (err != nil && err != io.EOF) {
		return n, err
	}
	s.empty++
	return 0, nil
}

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
		s := &stuckReader{r: bytes.NewReader(c.in)}
		var out, errb bytes.Buffer
		code := run([]string{"decode"}, s, &out, &errb)
		want := "wire decode: stdin: the input is stuck at stream offset " + strconv.Itoa(c.offset) + ": it gave only empty reads"
		if code != 1 || !strings.Contains(errb.String(), want) || out.String() != c.out {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want %q)", name, code, out.String(), errb.String(), want)
		}
		if s.empty != 100 {
			t.Errorf("%s: %d empty reads before giving up, want 100 (one retry loop)", name, s.empty)
		}
	}
}
