package wirejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wirebench/wirebench/codec/schema"
)

// A JSON value of a line, located but not decoded: a line is checked
// once, whole, and then read in place, so that memory stays a small
// multiple of the line whatever it holds (a value of a tree would take
// far more than the bytes it came from). Objects are indexed when read;
// array elements, strings and numbers are read as they are visited.
type jval struct {
	doc      *jdoc
	kind     jkind
	off, end int // the value's bytes, line[off:end]
}

// jdoc is a checked line.
type jdoc struct {
	line []byte
	// big maps the offset of each container longer than bigContainer to
	// the offset past its end, so that finding a value's end never scans
	// a large container twice.
	big map[int]int
}

// bigContainer is the length from which a container's end is recorded.
const bigContainer = 4 << 10

type jmember struct {
	key string
	val jval
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

// raw is the value's bytes.
func (v *jval) raw() []byte { return v.doc.line[v.off:v.end] }

// lit is a number's literal (or any value's text).
func (v *jval) lit() string { return string(v.raw()) }

// boolean is a bool's value.
func (v *jval) boolean() bool { return v.doc.line[v.off] == 't' }

// text is a string's value, its escapes decoded.
func (v *jval) text() string {
	r := v.raw()
	if bytes.IndexByte(r, '\\') < 0 {
		return string(r[1 : len(r)-1])
	}
	var s string
	_ = json.Unmarshal(r, &s) // checked when the line was
	return s
}

// at returns the value that starts at line[i] (after white space).
func (d *jdoc) at(i int) jval {
	i = skipSpace(d.line, i)
	v := jval{doc: d, off: i}
	switch d.line[i] {
	case 'n':
		v.kind = jNull
	case 't', 'f':
		v.kind = jBool
	case '"':
		v.kind = jString
	case '[':
		v.kind = jArray
	case '{':
		v.kind = jObject
	default:
		v.kind = jNumber
	}
	v.end = d.valueEnd(i)
	return v
}

// valueEnd is the offset past the value that starts at line[i].
func (d *jdoc) valueEnd(i int) int {
	b := d.line
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '[', '{':
		if end, ok := d.big[i]; ok {
			return end
		}
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i // a number or a literal: up to the next delimiter
	for j < len(b) && b[j] != ',' && b[j] != ']' && b[j] != '}' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j
}

// stringEnd is the offset past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// elemIter walks the elements of an array in place, allocating nothing.
type elemIter struct {
	doc *jdoc
	j   int // the offset of the next element, or of the closing ]
}

// iter starts a walk over the elements of an array.
func (v *jval) iter() elemIter {
	return elemIter{doc: v.doc, j: skipSpace(v.doc.line, v.off+1)}
}

// next sets e to the next element and reports whether there was one.
func (it *elemIter) next(e *jval) bool {
	b := it.doc.line
	if b[it.j] == ']' {
		return false
	}
	*e = it.doc.at(it.j)
	j := skipSpace(b, e.end)
	if b[j] == ',' {
		j++
	}
	it.j = skipSpace(b, j)
	return true
}

// count is the number of elements of an array.
func (v *jval) count() int {
	n := 0
	var e jval
	for it := v.iter(); it.next(&e); {
		n++
	}
	return n
}

// maxMembers bounds the members of an object, so that indexing one takes
// little memory whatever the line: no object of the protocol has half
// as many.
const maxMembers = 64

// members indexes an object's members, rejecting a duplicate key and
// more than maxMembers.
func (v *jval) members(path *jpath) ([]jmember, error) {
	b := v.doc.line
	var out []jmember
	var keys map[string]bool // for large objects only
	j := skipSpace(b, v.off+1)
	for b[j] != '}' {
		if len(out) == maxMembers {
			return nil, &FieldError{Path: path.String(), Msg: "more than " + strconv.Itoa(maxMembers) + " fields: want an object of the protocol, none of which has as many"}
		}
		kv := v.doc.at(j)
		key := kv.text()
		dup := false
		if keys == nil && len(out) >= 16 {
			keys = make(map[string]bool, len(out))
			for _, m := range out {
				keys[m.key] = true
			}
		}
		if keys != nil {
			dup, keys[key] = keys[key], true
		} else {
			for _, m := range out {
				dup = dup || m.key == key
			}
		}
		if dup {
			return nil, &SyntaxError{Column: int64(kv.end), Path: join(path, key).String(), Msg: "duplicate field"}
		}
		j = skipSpace(b, kv.end) + 1 // the colon
		val := v.doc.at(j)
		out = append(out, jmember{key: key, val: val})
		j = skipSpace(b, val.end)
		if b[j] == ',' {
			j++
		}
		j = skipSpace(b, j)
	}
	return out, nil
}

// describe names a value in an error message.
func (v *jval) describe() string {
	switch v.kind {
	case jNull:
		return "null"
	case jBool:
		return strconv.FormatBool(v.boolean())
	case jNumber:
		return "the number " + v.lit()
	case jString:
		if v.end-v.off > 42 {
			return "a string"
		}
		return "the string " + strconv.Quote(v.text())
	case jArray:
		return "an array"
	}
	return "an object"
}

// maxJSONDepth bounds the nesting of a JSON line: enough for a node tree
// of MaxNodeDepth levels (two per level: the node and its children).
const maxJSONDepth = 2*schema.MaxNodeDepth + 16

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

// parseJSON checks one line holding exactly one JSON value and returns
// the value, to be read in place. It rejects invalid UTF-8, unpaired
// surrogate escapes and nesting deeper than maxJSONDepth (and, as the
// value is read, duplicate keys), none of which encoding/json reports.
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
		return nil, &SyntaxError{Column: int64(i) + 1, Path: pointerAt(line, i), Msg: fmt.Sprintf("invalid UTF-8 (byte %#02x): want text in UTF-8", line[i])}
	}
	if i := badSurrogate(line); i >= 0 {
		return nil, &SyntaxError{Column: int64(i) + 1, Path: pointerAt(line, i), Msg: "unpaired UTF-16 surrogate escape " + string(line[i:i+6]) + ": want a character, or a surrogate pair"}
	}
	if !json.Valid(line) {
		return nil, syntaxError(line)
	}
	d := &jdoc{line: line, big: map[int]int{}}
	if err := d.shape(); err != nil {
		return nil, err
	}
	v := d.at(0)
	return &v, nil
}

// shape checks the nesting of a well-formed line and records the ends of
// its large containers.
func (d *jdoc) shape() error {
	b := d.line
	var open []int // offsets of the open containers
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
		case '[', '{':
			if len(open) == maxJSONDepth {
				return &SyntaxError{Column: int64(i) + 1, Path: pointerAt(b, i), Msg: "JSON nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels: want at most " + strconv.Itoa(maxJSONDepth) + " (a node tree of " + strconv.Itoa(schema.MaxNodeDepth) + " levels takes two per level)"}
			}
			open = append(open, i)
		case ']', '}':
			start := open[len(open)-1]
			open = open[:len(open)-1]
			if i+1-start >= bigContainer {
				d.big[start] = i + 1
			}
		}
	}
	return nil
}

// syntaxError describes what makes a line not one well-formed JSON value.
func syntaxError(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	var first json.RawMessage
	err := dec.Decode(&first)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return &SyntaxError{Column: dec.InputOffset() + 1, Msg: "more than one JSON value on the line"}
	case errors.As(err, &se):
		return &SyntaxError{Column: se.Offset, Path: pointerAt(line, int(max(se.Offset-1, 0))), Msg: se.Error()}
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &SyntaxError{Column: int64(len(line)) + 1, Msg: "the line ends inside a JSON value"}
	}
	return &SyntaxError{Column: dec.InputOffset() + 1, Msg: err.Error()}
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

// pointerAt is the JSON pointer of the innermost value that holds
// line[off], read from the line's text before it, which need not be
// well-formed after off: a member's name when off is in its value, an
// element's index when off is in an element. It names where an error of
// the JSON text itself lies.
func pointerAt(line []byte, off int) string {
	type open struct {
		obj    bool
		idx    int
		key    []byte // the current member's name, raw
		inName bool   // between a member and its colon: no value yet
	}
	var stack []open
	for i := 0; i < off && i < len(line); i++ {
		switch line[i] {
		case '"':
			end := i + 1
			for end < len(line) && line[end] != '"' {
				if line[end] == '\\' {
					end++
				}
				end++
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].inName && end < off {
				stack[n-1].key = line[i+1 : end]
			}
			i = end
		case ':':
			if n := len(stack); n > 0 {
				stack[n-1].inName = false
			}
		case '{', '[':
			stack = append(stack, open{obj: line[i] == '{', inName: line[i] == '{'})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].idx++
				stack[n-1].inName = stack[n-1].obj
			}
		}
	}
	p := (*jpath)(nil)
	for _, o := range stack {
		switch {
		case !o.obj:
			p = index(p, o.idx)
		case o.inName:
			return p.String()
		default:
			p = join(p, memberName(o.key))
		}
	}
	return p.String()
}

// memberName decodes a member's raw name; a name that is not valid JSON
// text stays raw.
func memberName(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return string(raw)
	}
	return s
}
