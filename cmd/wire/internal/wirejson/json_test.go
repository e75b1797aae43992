package wirejson

import (
	"encoding/json"
	"errors"
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
		{`{"kind":"ping","nonce":1,"nonce":2}`, true, "field nonce: duplicate field"},
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
