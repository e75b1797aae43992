package wirejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/golden"
)

// TestRoundTrip: every golden sample's JSON form parses back to the
// sample.
func TestRoundTrip(t *testing.T) {
	for _, s := range golden.Samples() {
		v, err := Value(s.Msg)
		if err != nil {
			t.Fatalf("%s: Value: %v", s.Name, err)
		}
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		m, err := Parse(line)
		if err != nil {
			t.Fatalf("%s: Parse(%s): %v", s.Name, line, err)
		}
		again, _ := Value(m)
		if !reflect.DeepEqual(again, v) {
			t.Errorf("%s: %s parses to another message", s.Name, line)
		}
	}
}

// TestParseErrors: a line that is not JSON is a *SyntaxError with its
// column, one that breaks the schema a *FieldError with its field.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		line   string
		syntax bool
		want   string
	}{
		{`{"kind":"ping",`, true, "column 16: the line ends inside a JSON value"},
		{`{"kind":"ping","nonce":1} {}`, true, "more than one JSON value"},
		{`{"kind":"ping","nonce":1,"nonce":2}`, true, "field /nonce: duplicate field"},
		{strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1), true, "nested deeper"},
		{strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth), false, "want an object, got an array"},
		{`{"kind":"ping","nonce":"1"}`, false, `want an unsigned integer (u64), got the string "1"`},
		{`{"kind":"ping"}`, false, "required field is missing"},
		{`{"kind":"ping","nonce":1,"x":2}`, false, "unknown field"},
	} {
		_, err := Parse([]byte(c.line))
		var se *SyntaxError
		var fe *FieldError
		if errors.As(err, &se) != c.syntax || (!c.syntax && !errors.As(err, &fe)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40s: %T %v, want %q", c.line, err, err, c.want)
		}
	}
}

// TestErrorsNameFieldAndWant: each kind of bad line is refused with the
// field as a JSON pointer (RFC 6901) and what was wanted.
func TestErrorsNameFieldAndWant(t *testing.T) {
	deep := func(levels int) string {
		// a snapshot whose first window's root heads a chain of nodes
		return `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"root":` +
			strings.Repeat(`{"children":[`, levels) + strings.Repeat("]}", levels) + `}]}}`
	}
	for _, c := range []struct {
		name, line, want string
	}{
		{"depth", deep(maxJSONDepth), "field /result/windows/0/root" + strings.Repeat("/children/0", (maxJSONDepth-4)/2) + ": JSON nested deeper than 528 levels: want at most 528"},
		{"depth in an array", strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1), "column 529: field " + strings.Repeat("/0", maxJSONDepth) + ": JSON nested deeper"},
		{"invalid UTF-8", "{\"kind\":\"request\",\"id\":6,\"method\":\"type_text\",\"params\":{\"text\":\"ab\xff\"}}", "column 67: field /params/text: invalid UTF-8 (byte 0xff): want text in UTF-8"},
		{"invalid UTF-8 in a name", "{\"kind\":\"ping\",\"n\xffonce\":1}", "column 18: invalid UTF-8"},
		{"lone surrogate", `{"kind":"request","id":6,"method":"type_text","params":{"text":"a\udc00"}}`, `field /params/text: unpaired UTF-16 surrogate escape \udc00: want a character, or a surrogate pair`},
		{"name with / and ~", `{"kind":"ping","nonce":1,"a/b~c":{"x":[1,}}`, "field /a~1b~0c/x/1: invalid character '}'"},
		{"u32 out of range", `{"kind":"request","id":6,"method":"key","params":{"keycode":4294967296}}`, "field /params/keycode: 4294967296 does not fit in u32: want an unsigned integer from 0 to 4294967295"},
		{"i32 out of range", `{"kind":"request","id":6,"method":"tap","params":{"x":0,"y":-2147483649}}`, "field /params/y: -2147483649 does not fit in i32: want an integer from -2147483648 to 2147483647"},
		{"i64 out of range", `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"type":1,"layer":0,"bounds":[0,0,1,1],"flags":0,"root":{"id":1,"class":0,"bounds":[0,0,1,1],"flags":0,"scroll":{"axis":1,"flags":0,"range":{"unit":0,"lo":0,"hi":9223372036854775808}}}}],"truncated":0,"seq":1}}`,
			"field /result/windows/0/root/scroll/range/hi: 9223372036854775808 does not fit in i64: want an integer from -9223372036854775808 to 9223372036854775807"},
		{"unknown field", `{"kind":"request","id":6,"method":"long_press","params":{"x":1,"y":2,"duration_ms":3,"force":1}}`, "field /params/force: unknown field: want one of x, y, duration_ms"},
		{"unknown field of a window", `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"type":1,"layer":0,"bounds":[0,0,1,1],"flags":0,"colour":2}],"truncated":0,"seq":1}}`,
			"field /result/windows/0/colour: unknown field: want one of id, type, layer, bounds, flags, title, package, root, emits_events, owner, modal"},
		{"unknown field of an empty map", `{"kind":"request","id":6,"method":"frames_stop","params":{"now":true}}`, "field /params/now: unknown field: this object has no fields"},
	} {
		_, err := Parse([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %q", c.name, err, c.want)
		}
	}
}

// TestParseLimitedAtTheLimit: a message is read with exactly the memory
// it is charged, and refused one byte short of it, naming a field.
func TestParseLimitedAtTheLimit(t *testing.T) {
	for _, name := range []string{"hello_full", "response_snapshot", "response_snapshot_deep", "event_frame", "array25", "request_unknown_method"} {
		s, _ := golden.Lookup(name)
		line, err := AppendJSON(nil, s.Msg)
		if err != nil {
			t.Fatal(err)
		}
		const plenty = 1 << 30
		c := &conv{mem: plenty, limited: true}
		if _, err := parse(line, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		need := plenty - c.mem
		if need <= 0 {
			t.Fatalf("%s: charged %d bytes", name, need)
		}
		if _, err := ParseLimited(line, need); err != nil {
			t.Errorf("%s: with %d bytes: %v", name, need, err)
		}
		_, err = ParseLimited(line, need-1)
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "takes more memory") {
			t.Errorf("%s: with %d bytes: %v", name, need-1, err)
		}
	}
}

// TestMaxMembers: an object of maxMembers members is indexed (and its
// unknown fields refused as such), one of more is refused at once.
func TestMaxMembers(t *testing.T) {
	obj := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"kind":"ping","nonce":1`)
		for i := 2; i < n; i++ {
			fmt.Fprintf(&b, `,"f%d":0`, i)
		}
		return b.String() + "}"
	}
	if _, err := Parse([]byte(obj(maxMembers))); err == nil || !strings.Contains(err.Error(), "field /f2: unknown field") {
		t.Errorf("%d members: %v", maxMembers, err)
	}
	if _, err := Parse([]byte(obj(maxMembers + 1))); err == nil || err.Error() != "more than 64 fields: want an object of the protocol, none of which has as many" {
		t.Errorf("%d members: %v", maxMembers+1, err)
	}
}
