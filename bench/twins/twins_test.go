package twins

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// messages are every golden sample and every seeded message.
func messages() []support.Named {
	var out []support.Named
	for _, s := range golden.Samples() {
		out = append(out, support.Named{Name: s.Name, Msg: s.Msg})
	}
	return append(out, support.Seeded()...)
}

// TestSchema: each map twin mirrors its type of ours field for field,
// matched by protocol key, with the same key in both tags (msgp's in
// hexadecimal), and every twin serves a type of ours.
func TestSchema(t *testing.T) {
	used := map[string]bool{}
	for own, fields := range ownFields {
		tw := twinOf(own)
		used[tw.Name()] = true
		want := len(keyed(own, tw)) // panics on a field without a key or a twin
		for i := range own.NumField() {
			if own.Field(i).Type.Kind() == reflect.Interface {
				want++ // params or result: raw bytes in the twin
			}
		}
		if fields.Name(schema.KeyKind) == "kind" {
			want++
		}
		if tw.NumField() != want {
			t.Errorf("twin %s has %d fields, codec.%s with its kind %d", tw.Name(), tw.NumField(), own.Name(), want)
		}
	}
	for name, tt := range twinsByName {
		if !used[name] && !positional(tt) {
			t.Errorf("twin %s mirrors no map of the schema", name)
		}
		for i := range tt.NumField() {
			f := tt.Field(i)
			k, ok := twinKey(f)
			switch {
			case ok:
				if got, want := f.Tag.Get("msg"), strconv.FormatUint(k, 16); got != want && got != want+",omitempty" {
					t.Errorf("%s.%s: msg tag %q for cbor key %d", name, f.Name, got, k)
				}
			case positional(tt):
			default:
				t.Errorf("%s.%s has no protocol key", name, f.Name)
			}
		}
	}
}

// TestPick: the decoders pick the twin of the params, result and event
// body codec picks, for every method and event type, and none for those
// this version does not know.
func TestPick(t *testing.T) {
	name := func(v any) string {
		if v == nil || reflect.ValueOf(v).IsNil() {
			return "none"
		}
		return reflect.TypeOf(v).Elem().Name()
	}
	for m := range uint32(len(codec.Methods()) + 3) {
		if got, want := name(newParams(m)), name(codec.ParamsFor(codec.Method(m))); got != want {
			t.Errorf("method %d: params twin %s, codec's params %s", m, got, want)
		}
		if got, want := name(newResult(m)), name(codec.ResultFor(codec.Method(m))); got != want {
			t.Errorf("method %d: result twin %s, codec's result %s", m, got, want)
		}
	}
	for s := range uint32(4) {
		for ty := range uint32(4) {
			if got, want := name(newEvent(s, ty)), name(codec.BodyFor(codec.Stream(s), codec.EventType(ty))); got != want {
				t.Errorf("stream %d type %d: event twin %s, codec's body %s", s, ty, got, want)
			}
		}
	}
}

func TestProtocolName(t *testing.T) {
	for goName, want := range map[string]string{"MaxFrame": "max_frame", "DensityDPI": "density_dpi", "SDK": "sdk", "X1": "x1",
		"DeadlineMS": "deadline_ms", "EvictEventLess": "evict_event_less", "MaxFPS": "max_fps", "ID": "id"} {
		if got := protocolName(goName); got != want {
			t.Errorf("protocolName(%s) = %s, want %s", goName, got, want)
		}
	}
}

// TestRoundTrip: every message converts to its twins (Of) and back to
// itself;
// fxamacker writes our bytes from the twins and reads them back; msgp's
// twins encode and decode back to the message, through the same buffers
// used twice (the benchmarks reuse them).
func TestRoundTrip(t *testing.T) {
	var mbuf, mscratch []byte
	var buf, scratch bytes.Buffer
	for _, s := range messages() {
		checkDecoded(t, s, "Of")(Of(s.Msg))
		c, err := New(s.Msg)
		want, merr := codec.Marshal(s.Msg)
		if err != nil || merr != nil {
			t.Fatalf("%s: twins: %v; our encoder: %v", s.Name, err, merr)
		}
		for range 2 {
			if err := c.EncodeCBOR(&buf, &scratch); err != nil || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("%s: fxamacker writes other bytes than ours (%v):\n% x\n% x", s.Name, err, buf.Bytes(), want)
			}
			checkDecoded(t, s, "fxamacker")(c.DecodeCBOR(want))
			if mbuf, mscratch, err = c.EncodeMsgp(mbuf, mscratch); err != nil {
				t.Fatalf("%s: msgp encode: %v", s.Name, err)
			}
			checkDecoded(t, s, "msgp")(c.DecodeMsgp(mbuf))
		}
		if got, err := Unmarshal(want); err != nil || !reflect.DeepEqual(got, s.Msg) {
			t.Fatalf("%s: Unmarshal: %v, or another message", s.Name, err)
		}
		if got, err := Marshal(s.Msg); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: Marshal: %v, or other bytes", s.Name, err)
		}
	}
}

func checkDecoded(t *testing.T, s support.Named, who string) func(env, body Twin, err error) {
	return func(env, body Twin, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %s: %v", s.Name, who, err)
		}
		if got, err := Message(env, body); err != nil || !reflect.DeepEqual(got, s.Msg) {
			t.Fatalf("%s: %s's twins read back as another message (%v):\n%#v\n%#v", s.Name, who, err, got, s.Msg)
		}
	}
}

// TestUnknown: a kind, method or event type this version does not know
// reads as our decoder reads it.
func TestUnknown(t *testing.T) {
	for _, m := range []codec.Message{
		&codec.Request{ID: 1, Method: 99},
		&codec.Response{ID: 1, Method: 99},
		&codec.Event{Stream: codec.StreamFrames, Seq: 4, Type: 7},
	} {
		b, err := codec.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := codec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Unmarshal(b); err != nil || !reflect.DeepEqual(got, ours) {
			t.Errorf("%T: fxamacker reads %#v (%v), ours %#v", m, got, err, ours)
		}
		c, err := New(ours)
		if err != nil {
			t.Fatal(err)
		}
		mb, _, err := c.EncodeMsgp(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		env, body, err := c.DecodeMsgp(mb)
		if got, merr := Message(env, body); err != nil || merr != nil || !reflect.DeepEqual(got, ours) {
			t.Errorf("%T: msgp reads %#v (%v, %v), ours %#v", m, got, err, merr, ours)
		}
	}
	if got, err := Unmarshal([]byte{0xa1, 0x00, 0x18, 0x63}); err != nil || !reflect.DeepEqual(got, &codec.UnknownKind{Value: 99}) {
		t.Errorf("{0: 99} reads as %#v (%v)", got, err)
	}
	for _, m := range []codec.Message{&codec.UnknownKind{Value: 99}, (*codec.Request)(nil), nil} {
		if _, _, err := Of(m); err == nil {
			t.Errorf("%#v has twins", m)
		}
	}
}

// TestDecodeRefuses: cut input is an error for both libraries, and so is
// an event shorter than its head.
func TestDecodeRefuses(t *testing.T) {
	tap, err := New(&codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.TapParams{X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	mb, _, err := tap.EncodeMsgp(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cb, scratch bytes.Buffer
	if err := tap.EncodeCBOR(&cb, &scratch); err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(mb); cut++ {
		if _, _, err := tap.DecodeMsgp(mb[:cut]); err == nil {
			t.Errorf("msgp: a request cut to %d of %d bytes decoded", cut, len(mb))
		}
	}
	for cut := 0; cut < cb.Len(); cut++ {
		if _, _, err := tap.DecodeCBOR(cb.Bytes()[:cut]); err == nil {
			t.Errorf("fxamacker: a request cut to %d of %d bytes decoded", cut, cb.Len())
		}
		if _, err := Unmarshal(cb.Bytes()[:cut]); err == nil {
			t.Errorf("Unmarshal: a request cut to %d of %d bytes decoded", cut, cb.Len())
		}
	}
	ev, err := New(&codec.Event{Stream: codec.StreamTree, Seq: 3, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: 1, Node: 2, Change: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ev.DecodeMsgp(msgp.AppendArrayHeader(nil, 3)); err == nil {
		t.Error("msgp: an event of 3 elements decoded")
	}
	if _, _, err := ev.DecodeCBOR([]byte{0x83, 0x06, 0x00, 0x01}); err == nil {
		t.Error("fxamacker: an event of 3 elements decoded")
	}
}

// TestMismatch: a twin that does not fit the message is an error, not a
// panic.
func TestMismatch(t *testing.T) {
	if _, err := Message(&Request{Kind: uint64(codec.KindRequest), Method: uint32(codec.MethodTap)}, &SnapshotParams{}); err == nil {
		t.Error("tap params from a snapshot params twin")
	}
	if _, err := Message(&Device{}, nil); err == nil {
		t.Error("a device twin converted to a message")
	}
	if _, err := Message(&Hello{Kind: uint64(codec.KindPing)}, nil); err == nil {
		t.Error("a hello twin of kind ping converted")
	}
	if _, err := Message(&WindowChanged{Kind: uint64(codec.KindEvent), Stream: uint32(codec.StreamTree), Type: uint32(codec.TypeContentChanged)}, nil); err == nil {
		t.Error("a window_changed twin of a content_changed event converted")
	}
}
