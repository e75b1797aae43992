package main

// `-in hex`: frames written as hex, as people paste them: plain digits
// with any white space, commas or 0x prefixes between them, or the
// layouts of `xxd` and `hexdump -C` (offsets, ASCII column, and "*" for
// repeated lines).

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// maxDumpLine is the longest line of an xxd or hexdump -C layout (xxd's
// widest, -c 256, is about 1,000 bytes): what a dump line may hold in
// memory.
const maxDumpLine = 4096

const hexWhat = "hex input"

// maxRepeat is the most bytes one "*" of a dump may stand for: a frame is
// at most 4 GiB, and a dump's offsets could claim 2^64.
const maxRepeat = 4 << 30

var (
	// xxdLine starts an xxd line: an offset and a colon.
	xxdLine = regexp.MustCompile(`^\s*[0-9a-fA-F]+:\s`)
	// hexdumpLine starts a hexdump -C line: an offset, two spaces, a byte;
	// the line also has the |ASCII| column.
	hexdumpLine = regexp.MustCompile(`^[0-9a-fA-F]{7,}\s\s+[0-9a-fA-F]{2}\s.*\|`)
)

// newHexReader returns the bytes that the hex text of r spells. The
// layout is told by the first line that is not blank: xxd's, hexdump
// -C's, or plain digits. Bad text is an error naming its line and
// column, after the bytes before it.
func newHexReader(r io.Reader) io.Reader {
	t := newTextPos(r)
	first, _ := t.br.Peek(maxDumpLine)
	for len(first) > 0 {
		line, rest, _ := bytes.Cut(first, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			first = line
			break
		}
		first = rest
	}
	switch {
	case xxdLine.Match(first):
		d := &dumpReader{t: t, xxd: true, expect: -1}
		return &chunkReader{fill: d.fill}
	case hexdumpLine.Match(first):
		d := &dumpReader{t: t, expect: -1}
		return &chunkReader{fill: d.fill}
	}
	p := &plainHex{t: t}
	return &chunkReader{fill: p.fill}
}

// hexVal is the value of a hex digit.
func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// plainHex reads hex digits in pairs, across white space, commas and 0x
// prefixes.
type plainHex struct {
	t        textPos
	hi       byte // the pending high nibble
	have     bool // whether hi is pending
	hiLine   int  // where it was
	hiCol    int
	tokenLen int  // characters of the current token (since a separator)
	zero     bool // the token so far is the one character '0'
}

func (p *plainHex) fill(dst []byte) ([]byte, error) {
	for len(dst) < 2048 {
		c, err := p.t.next()
		if err == io.EOF {
			if p.have {
				return dst, p.errorAt(p.hiLine, p.hiCol, "an odd number of hex digits: this last one has no pair")
			}
			return dst, io.EOF
		}
		if err != nil {
			return dst, err
		}
		if isSpace(c) || c == ',' {
			p.tokenLen, p.zero = 0, false
			continue
		}
		p.tokenLen++
		if (c == 'x' || c == 'X') && p.zero && p.tokenLen == 2 {
			// "0x": drop the '0' taken as a digit.
			if !p.have {
				return dst, p.t.errorf(hexWhat, "0x prefix after an odd number of hex digits")
			}
			p.have, p.zero = false, false
			continue
		}
		v, ok := hexVal(c)
		if !ok {
			return dst, p.t.errorf(hexWhat, "%s is not a hex digit", printable(c))
		}
		p.zero = p.tokenLen == 1 && c == '0'
		if !p.have {
			p.hi, p.have, p.hiLine, p.hiCol = v, true, p.t.line, p.t.col
			continue
		}
		dst = append(dst, p.hi<<4|v)
		p.have = false
	}
	return dst, nil
}

func (p *plainHex) errorAt(line, col int, msg string) error {
	t := p.t
	t.line, t.col = line, col
	return t.errorf(hexWhat, "%s", msg)
}

// dumpReader reads an xxd or hexdump -C layout a line at a time, checking
// each line's offset against the bytes before it.
type dumpReader struct {
	t      textPos
	xxd    bool
	line   int
	expect int64  // the offset the next line must have; -1 at the start of a dump
	prev   []byte // the last line's bytes, for "*"
	star   bool   // a "*" line is pending: prev repeats up to the next offset
	repeat int64  // bytes of prev still to repeat
	held   []byte // the line after a "*", given out once the repeats are
}

func (d *dumpReader) fill(dst []byte) ([]byte, error) {
	if d.repeat > 0 {
		d.repeat -= int64(len(d.prev))
		return append(dst, d.prev...), nil
	}
	if d.held != nil {
		dst = append(dst, d.held...)
		d.keep(d.held)
		d.held = nil
		return dst, nil
	}
	raw, err := d.t.br.ReadSlice('\n')
	if len(raw) > 0 {
		d.line++
	}
	switch {
	case err == bufio.ErrBufferFull:
		return dst, d.errorf(1, "a line longer than %d bytes is not an %s line", maxDumpLine, d.layout())
	case err == io.EOF && len(raw) == 0:
		if d.star {
			return dst, d.errorf(1, `"*" (repeated lines) at the end, with no offset after it to tell how many`)
		}
		return dst, io.EOF
	case err != nil && err != io.EOF:
		return dst, err
	}
	line := strings.TrimRight(string(raw), "\r\n")
	trimmed := strings.TrimSpace(line)
	if trimmed == "" {
		return dst, nil
	}
	if trimmed == "*" {
		if d.prev == nil || d.star {
			return dst, d.errorf(1, `"*" (repeated lines) with no line before it to repeat`)
		}
		d.star = true
		return dst, nil
	}
	off, data, err := d.parse(line)
	if err != nil {
		return dst, err
	}
	if err := d.place(off); err != nil {
		return dst, err
	}
	d.expect += int64(len(data))
	if d.repeat > 0 {
		d.held = data // after the repeats of prev
		return d.fill(dst)
	}
	d.keep(data)
	return append(dst, data...), nil
}

// keep makes a line with bytes the one a "*" would repeat.
func (d *dumpReader) keep(data []byte) {
	if len(data) > 0 {
		d.prev = append(d.prev[:0], data...)
	}
}

// place checks a line's offset against the bytes so far, and sets up the
// repeats of a "*" before it.
func (d *dumpReader) place(off int64) error {
	star := d.star
	d.star = false
	switch {
	case d.expect < 0 || off == d.expect:
		if d.expect < 0 {
			d.expect = off // xxd -s starts past 0
		}
		return nil
	case star && off > d.expect && off-d.expect > maxRepeat:
		return d.errorf(1, `offset 0x%x after "*": %d bytes of repeated lines, over the %d a dump of frames may squeeze`, off, off-d.expect, maxRepeat)
	case star && off > d.expect && (off-d.expect)%int64(len(d.prev)) == 0:
		d.repeat = off - d.expect
		d.expect = off
		return nil
	case off == 0:
		d.expect = 0 // the next of several dumps
		return nil
	}
	if star {
		return d.errorf(1, `offset 0x%x after "*": want 0x%x plus a whole number of %d-byte lines`, off, d.expect, len(d.prev))
	}
	return d.errorf(1, "offset 0x%x, want 0x%x: a line is missing or out of order", off, d.expect)
}

func (d *dumpReader) layout() string {
	if d.xxd {
		return "xxd"
	}
	return "hexdump -C"
}

// parse reads a line's offset and bytes.
func (d *dumpReader) parse(line string) (int64, []byte, error) {
	s := strings.TrimLeft(line, " \t")
	lead := len(line) - len(s)
	end := strings.IndexFunc(s, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' })
	if end < 0 {
		end = len(s)
	}
	off, err := strconv.ParseUint(s[:end], 16, 63)
	if err != nil || (d.xxd && (end == len(s) || s[end] != ':')) {
		return 0, nil, d.errorf(lead+1, "want an %s line: a hex offset%s, then the bytes", d.layout(), map[bool]string{true: " and a colon"}[d.xxd])
	}
	col := lead + end + 1
	area := s[end:]
	if d.xxd {
		area = area[1:] // the colon
		col++
		if i := strings.Index(area, "  "); i >= 0 {
			area = area[:i] // the ASCII column follows two spaces
		}
	} else if i := strings.IndexByte(area, '|'); i >= 0 {
		area = area[:i]
	}
	var data []byte
	for i := 0; i < len(area); {
		if isSpace(area[i]) {
			i++
			continue
		}
		j := i
		for j < len(area) && !isSpace(area[j]) {
			j++
		}
		tok := area[i:j]
		if len(tok)%2 != 0 || (!d.xxd && len(tok) != 2) {
			return 0, nil, d.errorf(col+i, "%q is not a group of whole bytes in hex", tok)
		}
		for k := 0; k < len(tok); k += 2 {
			hi, ok1 := hexVal(tok[k])
			lo, ok2 := hexVal(tok[k+1])
			if !ok1 || !ok2 {
				return 0, nil, d.errorf(col+i, "%q is not hex", tok)
			}
			data = append(data, hi<<4|lo)
		}
		i = j
	}
	return int64(off), data, nil
}

func (d *dumpReader) errorf(col int, format string, a ...any) error {
	t := d.t
	t.line, t.col = d.line, col
	return t.errorf(hexWhat+" ("+d.layout()+")", format, a...)
}
