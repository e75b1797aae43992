package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
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

// TestDecodeStuckForms: -in hex, base64 and pcap read their input through
// one retry of empty reads too (progressReader: what they make of it never
// reads empty, so codec.Reader's retry never adds to it): 100 empty reads,
// then an error naming where, after the frames before it.
func TestDecodeStuckForms(t *testing.T) {
	ping := vtSample(t, "ping")
	capture, err := os.ReadFile(captureFile(t, "session.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	pingLine := `{"kind":"ping","nonce":1}` + "\n"
	for _, c := range []struct {
		name, form string
		in         []byte
		want, out  string
	}{
		{"hex at the start", "hex", nil, "the input is stuck at stream offset 0", ""},
		{"hex after a frame", "hex", []byte(hex.EncodeToString(ping) + "\n00"), "the input is stuck at stream offset 10", pingLine},
		{"base64 after a frame", "base64", []byte(base64.StdEncoding.EncodeToString(ping)), "the input is stuck at stream offset 9", pingLine},
		{"pcap at the start", "pcap", nil, "the input is stuck before the capture's header", ""},
		{"pcap in its header", "pcap", capture[:10], "the input is stuck before the capture's header", ""},
		{"pcap in a record", "pcap", capture[:5000], "the input is stuck in packet record 45", ""},
	} {
		s := &testio.Stuck{R: bytes.NewReader(c.in)}
		var out, errb bytes.Buffer
		code := run([]string{"decode", "-in", c.form}, s, &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), c.want) || (c.form != "pcap" && out.String() != c.out) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q (want %q)", c.name, code, out.String(), errb.String(), c.want)
		}
		if s.Empty != 100 {
			t.Errorf("%s: %d empty reads before giving up, want 100", c.name, s.Empty)
		}
	}
}
