// Package wirejson is the JSON form of protocol messages, as cmd/wire's
// decode prints it and its encode reads it: one object per message, with
// the field names of codec's schema table, kinds, methods, streams and
// event types by name (by number when unknown), error codes as their
// text, byte strings as standard base64 and every integer exact.
//
// The form is derived from codec's types and schema tables by reflection
// (schema.go), not written out per message: a field added to a codec type
// and its table appears in the JSON form with no change here.
//
// Value turns a message into its JSON text; Parse reads one JSON line
// back into a message, checking every field against the schema with an
// error that names its path as a JSON pointer, and reads the line in
// place, so that memory stays a small multiple of the line whatever it
// holds.
package wirejson

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/wirebench/wirebench/codec"
)

// Value is m in its JSON form, a json.RawMessage for encoding/json to
// print.
func Value(m codec.Message) (any, error) {
	b, err := AppendJSON(nil, m)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// AppendJSON appends m's JSON form to dst: compact, and byte for byte
// what a json.Encoder with SetEscapeHTML(false) prints for Value(m),
// without the encoder's second pass over it.
func AppendJSON(dst []byte, m codec.Message) ([]byte, error) {
	w := &writer{b: dst}
	w.message(m)
	if w.err != nil {
		return dst, w.err
	}
	return w.b, nil
}

// ResultValue is a result in its JSON form, as Value writes it in a
// response ({} for nil, a response to an unknown method).
func ResultValue(r codec.Result) (any, error) {
	w := &writer{}
	w.value(mustPlan(tResult), reflect.ValueOf(&r).Elem())
	if w.err != nil {
		return nil, w.err
	}
	return json.RawMessage(w.b), nil
}

// ErrorValue is a protocol error in its JSON form; null for nil.
func ErrorValue(e *codec.Error) json.RawMessage {
	if e == nil {
		return nil
	}
	w := &writer{}
	w.value(mustPlan(reflect.TypeFor[codec.Error]()), reflect.ValueOf(e).Elem())
	return w.b
}

// Parse reads a line holding the JSON form of one message back into the
// message. A line that is not one JSON value is a *SyntaxError; one that
// does not follow the schema, a *FieldError naming the field.
func Parse(line []byte) (codec.Message, error) {
	return parse(line, &conv{})
}

// ParseLimited is Parse for a message that may take at most mem bytes of
// memory once read (its structs, lists, strings and byte strings, as Go
// lays them out); each value is charged before it is made, and one past
// the budget is refused with a *FieldError naming it. Whatever the line,
// reading it takes at most mem plus a small fraction of the line.
func ParseLimited(line []byte, mem int64) (codec.Message, error) {
	return parse(line, &conv{mem: mem, limited: true})
}

func parse(line []byte, c *conv) (codec.Message, error) {
	v, err := parseJSON(line)
	if err != nil {
		return nil, err
	}
	m := c.message(v)
	if c.err != nil {
		return nil, c.err
	}
	return m, nil
}

// EncodeFieldError is codec's refusal to encode a parsed message as a
// *FieldError: its field path ("request.params", "result.windows[0]")
// as a JSON pointer into the line where it maps onto one, else kept in
// the message.
func EncodeFieldError(e *codec.EncodeError) *FieldError {
	path := e.Field
	if head, rest, ok := strings.Cut(path, "."); ok {
		if _, known := codec.ParseKind(head); known {
			path = rest
		}
	} else if _, known := codec.ParseKind(path); known {
		path = ""
	}
	if strings.ContainsAny(path, " ()") {
		return &FieldError{Msg: e.Field + ": " + e.Detail}
	}
	ptr := strings.NewReplacer(".", "/", "[", "/", "]", "").Replace(path)
	if ptr != "" {
		ptr = "/" + ptr
	}
	return &FieldError{Path: ptr, Msg: e.Detail}
}
