package codec_test

import (
	"bytes"
	"errors"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

func hexb(t *testing.T, parts ...any) []byte {
	t.Helper()
	var out []byte
	for _, p := range parts {
		switch p := p.(type) {
		case []byte:
			out = append(out, p...)
		case byte:
			out = append(out, p)
		case int:
			out = append(out, byte(p))
		case string:
			out = append(out, p...)
		case rune:
			out = append(out, byte(p))
		default:
			t.Fatalf("hexb: %T", p)
		}
	}
	return out
}

func mustMarshal(t *testing.T, m codec.Message) []byte {
	t.Helper()
	b, err := codec.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chain builds a node map nested depth levels deep through key 8, as raw
// bytes, without building the tree in memory.
func chain(depth int) []byte {
	node := []byte{0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x08, 0x81}
	leaf := []byte{0xa4, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00}
	out := bytes.Repeat(node, depth-1)
	return append(out, leaf...)
}

// snapshotResponse wraps a window root's bytes into a response.
func snapshotResponse(root []byte) []byte {
	out := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03,
		0xa4, 0x00, 0x81, 0x61, 'V', 0x01, 0x81,
		0xa6, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0x07}
	out = append(out, root...)
	return append(out, 0x02, 0x00, 0x03, 0x00)
}

func TestDeepChainAtTheLimitDecodes(t *testing.T) {
	b := snapshotResponse(chain(schema.MaxNodeDepth))
	m, err := codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	n := m.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root
	depth := 1
	for len(n.Children) > 0 {
		n = &n.Children[0]
		depth++
	}
	if depth != schema.MaxNodeDepth {
		t.Fatalf("depth %d", depth)
	}
	// And it re-encodes to the same bytes.
	if out := mustMarshal(t, m); !bytes.Equal(out, b) {
		t.Fatalf("re-encoded differently")
	}
}

func TestDeepChainPastTheLimitFails(t *testing.T) {
	for _, depth := range []int{schema.MaxNodeDepth + 1, 100_000} {
		b := snapshotResponse(chain(depth))
		// A recursive decoder would need megabytes of stack for 100 000
		// levels; with the limit lowered it would crash the test binary.
		old := debug.SetMaxStack(1 << 20)
		_, err := codec.Decode(b)
		debug.SetMaxStack(old)
		if !errors.Is(err, cbor.ErrDepth) {
			t.Fatalf("depth %d: %v, want ErrDepth", depth, err)
		}
		var de *codec.DecodeError
		errors.As(err, &de)
		// The error comes at the first node past the limit, not at the end.
		if want := 31 + 15*schema.MaxNodeDepth; de.Offset > want+2 {
			t.Errorf("depth %d: error at byte %d, want near %d", depth, de.Offset, want)
		}
		if !strings.HasPrefix(de.Path(), "response.result.windows[0].root.children[0].children[0]") {
			t.Errorf("path %q", de.Path())
		}
	}
}

func TestEncodeRefusesTreeTooDeep(t *testing.T) {
	s := golden.DeepSnapshot(schema.MaxNodeDepth + 1)
	_, err := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s})
	var ee *codec.EncodeError
	if !errors.As(err, &ee) || !strings.Contains(ee.Detail, "deeper") {
		t.Fatalf("err %v", err)
	}
	if _, err := codec.Marshal(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: golden.DeepSnapshot(schema.MaxNodeDepth)}); err != nil {
		t.Fatal(err)
	}
}

func TestErrorPath(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot")
	snap := s.Msg.(*codec.Response).Result.(*codec.Snapshot)
	// Three windows; the third one's first child gets broken bounds.
	for len(snap.Windows) < 3 {
		snap.Windows = append(snap.Windows, snap.Windows[0])
	}
	b := mustMarshal(t, s.Msg)
	// Find the bounds of node 2 in the third window: the child bounds
	// [42, 120, 1038, 210] encodes as 84 18 2a 18 78 19 04 0e 18 d2.
	pat := []byte{0x84, 0x18, 0x2a, 0x18, 0x78, 0x19, 0x04, 0x0e, 0x18, 0xd2}
	at := bytes.LastIndex(b, pat)
	if at < 0 {
		t.Fatal("pattern not found")
	}
	b[at+1] = 0xfa // a float32 head where an integer belongs; 4 bytes follow
	_, err := codec.Decode(b)
	var de *codec.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, cbor.ErrFloat) {
		t.Fatalf("err %v", err)
	}
	if got, want := de.Path(), "response.result.windows[2].root.children[0].bounds[0]"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
	if de.Offset != at+1 {
		t.Errorf("offset %d, want %d", de.Offset, at+1)
	}
	if !strings.Contains(err.Error(), "at byte") || !strings.Contains(err.Error(), "windows[2]") {
		t.Errorf("message %q", err)
	}
}

func TestHostileInputs(t *testing.T) {
	tap := mustMarshal(t, &codec.Request{ID: 6, Method: codec.MethodTap, Params: &codec.TapParams{X: 1, Y: 2}})
	text := mustMarshal(t, &codec.Request{ID: 6, Method: codec.MethodTypeText, Params: &codec.TypeTextParams{Text: "ab"}})
	cases := []struct {
		name string
		in   []byte
		kind error
		path string
	}{
		{"empty", nil, cbor.ErrTruncated, ""},
		{"array head of 2^32 elements with 10 bytes left", hexb(t, 0x9a, 0xff, 0xff, 0xff, 0xff, bytes.Repeat([]byte{0}, 10)), cbor.ErrTruncated, "message"},
		{"u64 array head in evict", hexb(t, 0xa4, 0x00, 0x02, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa1, 0x04, 0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00), cbor.ErrTruncated, "request.params.evict"},
		{"string longer than input", hexb(t, 0xa4, 0x00, 0x02, 0x01, 0x01, 0x02, 0x07, 0x03, 0xa1, 0x00, 0x7a, 0x7f, 0xff, 0xff, 0xff, 'a'), cbor.ErrTruncated, "request.params.text"},
		{"bad UTF-8", bytes.Replace(text, []byte("ab"), []byte{0xc3, 0x28}, 1), cbor.ErrUTF8, "request.params.text"},
		{"overlong UTF-8", bytes.Replace(text, []byte("ab"), []byte{0xc0, 0xaf}, 1), cbor.ErrUTF8, "request.params.text"},
		{"truncated map", tap[:len(tap)-1], cbor.ErrTruncated, "request.params"},
		{"truncated value", text[:len(text)-1], cbor.ErrTruncated, "request.params.text"},
		{"trailing bytes", append(append([]byte{}, tap...), 0x00), cbor.ErrTrailing, ""},
		{"float in a typed field", bytes.Replace(tap, []byte{0x00, 0x01, 0x01, 0x02}, []byte{0x00, 0xf9, 0x3c, 0x00, 0x01, 0x02}, 1), cbor.ErrFloat, "request.params.x"},
		{"tag in a typed field", bytes.Replace(tap, []byte{0x00, 0x01, 0x01, 0x02}, []byte{0x00, 0xc1, 0x01, 0x01, 0x02}, 1), cbor.ErrTag, "request.params.x"},
		{"text where an integer belongs", bytes.Replace(tap, []byte{0x00, 0x01, 0x01, 0x02}, []byte{0x00, 0x61, 'x', 0x01, 0x02}, 1), cbor.ErrType, "request.params.x"},
		{"i32 out of range", bytes.Replace(tap, []byte{0x00, 0x01, 0x01, 0x02}, []byte{0x00, 0x1a, 0x80, 0x00, 0x00, 0x00, 0x01, 0x02}, 1), cbor.ErrRange, "request.params.x"},
		{"missing required key", hexb(t, 0xa4, 0x00, 0x02, 0x01, 0x01, 0x02, 0x03, 0x03, 0xa1, 0x00, 0x01), cbor.ErrMissing, "request.params.y"},
		{"missing kind", hexb(t, 0xa1, 0x01, 0x01), cbor.ErrMissing, "message.kind"},
		{"reserved additional information", hexb(t, 0xa2, 0x00, 0x04, 0x01, 0x1c), cbor.ErrMalformed, "ping.nonce"},
		{"break outside a container", hexb(t, 0xa2, 0x00, 0x04, 0x01, 0xff), cbor.ErrMalformed, "ping.nonce"},
		{"not a map or array", hexb(t, 0x01), cbor.ErrType, "message"},
		{"response with both result and error", hexb(t, 0xa5, 0x00, 0x03, 0x01, 0x01, 0x02, 0x03, 0x03, 0xa0, 0x04, 0xa3, 0x00, 0x61, 'x', 0x01, 0x60, 0x02, 0xf4), cbor.ErrInvalid, "response"},
		{"response with neither", hexb(t, 0xa3, 0x00, 0x03, 0x01, 0x01, 0x02, 0x03), cbor.ErrMissing, "response"},
		{"event too short", hexb(t, 0x83, 0x06, 0x00, 0x01), cbor.ErrMissing, "event"},
		{"kind repeated with another value", hexb(t, 0xa3, 0x00, 0x04, 0x01, 0x01, 0x00, 0x05), cbor.ErrInvalid, "ping.kind"},
		{"kind repeated in a request", hexb(t, 0xa5, 0x00, 0x02, 0x01, 0x01, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x01, 0x01, 0x02, 0x00, 0x03), cbor.ErrInvalid, "request.kind"},
		{"indefinite map ends after a key in a skipped value", hexb(t, 0xa3, 0x00, 0x04, 0x01, 0x01, 0x09, 0xbf, 0x01, 0xff), cbor.ErrMalformed, "ping"},
		{"two-byte simple value below 32", hexb(t, 0xa3, 0x00, 0x04, 0x01, 0x01, 0x09, 0xf8, 0x10), cbor.ErrMalformed, "ping"},
		{"bounds too short", hexb(t, 0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x02, 0x03, 0xa1, 0x00, 0x81, 0x82, 0x04, 0x83, 0x00, 0x00, 0x01), cbor.ErrMissing, "response.result.nodes[0].bounds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := codec.Decode(c.in)
			if err == nil {
				t.Fatalf("decoded %#v", m)
			}
			if m != nil {
				t.Errorf("message returned with an error")
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("err %v, want kind %v", err, c.kind)
			}
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err %T is not a DecodeError", err)
			}
			if de.Path() != c.path {
				t.Errorf("path %q, want %q (%v)", de.Path(), c.path, err)
			}
			if de.Offset < 0 || de.Offset > len(c.in) {
				t.Errorf("offset %d outside the input of %d bytes", de.Offset, len(c.in))
			}
		})
	}
}

func TestReceiversAccept(t *testing.T) {
	want := &codec.Request{ID: 6, Method: codec.MethodSwipe, Params: &codec.SwipeParams{X1: 1, Y1: 2, X2: 3, Y2: 4, DurationMS: 5}}
	cases := []struct {
		name string
		in   []byte
	}{
		// keys out of order, params first, method last
		{"any key order", hexb(t, 0xa4, 0x03, 0xa5, 0x04, 0x05, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x00, 0x02, 0x01, 0x06, 0x02, 0x05)},
		{"null as absent", hexb(t, 0xa5, 0x00, 0x02, 0x01, 0x06, 0x02, 0x05, 0x03, 0xa6, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05, 0x05, 0xf6, 0x04, 0xf6)},
		{"unknown keys skipped", hexb(t, 0xa5, 0x00, 0x02, 0x01, 0x06, 0x02, 0x05, 0x03, 0xa6, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05, 0x18, 0x63, 0xc1, 0xfb, 0, 0, 0, 0, 0, 0, 0, 0, 0x63, 'k', 'e', 'y', 0x9f, 0x01, 0xbf, 0xff, 0xff)},
		{"repeated key, last wins", hexb(t, 0xa5, 0x00, 0x02, 0x01, 0x07, 0x01, 0x06, 0x02, 0x05, 0x03, 0xa5, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05)},
		{"indefinite lengths", hexb(t, 0xbf, 0x00, 0x02, 0x01, 0x06, 0x02, 0x05, 0x03, 0xbf, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05, 0xff, 0xff)},
		{"non-shortest heads", hexb(t, 0xb8, 0x04, 0x00, 0x18, 0x02, 0x01, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0x06, 0x02, 0x19, 0x00, 0x05, 0x03, 0xa5, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03, 0x03, 0x04, 0x04, 0x05)},
	}
	for _, c := range cases {
		m, err := codec.Decode(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: %#v", c.name, m)
		}
	}
}

func TestElementsPastTheKnownAreSkipped(t *testing.T) {
	// An event with two extra elements, and bounds with a fifth.
	in := hexb(t, 0x89, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02, 0x18, 0x63, 0x82, 0x01, 0x02)
	m, err := codec.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &codec.Event{Stream: 0, Seq: 2, Type: 1, Body: &codec.ContentChanged{Window: 3, Node: 17, Change: 2}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("%#v", m)
	}
	b := hexb(t, 0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x02, 0x03, 0xa1, 0x00, 0x81, 0x82, 0x04, 0x85, 0x00, 0x01, 0x02, 0x03, 0x04)
	m, err = codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*codec.Response).Result.(*codec.BoundsResult).Nodes[0]; got != (codec.NodeBounds{Node: 4, Bounds: codec.Bounds{Left: 0, Top: 1, Right: 2, Bottom: 3}}) {
		t.Fatalf("%+v", got)
	}
}

func TestUnknownKindAndMethod(t *testing.T) {
	m, err := codec.Decode(hexb(t, 0xa2, 0x00, 0x18, 0x2a, 0x01, 0x80))
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := m.(*codec.UnknownKind); !ok || u.Value != 42 || m.Kind().Known() {
		t.Fatalf("%#v", m)
	}
	m, err = codec.Decode(hexb(t, 0x82, 0x07, 0x01))
	if u, ok := m.(*codec.UnknownKind); err != nil || !ok || u.Value != 7 {
		t.Fatalf("array of kind 7: %#v %v", m, err)
	}
	// A request of unknown method 99 with params it cannot read.
	m, err = codec.Decode(hexb(t, 0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x18, 0x63, 0x03, 0xa1, 0x00, 0x9f, 0x63, 'a', 'b', 'c', 0xff))
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*codec.Request)
	if r.Method != 99 || r.Method.Known() || r.Params != nil || r.ID != 5 {
		t.Fatalf("%#v", r)
	}
	// Unknown codes decode as they are, retryable as sent.
	m, err = codec.Decode(hexb(t, 0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x03, 0x04, 0xa3, 0x00, 0x61, 'q', 0x01, 0x60, 0x02, 0xf5))
	if err != nil {
		t.Fatal(err)
	}
	if e := m.(*codec.Response).Error; e.Code != "q" || !e.Retryable || e.Code.Known() {
		t.Fatalf("%#v", e)
	}
}

func TestDecodeOwnsItsMemory(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot")
	b := mustMarshal(t, s.Msg)
	m, err := codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 0xee
	}
	if !reflect.DeepEqual(m, s.Msg) {
		t.Fatal("the decoded message changed with its input")
	}
}

func TestEncodeChecks(t *testing.T) {
	bad := []codec.Message{
		&codec.Request{ID: 1, Method: codec.MethodTap, Params: &codec.KeyParams{}},
		&codec.Request{ID: 1, Method: codec.MethodTypeText, Params: &codec.TypeTextParams{Text: "\xff"}},
		&codec.Response{ID: 1, Method: codec.MethodTap, Result: &codec.Empty{}, Error: codec.NewError(codec.CodeBusy, "x")},
		&codec.Response{ID: 1, Method: codec.MethodTap, Result: &codec.ResyncResult{}},
		&codec.Event{Stream: codec.StreamFrames, Type: 0, Body: &codec.ContentChanged{}},
		&codec.UnknownKind{Value: 9},
		&codec.Request{ID: 1, Method: codec.MethodTap},
		&codec.Response{ID: 1, Method: codec.MethodSnapshot},
	}
	for _, m := range []codec.Message{&codec.Request{ID: 1, Method: codec.MethodDeviceInfo}, &codec.Request{ID: 1, Method: 99},
		&codec.Response{ID: 1, Method: codec.MethodTap}, &codec.Response{ID: 1, Method: 99}} {
		b, err := codec.Marshal(m)
		if err != nil {
			t.Errorf("%#v: %v", m, err)
		} else if _, err := codec.Decode(b); err != nil {
			t.Errorf("%#v encodes to what does not decode: %v", m, err)
		}
	}
	for _, m := range bad {
		dst := []byte{1, 2, 3}
		out, err := codec.Append(dst, m)
		if err == nil {
			t.Errorf("%#v encoded", m)
		}
		if len(out) != 3 {
			t.Errorf("%#v: a refused message left %d bytes", m, len(out)-3)
		}
	}
}

func TestRetryableFromTable(t *testing.T) {
	for _, c := range codec.Codes() {
		want := c == codec.CodeDeadlineExceeded || c == codec.CodeBusy || c == codec.CodeDisconnected
		if e := codec.NewError(c, "m"); e.Retryable != want {
			t.Errorf("%s retryable %v", c, e.Retryable)
		}
	}
	if codec.NewError("later_code", "").Retryable {
		t.Error("an unknown code is retryable")
	}
	if !errors.Is(codec.NewError(codec.CodeBusy, "now"), &codec.Error{Code: codec.CodeBusy}) {
		t.Error("errors.Is by code")
	}
}

func TestCapabilitiesAndMethods(t *testing.T) {
	for _, m := range codec.Methods() {
		p, ok := codec.ParseMethod(m.String())
		if !ok || p != m {
			t.Errorf("%s does not parse back", m)
		}
		if codec.ParamsFor(m) == nil || codec.ParamsFor(m).Method() != m {
			t.Errorf("ParamsFor(%s)", m)
		}
		if r := codec.ResultFor(m); r == nil || !r.ResultOf(m) {
			t.Errorf("ResultFor(%s)", m)
		}
	}
	if codec.MethodTap.Capability() != codec.CapInput || codec.MethodDeviceInfo.Capability() != 0 || codec.MethodBounds.Capability() != codec.CapBounds {
		t.Error("capability table")
	}
	c := codec.CapTree | 1<<30
	if c.String() != "tree|bit 30" {
		t.Errorf("%s", c)
	}
}

// TestHeadBoundaries checks every head length at its edges through a
// request id, which is a u64.
func TestHeadBoundaries(t *testing.T) {
	for _, c := range []struct {
		v    uint64
		head []byte
	}{{23, []byte{0x17}}, {24, []byte{0x18, 0x18}}, {255, []byte{0x18, 0xff}}, {256, []byte{0x19, 0x01, 0x00}},
		{65535, []byte{0x19, 0xff, 0xff}}, {65536, []byte{0x1a, 0, 1, 0, 0}}, {1<<32 - 1, []byte{0x1a, 0xff, 0xff, 0xff, 0xff}},
		{1 << 32, []byte{0x1b, 0, 0, 0, 1, 0, 0, 0, 0}}} {
		b := mustMarshal(t, &codec.Ping{Nonce: c.v})
		if !bytes.Equal(b[4:], c.head) {
			t.Errorf("%d: %x", c.v, b[4:])
		}
	}
	for _, c := range []struct {
		v    int64
		head []byte
	}{{-24, []byte{0x37}}, {-25, []byte{0x38, 0x18}}, {-256, []byte{0x38, 0xff}}, {-257, []byte{0x39, 0x01, 0x00}}} {
		if got := cbor.AppendInt(nil, c.v); !bytes.Equal(got, c.head) {
			t.Errorf("%d: %x", c.v, got)
		}
	}
}

func TestResponseAnyKeyOrder(t *testing.T) {
	want := &codec.Response{ID: 5, Method: codec.MethodResync, Result: &codec.ResyncResult{Seq: 9}}
	for name, in := range map[string][]byte{
		"result before method": hexb(t, 0xa4, 0x03, 0xa1, 0x00, 0x09, 0x01, 0x05, 0x00, 0x03, 0x02, 0x0c),
		"kind last":            hexb(t, 0xa4, 0x01, 0x05, 0x02, 0x0c, 0x03, 0xa1, 0x00, 0x09, 0x00, 0x03),
	} {
		m, err := codec.Decode(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: %#v", name, m)
		}
	}
	// An error response with the error before the method.
	m, err := codec.Decode(hexb(t, 0xa4, 0x00, 0x03, 0x04, 0xa3, 0x00, 0x64, 'b', 'u', 's', 'y', 0x01, 0x60, 0x02, 0xf5, 0x01, 0x05, 0x02, 0x0c))
	if err != nil {
		t.Fatal(err)
	}
	if r := m.(*codec.Response); r.Method != codec.MethodResync || r.ID != 5 || r.Error.Code != codec.CodeBusy || r.Result != nil {
		t.Fatalf("%#v", r)
	}
	// A method repeated after the params with another value is refused.
	_, err = codec.Decode(hexb(t, 0xa5, 0x00, 0x03, 0x01, 0x05, 0x02, 0x0c, 0x03, 0xa1, 0x00, 0x09, 0x02, 0x01))
	if !errors.Is(err, cbor.ErrInvalid) {
		t.Fatalf("%v", err)
	}
}

func TestNodeChildrenNull(t *testing.T) {
	// A root whose key 8 is null: absent children, nothing skipped after.
	root := []byte{0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x08, 0xf6}
	m, err := codec.Decode(snapshotResponse(root))
	if err != nil {
		t.Fatal(err)
	}
	if n := m.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root; n.Children != nil || n.ID != 1 {
		t.Fatalf("%#v", n)
	}
	// A stray item after the null is a malformed map, not a skipped value.
	bad := append(append([]byte{}, root[:len(root)-1]...), 0xf6, 0x00)
	if _, err := codec.Decode(snapshotResponse(bad)); err == nil {
		t.Fatal("stray item after a null children key accepted")
	}
}

func TestOptPointers(t *testing.T) {
	o := codec.Some[uint32](7)
	p := o.Ptr()
	if p == nil || *p != 7 {
		t.Fatal("Ptr of a present value")
	}
	*p = 8
	if o.Val != 7 {
		t.Fatal("Ptr aliases the Opt")
	}
	if (codec.Opt[uint32]{}).Ptr() != nil || codec.OptFrom[uint32](nil).Ok || codec.OptFrom(p) != codec.Some[uint32](8) {
		t.Fatal("OptFrom")
	}
}

// TestReservationsCappedByInput: a count larger than the bytes left fails
// before anything is reserved for it.
func TestReservationsCappedByInput(t *testing.T) {
	// A snapshot claiming 1000 windows and 100 000 children with a few bytes
	// left must fail before reserving them.
	in := hexb(t, 0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa2, 0x00, 0x80, 0x01, 0x99, 0x03, 0xe8, bytes.Repeat([]byte{0}, 100))
	_, err := codec.Decode(in)
	if !errors.Is(err, cbor.ErrTruncated) || !strings.Contains(err.Error(), "windows") {
		t.Fatalf("%v", err)
	}
	root := hexb(t, 0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x08, 0x1a, 0x00, 0x01, 0x86, 0xa0)
	root[14] = 0x9a
	_, err = codec.Decode(snapshotResponse(root))
	if !errors.Is(err, cbor.ErrTruncated) || !strings.Contains(err.Error(), "children") {
		t.Fatalf("%v", err)
	}
	codec.CheckAllocsAtMost(t, "decode of a hostile children count", 40, func() { codec.Decode(snapshotResponse(root)) })
}

// TestIndefiniteWindows: a windows array of indefinite length decodes,
// its windows appended as they come.
func TestIndefiniteWindows(t *testing.T) {
	in := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa4, 0x00, 0x81, 0x61, 'V', 0x01, 0x9f,
		0xa5, 0x00, 0x07, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0xff, 0x02, 0x00, 0x03, 0x00}
	m, err := codec.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	if w := m.(*codec.Response).Result.(*codec.Snapshot).Windows; len(w) != 1 || w[0].ID != 7 {
		t.Fatalf("%+v", w)
	}
}
