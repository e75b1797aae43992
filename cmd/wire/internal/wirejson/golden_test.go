package wirejson

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/samples.jsonl from the current code")

// goldenExtras are messages beyond the golden samples whose JSON form the
// golden file fixes too: unknown kinds, methods, streams and event types,
// strings that encoding/json escapes, empty and nil lists.
func goldenExtras() []golden.Sample {
	return []golden.Sample{
		{Name: "unknown_kind", Msg: &codec.UnknownKind{Value: 9}},
		{Name: "event_unknown_type", Msg: &codec.Event{Stream: codec.StreamTree, Seq: 5, Type: 7}},
		{Name: "event_unknown_stream", Msg: &codec.Event{Stream: 4, Seq: 5, Type: 0}},
		{Name: "event_frame_nil_image", Msg: &codec.Event{Stream: codec.StreamFrames, Seq: 2, Type: codec.TypeFrame, Body: &codec.ScreenFrame{Width: 1}}},
		{Name: "response_unknown_method", Msg: &codec.Response{ID: 3, Method: 77}},
		{Name: "response_unknown_method_error", Msg: &codec.Response{ID: 3, Method: 77, Error: codec.NewError(codec.CodeUnknownMethod, "no")}},
		{Name: "request_resync_unknown_stream", Msg: &codec.Request{ID: 1, Method: codec.MethodResync, Params: &codec.ResyncParams{Stream: 9}}},
		{Name: "request_snapshot_nil_evict", Msg: &codec.Request{ID: 1, Method: codec.MethodSnapshot, Params: &codec.SnapshotParams{}}},
		{Name: "request_type_text_escapes", Msg: &codec.Request{ID: 1, Method: codec.MethodTypeText, Params: &codec.TypeTextParams{Text: "<a href=\"x\">&amp;</a>\\ \x00\x01\x1f\b\f\n\r\t\x7f \u2028\u2029 \xff\xfe é"}}},
		{Name: "hello_nil_versions", Msg: &codec.Hello{Agent: "a", Capabilities: codec.CapInput | codec.CapFrames}},
		{Name: "welcome_empty", Msg: &codec.Welcome{}},
		{Name: "response_screenshot_nil_image", Msg: &codec.Response{ID: 2, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{}}},
		{Name: "response_snapshot_empty", Msg: &codec.Response{ID: 2, Method: codec.MethodSnapshot, Result: &codec.Snapshot{}}},
		{Name: "response_snapshot_modal_empty_children", Msg: &codec.Response{ID: 2, Method: codec.MethodSnapshot, Result: &codec.Snapshot{
			Windows: []codec.Window{{ID: 1, Modal: true, Root: &codec.Node{ID: 1, Children: []codec.Node{}}}}}}},
		{Name: "response_bounds_empty", Msg: &codec.Response{ID: 2, Method: codec.MethodBounds, Result: &codec.BoundsResult{}}},
	}
}

// TestGoldenJSON: the JSON form of every golden sample, as given and as
// decoded from its frame, and of the extras, is the line in
// testdata/samples.jsonl, byte for byte; so are ResultValue's and
// ErrorValue's forms, as `wire host` prints them (HTML escaped).
func TestGoldenJSON(t *testing.T) {
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	put := func(name string, v any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got.WriteString(name + " ")
		if err := enc.Encode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	samples := append(golden.Samples(), goldenExtras()...)
	for _, s := range samples {
		v, err := Value(s.Msg)
		put(s.Name, v, err)
		line := got.Bytes()[bytes.LastIndexByte(got.Bytes()[:got.Len()-1], '\n')+1+len(s.Name)+1 : got.Len()-1]
		if b, err := AppendJSON(nil, s.Msg); err != nil || !bytes.Equal(b, line) {
			t.Errorf("%s: AppendJSON gives %s (%v), the encoder %s", s.Name, b, err, line)
		}
		if frame, err := codec.Append(nil, s.Msg); err == nil {
			m, err := codec.Decode(frame)
			if err != nil {
				t.Fatalf("%s: decode: %v", s.Name, err)
			}
			v, err = Value(m)
			put(s.Name+"/decoded", v, err)
		}
		switch m := s.Msg.(type) {
		case *codec.Response:
			if m.Error != nil {
				b, err := json.Marshal(map[string]any{"error": ErrorValue(m.Error)})
				got.WriteString(s.Name + "/host " + string(b) + "\n")
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			r, err := ResultValue(m.Result)
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			b, err := json.Marshal(map[string]any{"result": r})
			if err != nil {
				t.Fatal(err)
			}
			got.WriteString(s.Name + "/host " + string(b) + "\n")
		case *codec.Request:
			if m.Method == codec.MethodTypeText {
				b, err := json.Marshal(map[string]any{"line": mustValue(t, m)})
				if err != nil {
					t.Fatal(err)
				}
				got.WriteString(s.Name + "/html " + string(b) + "\n")
			}
		}
	}
	const file = "testdata/samples.jsonl"
	if *update {
		if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gl), len(wl)) {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

func mustValue(t *testing.T, m codec.Message) any {
	t.Helper()
	v, err := Value(m)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
