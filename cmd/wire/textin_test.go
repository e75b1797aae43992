package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wirebench/wirebench/golden"
)

// xxdOf lays b out as `xxd` does: 16 bytes a line in groups of 2, the
// ASCII column after two spaces.
func xxdOf(b []byte) string {
	var s strings.Builder
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		fmt.Fprintf(&s, "%08x: ", off)
		var area strings.Builder
		for i, c := range line {
			fmt.Fprintf(&area, "%02x", c)
			if i%2 == 1 {
				area.WriteByte(' ')
			}
		}
		fmt.Fprintf(&s, "%-40s %s\n", area.String(), asciiOf(line))
	}
	return s.String()
}

// hexdumpOf lays b out as `hexdump -C` does, "*" for repeated lines and
// the final offset included.
func hexdumpOf(b []byte) string {
	var s strings.Builder
	var prev []byte
	star := false
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		if len(line) == 16 && bytes.Equal(line, prev) {
			if !star {
				s.WriteString("*\n")
				star = true
			}
			continue
		}
		prev, star = line, false
		fmt.Fprintf(&s, "%08x ", off)
		for i := range 16 {
			if i == 8 {
				s.WriteByte(' ')
			}
			if i < len(line) {
				fmt.Fprintf(&s, " %02x", line[i])
			} else {
				s.WriteString("   ")
			}
		}
		fmt.Fprintf(&s, "  |%s|\n", asciiOf(line))
	}
	if len(b) > 0 {
		fmt.Fprintf(&s, "%08x\n", len(b))
	}
	return s.String()
}

func asciiOf(b []byte) string {
	out := []byte(string(b))
	for i, c := range out {
		if c < 0x20 || c >= 0x7f {
			out[i] = '.'
		}
	}
	return string(out)
}

// plainHexOf is b as 0x-prefixed, comma-separated bytes, 12 a line.
func plainHexOf(b []byte) string {
	var s strings.Builder
	for i, c := range b {
		fmt.Fprintf(&s, "0x%02X,", c)
		if i%12 == 11 {
			s.WriteString("\r\n")
		} else {
			s.WriteByte(' ')
		}
	}
	return s.String()
}

// readAllBounded reads r to its end or its error, or to n bytes.
func readAllBounded(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}

// goldenStream is the frames of every golden sample, back to back.
func goldenStream(t testing.TB) []byte {
	var in []byte
	for _, s := range golden.Samples() {
		in = append(in, vtFrame(t, s.Msg)...)
	}
	return in
}

// TestDecodeTextInputs: -in hex in every layout and -in base64 in every
// variant decode the golden frames as -in raw does.
func TestDecodeTextInputs(t *testing.T) {
	raw := goldenStream(t)
	// A run of equal lines for hexdump -C's "*".
	raw = append(raw, vtFrameOf(append([]byte{0x82, 0x00, 0x58, 0x40}, make([]byte, 64)...))...)
	_, want, wantErr := vtRun(t, raw, "decode")
	b64 := base64.StdEncoding.EncodeToString(raw)
	var wrapped strings.Builder
	for i := 0; i < len(b64); i += 76 {
		wrapped.WriteString(b64[i:min(i+76, len(b64))] + "\n")
	}
	for name, c := range map[string]struct {
		form, text string
	}{
		"hex plain":        {"hex", hex.EncodeToString(raw)},
		"hex spaced upper": {"hex", strings.ToUpper(strings.Join(strings.SplitAfter(hex.EncodeToString(raw), "00"), " \t"))},
		"hex 0x commas":    {"hex", plainHexOf(raw)},
		"hex xxd":          {"hex", xxdOf(raw)},
		"hex hexdump -C":   {"hex", hexdumpOf(raw)},
		"base64":           {"base64", b64},
		"base64 wrapped":   {"base64", wrapped.String()},
		"base64 url raw":   {"base64", base64.RawURLEncoding.EncodeToString(raw)},
	} {
		code, out, errs := vtRun(t, []byte(c.text), "decode", "-in", c.form)
		if code != 0 || !bytes.Equal(out, want) || errs != wantErr {
			t.Errorf("%s: exit %d, stderr %q, output equal: %v", name, code, errs, bytes.Equal(out, want))
		}
	}
	if !strings.Contains(hexdumpOf(raw), "*\n") {
		t.Fatal("the hexdump -C input has no repeated line")
	}
	// A frame a line, each in base64 with its padding.
	var lines strings.Builder
	for _, s := range golden.Samples()[:5] {
		lines.WriteString(base64.StdEncoding.EncodeToString(vtFrame(t, s.Msg)) + "\n")
	}
	code, out, errs := vtRun(t, []byte(lines.String()), "decode", "-in", "base64")
	if code != 0 || bytes.Count(out, []byte("\n")) != 5 {
		t.Errorf("base64 a frame a line: exit %d, %d lines, %q", code, bytes.Count(out, []byte("\n")), errs)
	}
	// Short reads of the text change nothing.
	var o, e bytes.Buffer
	if code := run([]string{"decode", "-in", "hex"}, iotest.OneByteReader(strings.NewReader(xxdOf(raw))), &o, &e); code != 0 || !bytes.Equal(o.Bytes(), want) {
		t.Errorf("xxd a byte a read: exit %d, %s", code, e.String())
	}
}

// TestDecodeTextInputErrors: bad text is reported with its line and
// column, after the frames before it.
func TestDecodeTextInputErrors(t *testing.T) {
	ping := vtSample(t, "ping")
	pingHex := hex.EncodeToString(ping)
	pingXxd := xxdOf(ping)
	pingB64 := base64.StdEncoding.EncodeToString(ping)
	col := func(n int) string { return fmt.Sprint(len(pingB64) + n) }
	for _, c := range []struct {
		name, form, text, want string
	}{
		{"not hex", "hex", pingHex + "\n00 0g", "hex input: line 2, column 5: 'g' is not a hex digit"},
		{"odd digits", "hex", pingHex + "\n 0", "hex input: line 2, column 2: an odd number of hex digits: this last one has no pair"},
		{"0x mid-byte", "hex", pingHex + " 0 0x1", "hex input: line 1, column " + fmt.Sprint(len(pingHex)+5) + ": 0x prefix after an odd number of hex digits"},
		{"xxd offset skips", "hex", pingXxd + "00000020: 0000\n", "hex input (xxd): line 2, column 1: offset 0x20, want 0x9: a line is missing or out of order"},
		{"xxd not hex", "hex", pingXxd + "00000009: 0z\n", `hex input (xxd): line 2, column 11: "0z" is not hex`},
		{"xxd odd group", "hex", pingXxd + "00000009: 000\n", `hex input (xxd): line 2, column 11: "000" is not a group of whole bytes in hex`},
		{"xxd no colon", "hex", pingXxd + "00000009 00\n", "hex input (xxd): line 2, column 1: want an xxd line: a hex offset and a colon, then the bytes"},
		{"hexdump star first", "hex", "*\n" + hexdumpOf(ping), ""},
		{"hexdump star at the end", "hex", strings.TrimSuffix(hexdumpOf(ping), "00000009\n") + "*\n", `hex input (hexdump -C): line 2, column 1: "*" (repeated lines) at the end`},
		{"hexdump star uneven", "hex", hexdumpOf(bytes.Repeat(ping[:8], 4))[:62] + "\n*\n00000019\n", `offset 0x19 after "*": want 0x10 plus a whole number of 16-byte lines`},
		{"dump line too long", "hex", pingXxd + "00000009: " + fmt.Sprintf("%-*s", maxDumpLine-10, "0000 0009") + "\n", "line 2, column 1: a line longer than 4096 bytes is not an xxd line"},
		{"base64 bad char", "base64", pingB64 + "\nAA*A", "base64 input: line 2, column 3: '*' is not a base64 character"},
		{"base64 lone char", "base64", pingB64 + "A", "base64 input: line 1, column " + col(1) + ": the input ends with one character of a 4-character group"},
		{"base64 early pad", "base64", pingB64 + "A=", "base64 input: line 1, column " + col(2) + ": '=' where a group of 4 has only 1 characters"},
		{"base64 char in pad", "base64", pingB64 + "AA=A", "base64 input: line 1, column " + col(4) + ": 'A' inside the padding of a group of 4"},
		{"base64 short pad", "base64", pingB64 + "AA=", "base64 input: line 1, column " + col(3) + ": the input ends inside the padding (want 2 '=' in all)"},
	} {
		code, out, errs := vtRun(t, []byte(c.text), "decode", "-in", c.form)
		if c.want == "" {
			// A "*" with nothing before it to repeat: the first line is
			// no dump line, so the text is taken as plain hex.
			if code != 1 || !strings.Contains(errs, "'*' is not a hex digit") {
				t.Errorf("%s: exit %d, %q", c.name, code, errs)
			}
			continue
		}
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q\nwant %q", c.name, code, errs, c.want)
		}
		if c.name != "hexdump star uneven" && string(out) != `{"kind":"ping","nonce":1}`+"\n" {
			t.Errorf("%s: the frame before the error: %q", c.name, out)
		}
	}
	// A dump line of maxDumpLine bytes, its newline included, is read:
	// here the header of a frame the input then cuts short.
	atLimit := pingXxd + "00000009: " + fmt.Sprintf("%-*s", maxDumpLine-11, "0000 0009") + "\n"
	if code, out, errs := vtRun(t, []byte(atLimit), "decode", "-in", "hex"); code != 1 ||
		string(out) != `{"kind":"ping","nonce":1}`+"\n" || !strings.Contains(errs, "truncated: the stream ends at offset 13 inside a frame's payload") {
		t.Errorf("a dump line at the limit: exit %d, %q, %q", code, out, errs)
	}
	// A "*" may stand for maxRepeat bytes, not one line more.
	line := "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n"
	for _, extra := range []int64{0, 16} {
		r := newHexReader(strings.NewReader(fmt.Sprintf("%s%08x\n", line, 16+maxRepeat+extra)))
		n, err := io.ReadFull(r, make([]byte, 4096))
		past := err != nil && strings.Contains(err.Error(), fmt.Sprintf(`line 3, column 1: offset 0x%x after "*": %d bytes of repeated lines, over the %d`, 16+maxRepeat+extra, maxRepeat+extra, maxRepeat))
		if past != (extra > 0) || (extra == 0 && n != 4096) {
			t.Errorf("a \"*\" of %d bytes: %d bytes read, %v", maxRepeat+extra, n, err)
		}
	}
	if code, _, errs := vtRun(t, nil, "decode", "-in", "ebcdic"); code != 2 || !strings.Contains(errs, `-in "ebcdic": want one of raw, hex, base64, pcap`) {
		t.Errorf("-in ebcdic: exit %d, %q", code, errs)
	}
}

// FuzzHexInput: any text reads without a panic and with output bounded
// by what is read of it; any bytes laid out as plain hex, xxd or hexdump
// -C read back as themselves.
func FuzzHexInput(f *testing.F) {
	f.Add([]byte("00 0x12 a3,01"))
	f.Add([]byte(xxdOf([]byte("0123456789abcdefXYZ"))))
	f.Add([]byte(hexdumpOf(make([]byte, 100))))
	f.Add([]byte("00000000  00 |.|\n*\nffffffffffffffff\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Arbitrary text: the reader is bounded here, the output by the
		// text except for "*", whose repeats are read a line at a time.
		hr := newHexReader(bytes.NewReader(data))
		buf := make([]byte, 1<<10)
		for total := 0; total < 1<<20; {
			n, err := hr.Read(buf)
			total += n
			if err != nil {
				break
			}
		}
		for name, text := range map[string]string{
			"plain": plainHexOf(data), "xxd": xxdOf(data), "hexdump -C": hexdumpOf(data),
		} {
			got, err := readAllBounded(newHexReader(strings.NewReader(text)), int64(len(data))+1)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s: %v\n%q\n-> %x", name, err, text, got)
			}
		}
	})
}

// FuzzBase64Input: any text reads without a panic; any bytes encoded in
// either alphabet, padded or not, wrapped or not, read back as
// themselves.
func FuzzBase64Input(f *testing.F) {
	f.Add([]byte("AAAA\nAA==\n"))
	f.Add([]byte("-_-_"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := io.ReadAll(newBase64Reader(bytes.NewReader(data))); err != nil && !strings.Contains(err.Error(), "base64 input: line") {
			t.Fatalf("error without a place: %v", err)
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			text := enc.EncodeToString(data)
			text = strings.Join(strings.SplitAfter(text, "Q"), "\r\n ")
			got, err := io.ReadAll(newBase64Reader(strings.NewReader(text)))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%q: %v -> %x", text, err, got)
			}
		}
	})
}
