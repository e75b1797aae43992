package wirejson

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/wirebench/wirebench/codec"
)

// Message → JSON, by the plans of schema.go. The writer appends compact
// JSON; strings are escaped as encoding/json escapes them with HTML
// escaping off, so that a caller's encoder prints them unchanged (or
// escapes <, > and & itself when it is on).

// writer appends the JSON form of values, keeping the first error.
type writer struct {
	b   []byte
	err error
}

func (w *writer) failf(format string, a ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, a...)
	}
}

// message writes m: a map of its kind and fields, an event's fields
// after its head, or an unknown kind's number.
func (w *writer) message(m codec.Message) {
	switch m := m.(type) {
	case *codec.Event:
		w.event(m)
		return
	case *codec.UnknownKind:
		w.b = append(w.b, `{"kind":`...)
		w.b = strconv.AppendUint(w.b, m.Value, 10)
		w.b = append(w.b, '}')
		return
	case nil:
		w.failf("no JSON form for a nil message")
		return
	}
	v := reflect.ValueOf(m)
	p, err := planOf(v.Type().Elem())
	if err != nil || p.kind != pStruct {
		w.failf("no JSON form for message %T: %v", m, err)
		return
	}
	w.b = append(w.b, `{"kind":`...)
	w.b = appendString(w.b, m.Kind().String())
	w.fields(p, v.Elem(), true)
	w.b = append(w.b, '}')
}

// eventNames are the names of codec.Event's fields before its body:
// stream, seq, type, in order.
var eventNames = func() (names []string) {
	t := reflect.TypeFor[codec.Event]()
	for _, name := range []string{"Stream", "Seq", "Type"} { // the wire's order, not the struct's
		f, ok := t.FieldByName(name)
		if !ok {
			panic("wirejson: codec.Event has no field " + name)
		}
		names = append(names, snake(f.Name))
	}
	return names
}()

// event writes an event: its stream, seq and type, then the fields of its
// body (none for an unknown type).
func (w *writer) event(e *codec.Event) {
	n := eventNames
	w.b = append(w.b, `{"kind":`...)
	w.b = appendString(w.b, codec.KindEvent.String())
	w.member(n[0])
	enum(w, codec.Stream.String, e.Stream, streamKnown(e.Stream))
	w.member(n[1])
	w.b = strconv.AppendUint(w.b, e.Seq, 10)
	w.member(n[2])
	enum(w, func(t codec.EventType) string { return codec.EventTypeName(e.Stream, t) }, e.Type, codec.BodyFor(e.Stream, e.Type) != nil)
	if e.Body != nil {
		v := reflect.ValueOf(e.Body)
		p, err := planOf(v.Type().Elem())
		if err != nil {
			w.failf("no JSON form for event body %T: %v", e.Body, err)
			return
		}
		w.fields(p, v.Elem(), true)
	}
	w.b = append(w.b, '}')
}

// enum writes a name, or the number when unknown.
func enum[T ~uint32](w *writer, name func(T) string, v T, known bool) {
	if known {
		w.b = appendString(w.b, name(v))
	} else {
		w.b = strconv.AppendUint(w.b, uint64(v), 10)
	}
}

func streamKnown(s codec.Stream) bool { return s == codec.StreamTree || s == codec.StreamFrames }

// member starts the member name, after a comma.
func (w *writer) member(name string) {
	w.b = append(w.b, ',')
	w.b = appendString(w.b, name)
	w.b = append(w.b, ':')
}

// present reports whether field f of struct v, whose value is fv, is
// written, in JSON as on the wire. Absent fields are left out: an Opt
// that is not Ok, a nil pointer, a node's text that is "" without its
// bit in Empty, and a field the schema does not require
// at its zero value (a window's modal when false, a node's empty
// children); a response's result is left out when it carries an error.
func present(f *field, fv, v reflect.Value) bool {
	switch {
	case f.text != 0:
		return nodeOf(v).Has(1 << f.text)
	case f.p.kind == pOpt:
		return fv.Field(1).Bool()
	case f.p.kind == pPtr:
		return !fv.IsNil()
	case f.p.kind == pResult:
		return f.unless < 0 || v.Field(f.unless).IsNil()
	case !f.required:
		return !fv.IsZero() && (f.p.kind != pSlice || fv.Len() > 0)
	}
	return true
}

// fields writes the members of struct v that are present. after tells
// whether members precede them.
func (w *writer) fields(p *plan, v reflect.Value, after bool) {
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		if !present(f, fv, v) {
			continue
		}
		if after {
			w.b = append(w.b, ',')
		}
		after = true
		w.b = appendString(w.b, f.name)
		w.b = append(w.b, ':')
		w.value(f.p, fv)
		if f.p.kind == pCaps {
			w.member(capabilityNames)
			w.strings(codec.Capabilities(fv.Uint()).Names())
		}
	}
}

func (w *writer) strings(s []string) {
	w.b = append(w.b, '[')
	for i, x := range s {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendString(w.b, x)
	}
	w.b = append(w.b, ']')
}

// value writes v by p.
func (w *writer) value(p *plan, v reflect.Value) {
	switch p.kind {
	case pUint, pCaps:
		w.b = strconv.AppendUint(w.b, v.Uint(), 10)
	case pInt:
		w.b = strconv.AppendInt(w.b, v.Int(), 10)
	case pBool:
		w.b = strconv.AppendBool(w.b, v.Bool())
	case pString:
		w.b = appendString(w.b, v.String())
	case pBytes:
		w.b = append(w.b, '"')
		w.b = base64.StdEncoding.AppendEncode(w.b, v.Bytes())
		w.b = append(w.b, '"')
	case pSlice, pArray:
		w.b = append(w.b, '[')
		n := len(p.fields)
		if p.kind == pSlice {
			n = v.Len()
		}
		for i := range n {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if p.kind == pArray {
				w.value(p.fields[i].p, v.Field(p.fields[i].index))
			} else {
				w.value(p.elem, v.Index(i))
			}
		}
		w.b = append(w.b, ']')
	case pOpt:
		w.value(p.elem, v.Field(0))
	case pPtr:
		w.value(p.elem, v.Elem())
	case pStruct:
		w.b = append(w.b, '{')
		w.fields(p, v, false)
		w.b = append(w.b, '}')
	case pMethod:
		m := codec.Method(v.Uint())
		enum(w, codec.Method.String, m, m.Known())
	case pStream:
		s := codec.Stream(v.Uint())
		enum(w, codec.Stream.String, s, streamKnown(s))
	case pParams, pResult:
		if v.IsNil() { // an unknown method: its map was skipped
			w.b = append(w.b, "{}"...)
			return
		}
		ep, err := planOf(v.Elem().Type().Elem())
		if err != nil {
			w.failf("no JSON form for %s: %v", v.Elem().Type(), err)
			return
		}
		w.value(ep, v.Elem().Elem())
	}
}

// appendString appends s as a JSON string, escaped as encoding/json does
// with HTML escaping off: ", \ and control characters, U+2028 and U+2029,
// and invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
