package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wirebench/wirebench/codec"
)

// runEncode is `wire encode`: JSON Lines in, frames out.
func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, maxFrame := newFlagSet("encode", "[FILE...]", "Reads messages as JSON Lines (the form `wire decode` prints; stdin when no FILE)\nand writes each as a frame to stdout. A bad line is reported with its line\nnumber and field and writes nothing; the lines after it are still encoded.", stderr)
	names, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	out := bufio.NewWriter(stdout)
	rep := &reporter{verb: "encode", w: stderr}
	err := eachInput(names, stdin, func(src string, in io.Reader) error {
		return encodeStream(rep, src, in, out, maxFrame.limit)
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		rep.reportf("%v", err)
	}
	return rep.status()
}

// maxLineLen bounds a JSON line for a frame limit: base64 and field names
// make JSON larger than CBOR, but not by more than this.
func maxLineLen(limit uint32) int {
	return int(min(8*uint64(limit)+(1<<20), 1<<31-1))
}

// encodeStream encodes the JSON lines of one input. It returns only errors
// that end the stream (I/O); bad lines are reported and skipped.
func encodeStream(rep *reporter, src string, in io.Reader, out *bufio.Writer, limit uint32) error {
	br := bufio.NewReaderSize(in, 64<<10)
	maxLen := maxLineLen(limit)
	var frame []byte
	for line := 1; ; line++ {
		text, tooLong, err := readLine(br, maxLen)
		if tooLong {
			rep.reportf("%s: line %d: longer than %d bytes, the most a frame of -max-frame %d can need", src, line, maxLen, limit)
		} else if len(bytes.TrimSpace(text)) > 0 {
			var ferr error
			frame, ferr = encodeLine(frame[:0], text, limit)
			if ferr != nil {
				rep.reportf("%s: line %d: %v", src, line, ferr)
			} else {
				if _, werr := out.Write(frame); werr != nil {
					return werr
				}
				if werr := out.Flush(); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
}

// readLine reads one line without its newline, holding at most max bytes:
// the rest of a longer line is discarded and tooLong set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > max+1 {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return line, tooLong, err
	}
}

// encodeLine appends the frame of one JSON line to dst.
func encodeLine(dst, line []byte, limit uint32) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = dst, fmt.Errorf("internal error: the encoder panicked: %v", p)
		}
	}()
	v, err := parseJSON(line)
	if err != nil {
		return dst, err
	}
	m, err := messageFromJSON(v)
	if err != nil {
		return dst, err
	}
	out, err = codec.AppendFrame(dst, m, limit)
	var ee *codec.EncodeError
	var fe *codec.FrameTooLargeError
	switch {
	case errors.As(err, &ee):
		return dst, &FieldError{Path: ee.Field, Msg: ee.Detail}
	case errors.As(err, &fe):
		return dst, fmt.Errorf("the payload of %d bytes is over -max-frame %d", fe.Size, fe.Limit)
	}
	return out, err
}

// A parsed JSON value. Objects keep their members in order, and numbers
// their literal text, so that integers convert exactly.
type jval struct {
	kind jkind
	s    string // a string's value, a number's literal
	b    bool
	arr  []*jval
	obj  []jmember
}

type jmember struct {
	key string
	val *jval
}

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// describe names a value in an error message.
func (v *jval) describe() string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		return strconv.FormatBool(v.b)
	case jNumber:
		return "the number " + v.s
	case jString:
		if len(v.s) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(v.s)
	case jArray:
		return "an array"
	}
	return "an object"
}

// maxJSONDepth bounds the nesting of a JSON line: enough for a node tree
// of MaxNodeDepth levels (two per level: the node and its children).
const maxJSONDepth = 2*codec.MaxNodeDepth + 16

// SyntaxError is a JSON line that is not one well-formed JSON value.
type SyntaxError struct {
	Column int64 // 1-based byte column
	Path   string
	Msg    string
}

// Error reports the column, the field when known, and the problem.
func (e *SyntaxError) Error() string {
	s := "column " + strconv.FormatInt(e.Column, 10) + ": "
	if e.Path != "" {
		s += "field " + e.Path + ": "
	}
	return s + e.Msg
}

// parseJSON parses one line holding exactly one JSON value. It rejects
// invalid UTF-8, unpaired surrogate escapes, duplicate keys and nesting
// deeper than maxJSONDepth, none of which encoding/json reports.
func parseJSON(line []byte) (*jval, error) {
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, &SyntaxError{Column: int64(i) + 1, Msg: "invalid UTF-8"}
	}
	if i := badSurrogate(line); i >= 0 {
		return nil, &SyntaxError{Column: int64(i) + 1, Msg: "unpaired UTF-16 surrogate escape " + string(line[i:i+6])}
	}
	p := &jparser{dec: json.NewDecoder(bytes.NewReader(line))}
	p.dec.UseNumber()
	v, err := p.value(0, nil)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		if err == nil {
			return nil, &SyntaxError{Column: p.dec.InputOffset(), Msg: "more than one JSON value on the line"}
		}
		return nil, p.syntax(err, nil)
	}
	return v, nil
}

// badSurrogate returns the offset of the first \u escape of a UTF-16
// surrogate that is not part of a pair, or -1. encoding/json would turn it
// into U+FFFD silently.
func badSurrogate(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character, perhaps a backslash
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok {
			i++
			continue
		}
		if !utf16.IsSurrogate(r) {
			i += 5
			continue
		}
		if r < 0xdc00 && i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
			if lo, ok := hex4(b[i+8:]); ok && lo >= 0xdc00 && lo <= 0xdfff {
				i += 11
				continue
			}
		}
		return i
	}
	return -1
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(v), err == nil
}

type jparser struct {
	dec *json.Decoder
}

func (p *jparser) syntax(err error, path *jpath) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Column: se.Offset, Path: path.String(), Msg: se.Error()}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &SyntaxError{Column: p.dec.InputOffset() + 1, Path: path.String(), Msg: "the line ends inside a JSON value"}
	}
	return &SyntaxError{Column: p.dec.InputOffset() + 1, Path: path.String(), Msg: err.Error()}
}

func (p *jparser) value(depth int, path *jpath) (*jval, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err, path)
	}
	switch t := tok.(type) {
	case nil:
		return &jval{kind: jNull}, nil
	case bool:
		return &jval{kind: jBool, b: t}, nil
	case json.Number:
		return &jval{kind: jNumber, s: string(t)}, nil
	case string:
		return &jval{kind: jString, s: t}, nil
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, &SyntaxError{Column: p.dec.InputOffset(), Path: path.String(), Msg: "JSON nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels"}
		}
		if t == '[' {
			v := &jval{kind: jArray, arr: []*jval{}}
			for i := 0; p.dec.More(); i++ {
				it, err := p.value(depth+1, index(path, i))
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, it)
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.syntax(err, path)
			}
			return v, nil
		}
		v := &jval{kind: jObject}
		var keys map[string]bool // for large objects only
		for p.dec.More() {
			kt, err := p.dec.Token()
			if err != nil {
				return nil, p.syntax(err, path)
			}
			key, ok := kt.(string)
			if !ok {
				return nil, &SyntaxError{Column: p.dec.InputOffset(), Path: path.String(), Msg: "an object key must be a string"}
			}
			dup := false
			if keys == nil && len(v.obj) >= 16 {
				keys = make(map[string]bool)
				for _, m := range v.obj {
					keys[m.key] = true
				}
			}
			if keys != nil {
				dup, keys[key] = keys[key], true
			} else {
				for _, m := range v.obj {
					dup = dup || m.key == key
				}
			}
			if dup {
				return nil, &SyntaxError{Column: p.dec.InputOffset(), Path: join(path, key).String(), Msg: "duplicate field"}
			}
			it, err := p.value(depth+1, join(path, key))
			if err != nil {
				return nil, err
			}
			v.obj = append(v.obj, jmember{key: key, val: it})
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, p.syntax(err, path)
		}
		return v, nil
	}
	return nil, &SyntaxError{Column: p.dec.InputOffset(), Path: path.String(), Msg: fmt.Sprintf("unexpected JSON token %v", tok)}
}
