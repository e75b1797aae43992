package main

// What the hex and base64 readers share: reading text a byte at a time
// with its line and column, for errors that say where.

import (
	"bufio"
	"fmt"
	"io"
)

// textPos reads text through a bufio.Reader, knowing the line and column
// of the byte it read last.
type textPos struct {
	br        *bufio.Reader
	line, col int // of the byte read last; line from 1, column from 1
	lastNL    bool
}

func newTextPos(r io.Reader) textPos {
	return textPos{br: bufio.NewReaderSize(r, 4096), line: 1}
}

// next reads one byte.
func (t *textPos) next() (byte, error) {
	c, err := t.br.ReadByte()
	if err != nil {
		return 0, err
	}
	if t.lastNL {
		t.line, t.col = t.line+1, 0
	}
	t.col++
	t.lastNL = c == '\n'
	return c, nil
}

// errorf is an error at the byte read last, in the words of the format
// named by what ("hex input").
func (t *textPos) errorf(what, format string, a ...any) error {
	return fmt.Errorf("%s: line %d, column %d: %s", what, t.line, t.col, fmt.Sprintf(format, a...))
}

// isSpace reports ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// printable shows a byte of text in an error.
func printable(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// chunkReader is an io.Reader over a producer that makes its output a
// piece at a time; buf[pos:] is what is made and not yet read.
type chunkReader struct {
	buf  []byte
	pos  int
	err  error // sticky, once buf is drained
	fill func(dst []byte) ([]byte, error)
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for c.pos == len(c.buf) {
		if c.err != nil {
			return 0, c.err
		}
		c.buf, c.err = c.fill(c.buf[:0])
		c.pos = 0
	}
	n := copy(p, c.buf[c.pos:])
	c.pos += n
	return n, nil
}
