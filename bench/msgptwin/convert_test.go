package msgptwin

import (
	"reflect"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestRoundTrip: every message with a twin encodes and decodes back to
// itself, through the same buffers used twice (the benchmarks reuse them).
func TestRoundTrip(t *testing.T) {
	var msgs []support.Named
	for _, s := range golden.Samples() {
		msgs = append(msgs, support.Named{Name: s.Name, Msg: s.Msg})
	}
	msgs = append(msgs, support.Seeded()...)
	covered := 0
	var buf, scratch []byte
	for _, s := range msgs {
		c, err := New(s.Msg)
		if err != nil {
			continue // no twin for this kind (the workbench's messages all have one)
		}
		covered++
		for range 2 {
			if buf, scratch, err = c.Encode(buf, scratch); err != nil {
				t.Fatalf("%s: encode: %v", s.Name, err)
			}
			env, body, err := c.Decode(buf)
			if err != nil {
				t.Fatalf("%s: decode: %v", s.Name, err)
			}
			got, err := Own(env, body)
			if err != nil || !reflect.DeepEqual(got, s.Msg) {
				t.Fatalf("%s: the twins read back as another message (%v):\n%#v\n%#v", s.Name, err, got, s.Msg)
			}
		}
	}
	if covered < 8 {
		t.Errorf("%d messages have a twin, want at least the workbench's 8", covered)
	}
}

func TestDecodeRefuses(t *testing.T) {
	tap, err := New(&codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.TapParams{X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	buf, _, err := tap.Encode(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(buf); cut++ {
		if _, _, err := tap.Decode(buf[:cut]); err == nil {
			t.Errorf("a request cut to %d of %d bytes decoded", cut, len(buf))
		}
	}
	ev, err := New(&codec.Event{Stream: codec.StreamTree, Seq: 3, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: 1, Node: 2, Change: 4}})
	if err != nil {
		t.Fatal(err)
	}
	short := msgp.AppendArrayHeader(nil, 3)
	if _, _, err := ev.Decode(short); err == nil {
		t.Error("an event of 3 elements decoded")
	}
}
