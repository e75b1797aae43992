// Package golden holds the protocol's golden samples: one message per
// kind, method parameter set, result, event type and error code, plus the
// named edge cases of docs/protocol.md section 9. golden/<name>.bin is the frame
// our encoder writes for each; golden/reference/<name>.bin is the frame
// github.com/fxamacker/cbor/v2 writes from twin structs. Other
// implementations (the agent's codec) check themselves against these files.
package golden

import (
	"math"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Sample is one named golden message.
type Sample struct {
	Name string
	Msg  codec.Message
}

// Lookup returns the sample with the given name.
func Lookup(name string) (Sample, bool) {
	for _, s := range Samples() {
		if s.Name == name {
			return s, true
		}
	}
	return Sample{}, false
}

func some[T any](v T) codec.Opt[T] { return codec.Some(v) }

func req(id uint64, p codec.Params) *codec.Request {
	return &codec.Request{ID: id, Method: p.Method(), Params: p}
}

func resp(id uint64, m codec.Method, r codec.Result) *codec.Response {
	return &codec.Response{ID: id, Method: m, Result: r}
}

var pixel7 = codec.Device{Model: "Pixel 7", SDK: 34, ABI: "arm64-v8a", Display: codec.Display{Width: 1080, Height: 2400, DensityDPI: 420, Rotation: 0}}

// Samples returns every golden sample, in a fixed order. Each call builds
// new values, so callers may change them.
func Samples() []Sample {
	s := []Sample{
		{"hello_full", &codec.Hello{
			Versions: []uint32{1, 2}, MaxFrame: schema.DefaultMaxFrame,
			Capabilities: codec.CapAll | 1<<30, Token: some("3f9c1a7e-launch-token"),
			Agent: "mobile-agent/1.4.2 (android)", Device: some(pixel7),
		}},
		{"hello_minimal", &codec.Hello{Versions: []uint32{1}, MaxFrame: schema.MinMaxFrame, Agent: "a"}},
		{"welcome_ok", &codec.Welcome{Version: some[uint32](1), MaxFrame: some[uint32](1 << 20), Session: some[uint64](0x5eed)}},
		{"welcome_no_common_version", &codec.Welcome{Error: codec.NewError(codec.CodeNoCommonVersion,
			"host speaks [1], agent speaks [2, 3]: redeploy the agent built with this host")}},
		{"welcome_bad_token", &codec.Welcome{Error: codec.NewError(codec.CodeBadToken, "the per-launch token does not match")}},
		{"ping", &codec.Ping{Nonce: 1}},
		{"pong", &codec.Pong{Nonce: 1}},

		{"request_snapshot", req(1, &codec.SnapshotParams{Evict: []uint32{}})},
		{"request_snapshot_bounds", req(2, &codec.SnapshotParams{MaxDepth: some[uint32](64), MaxNodes: some[uint32](5000), MaxWindows: some[uint32](8), Evict: []uint32{}})},
		{"request_snapshot_evict", req(3, &codec.SnapshotParams{EvictEventLess: some(true), Evict: []uint32{}})},
		{"request_snapshot_evict_windows", req(4, &codec.SnapshotParams{Evict: []uint32{3, 7, 4294967295}})},
		{"request_bounds", req(5, &codec.BoundsParams{Nodes: []uint32{4, 7, 12}})},
		{"request_tap", req(6, &codec.TapParams{X: 540, Y: 1200})},
		{"request_long_press", req(7, &codec.LongPressParams{X: 100, Y: 200, DurationMS: 800})},
		{"request_swipe", req(8, &codec.SwipeParams{X1: 540, Y1: 1800, X2: 540, Y2: 600, DurationMS: 300})},
		{"request_swipe_rest", req(9, &codec.SwipeParams{X1: 540, Y1: 1800, X2: 540, Y2: 600, DurationMS: 300, RestMS: some[uint32](60)})},
		{"request_key", req(10, &codec.KeyParams{Keycode: 66})},
		{"request_key_meta", req(11, &codec.KeyParams{Keycode: 29, Meta: some[uint32](0x1000)})},
		{"request_type_text", req(12, &codec.TypeTextParams{Text: "hello world"})},
		{"request_set_text", req(13, &codec.SetTextParams{Node: 42, Text: "user@example.com"})},
		{"request_screenshot", req(14, &codec.ScreenshotParams{})},
		{"request_screenshot_jpeg", req(15, &codec.ScreenshotParams{Format: some(schema.FormatJPEG), Quality: some[uint32](80), ScalePct: some[uint32](50)})},
		{"request_frames_start", req(16, &codec.FramesStartParams{MaxFPS: some[uint32](10), ScalePct: some[uint32](25), Quality: some[uint32](60)})},
		{"request_frames_stop", req(17, &codec.FramesStopParams{})},
		{"request_resync", req(18, &codec.ResyncParams{Stream: codec.StreamTree})},
		{"request_device_info", req(19, &codec.DeviceInfoParams{})},
		{"request_deadline", &codec.Request{ID: 20, Method: codec.MethodSnapshot, Params: &codec.SnapshotParams{Evict: []uint32{}}, DeadlineMS: some[uint32](2500)}},
		{"request_unknown_method", &codec.Request{ID: 21, Method: 99}},

		{"response_snapshot", resp(1, codec.MethodSnapshot, sampleSnapshot())},
		{"response_snapshot_window_meta", resp(2, codec.MethodSnapshot, windowMetaSnapshot())},
		{"response_snapshot_scroll", resp(3, codec.MethodSnapshot, scrollSnapshot())},
		{"response_snapshot_deep", resp(4, codec.MethodSnapshot, deepSnapshot(schema.MaxNodeDepth))},
		{"response_snapshot_empty_texts", resp(7, codec.MethodSnapshot, emptyTextsSnapshot())},
		{"response_bounds", resp(5, codec.MethodBounds, &codec.BoundsResult{Nodes: []codec.NodeBounds{
			{Node: 4, Bounds: codec.Bounds{Left: 0, Top: 63, Right: 1080, Bottom: 210}},
			{Node: 12, Bounds: codec.Bounds{Left: 42, Top: 900, Right: 1038, Bottom: 1044}},
		}})},
		{"response_tap", resp(6, codec.MethodTap, &codec.Empty{})},
		{"response_screenshot", resp(14, codec.MethodScreenshot, &codec.ScreenshotResult{Width: 4, Height: 2, Format: schema.FormatPNG, Image: samplePNG})},
		{"response_frames_start", resp(16, codec.MethodFramesStart, &codec.FramesStartResult{Stream: codec.StreamFrames})},
		{"response_resync", resp(18, codec.MethodResync, &codec.ResyncResult{Seq: 1234})},
		{"response_device_info", resp(19, codec.MethodDeviceInfo, &pixel7)},

		{"event_window_changed", &codec.Event{Stream: codec.StreamTree, Seq: 1, Type: codec.TypeWindowChanged, Body: &codec.WindowChanged{Window: 3, Change: schema.WindowAdded | schema.WindowFocus}}},
		{"event_content_changed", &codec.Event{Stream: codec.StreamTree, Seq: 2, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: 3, Node: 17, Change: schema.ContentText}}},
		{"event_frame", &codec.Event{Stream: codec.StreamFrames, Seq: 1, Type: codec.TypeFrame, Body: &codec.ScreenFrame{Width: 4, Height: 2, Format: schema.FormatPNG, UptimeMS: 86_400_123, Image: samplePNG}}},

		{"utf8", req(30, &codec.TypeTextParams{Text: "héllo wörld · 日本語 · 😀🚀"})},
		{"array25", req(31, &codec.BoundsParams{Nodes: seq25()})},
	}
	// One error response per code of the table.
	for i, c := range codec.Codes() {
		s = append(s, Sample{"response_error_" + string(c), &codec.Response{ID: uint64(40 + i), Method: codec.MethodTap,
			Error: codec.NewError(c, errorMessages[c])}})
	}
	s = append(s, Sample{"response_error_unknown_code", &codec.Response{ID: 60, Method: codec.MethodTap,
		Error: &codec.Error{Code: "quota_exceeded", Message: "a code from a later version", Retryable: true}}})
	// Integers at every head-length boundary.
	for _, id := range []uint64{0, 23, 24, 255, 256, 65535, 65536, 4294967295, 4294967296, 1 << 63, math.MaxUint64} {
		s = append(s, Sample{"int_request_id_" + utoa(id), &codec.Request{ID: id, Method: codec.MethodDeviceInfo, Params: &codec.DeviceInfoParams{}}})
	}
	s = append(s,
		Sample{"int_tap_small_negative", req(70, &codec.TapParams{X: -1, Y: -24})},
		Sample{"int_tap_one_byte_negative", req(71, &codec.TapParams{X: -25, Y: -256})},
		Sample{"int_swipe_wide", req(72, &codec.SwipeParams{X1: -257, Y1: -65536, X2: -65537, Y2: 2147483647, DurationMS: 4294967295, RestMS: some[uint32](0)})},
		Sample{"int_tap_extremes", req(73, &codec.TapParams{X: -2147483648, Y: 2147483647})},
		Sample{"int_scroll_ranges", resp(74, codec.MethodSnapshot, intScrollSnapshot())},
		Sample{"int_capabilities_high", &codec.Hello{Versions: []uint32{1, 4294967295}, MaxFrame: 4294967295, Capabilities: 0x80000000 | codec.CapTree, Agent: "x"}},
		Sample{"int_flags_high", resp(75, codec.MethodSnapshot, highFlagSnapshot())},
	)
	return s
}

var errorMessages = map[codec.Code]string{
	codec.CodeBadRequest:        "params: key 0 (x) is required",
	codec.CodeUnknownMethod:     "method 99 is not known to this agent",
	codec.CodeMissingCapability: "tap needs the input capability, which the agent did not advertise",
	codec.CodeFrameTooLarge:     "response to request 6 is 20971520 bytes, over the frame limit of 16777216",
	codec.CodeDeadlineExceeded:  "the deadline of 2500 ms passed before the answer",
	codec.CodeBusy:              "another snapshot is in progress",
	codec.CodeNotFound:          "node 42 is gone",
	codec.CodeNoCommonVersion:   "host speaks [1], agent speaks [2]: redeploy the agent",
	codec.CodeBadToken:          "the per-launch token is missing",
	codec.CodeDisconnected:      "the session closed as silent; reconnect through adb forward",
	codec.CodeInternal:          "accessibility service not bound",
}

func utoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; v > 0; v /= 10 {
		i--
		b[i] = byte('0' + v%10)
	}
	return string(b[i:])
}

func seq25() []uint32 {
	out := make([]uint32, 25)
	for i := range out {
		out[i] = uint32(i + 1)
	}
	return out
}

// samplePNG is a real 4x2 PNG.
var samplePNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xf0, 0xca, 0xea,
	0x34, 0x00, 0x00, 0x00, 0x13, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xc0,
	0x00, 0xc6, 0x40, 0xc0, 0x80, 0xcc, 0x01, 0x00, 0x89, 0x90, 0x0b, 0xf5, 0xb3, 0xfc, 0x4f, 0x1f,
	0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

func b(l, t, r, bo int32) codec.Bounds { return codec.Bounds{Left: l, Top: t, Right: r, Bottom: bo} }

func sampleSnapshot() *codec.Snapshot {
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.TextView", "android.widget.Button", "com.example.shop", "android"},
		Windows: []codec.Window{{
			ID: 3, Type: 1, Layer: 0, Bounds: b(0, 0, 1080, 2400), Flags: schema.WindowActive | schema.WindowFocused,
			Title: some("Shop"), Package: some[uint32](3),
			Root: &codec.Node{ID: 1, Class: 0, Bounds: b(0, 0, 1080, 2400), Flags: schema.NodeVisible | schema.NodeEnabled,
				ResPkg: some[uint32](4), ResName: "content",
				Children: []codec.Node{
					{ID: 2, Class: 1, Bounds: b(42, 120, 1038, 210), Flags: schema.NodeVisible | schema.NodeEnabled, Text: "Welcome back", ResPkg: some[uint32](3), ResName: "title"},
					{ID: 3, Class: 2, Bounds: b(42, 2200, 1038, 2340), Flags: schema.NodeVisible | schema.NodeEnabled | schema.NodeClickable | schema.NodeFocusable,
						Text: "Check out", Desc: "Check out your cart", Hint: "double-tap to pay", State: "3 items"},
				}},
		}},
		Truncated: 0, Seq: 17,
		Display: some(codec.Display{Width: 1080, Height: 2400, DensityDPI: 420}),
	}
}

func leaf(id uint32) *codec.Node {
	return &codec.Node{ID: id, Class: 0, Bounds: b(0, 0, 10, 10), Flags: schema.NodeVisible}
}

func windowMetaSnapshot() *codec.Snapshot {
	return &codec.Snapshot{
		Strings: []string{"android.view.View", "com.android.systemui", "com.google.android.permissioncontroller"},
		Windows: []codec.Window{
			{ID: 1, Type: 1, Layer: 0, Bounds: b(0, 0, 1080, 2400), Flags: schema.WindowActive, Root: leaf(1), EmitsEvents: some(true)},
			{ID: 2, Type: 1, Layer: 1, Bounds: b(0, 0, 1080, 2400), Flags: 0, Root: leaf(2), EmitsEvents: some(false)},
			{ID: 3, Type: 3, Layer: 2, Bounds: b(0, 0, 1080, 63), Flags: 0, Owner: some[uint32](1)},
			{ID: 4, Type: 3, Layer: 3, Bounds: b(90, 800, 990, 1600), Flags: schema.WindowFocused, Title: some("Allow access?"),
				Package: some[uint32](2), Owner: some[uint32](2), Modal: true, EmitsEvents: some(true), Root: leaf(3)},
			{ID: 5, Type: 2, Layer: -1, Bounds: b(0, 1500, 1080, 2400), Flags: schema.WindowTransformed},
		},
		Seq: 3,
	}
}

func scrollSnapshot() *codec.Snapshot {
	list := func(id uint32, s *codec.Scroll) codec.Node {
		return codec.Node{ID: id, Class: 1, Bounds: b(0, 200, 1080, 2200), Flags: schema.NodeScrollable | schema.NodeVisible, Scroll: s}
	}
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "androidx.recyclerview.widget.RecyclerView"},
		Windows: []codec.Window{{ID: 1, Type: 1, Bounds: b(0, 0, 1080, 2400), Flags: schema.WindowActive,
			Root: &codec.Node{ID: 1, Class: 0, Bounds: b(0, 0, 1080, 2400), Flags: schema.NodeVisible, Children: []codec.Node{
				list(2, &codec.Scroll{Axis: schema.ScrollVertical, Flags: schema.ScrollForward}),
				list(3, &codec.Scroll{Axis: schema.ScrollVertical, Flags: schema.ScrollBack | schema.ScrollForward,
					Range: some(codec.ScrollRange{Unit: schema.RangeItems, Lo: 0, Hi: 199}), Position: some(codec.ScrollPosition{Lo: 0, Hi: 15})}),
				list(4, &codec.Scroll{Axis: schema.ScrollHorizontal, Flags: schema.ScrollBack,
					Range: some(codec.ScrollRange{Unit: schema.RangePercent, Lo: 0, Hi: 100}), Position: some(codec.ScrollPosition{Lo: 37, Hi: 37})}),
				list(5, &codec.Scroll{Axis: 7, Flags: 1 << 9}),
			}}}},
		Seq: 9,
	}
}

// emptyTextsSnapshot holds texts present but empty (key and "" on the
// wire) beside absent ones (no key): node 2 has every text present and
// empty (whatever texts the schema has), node 3 an empty text and state
// among others, node 4 none.
func emptyTextsSnapshot() *codec.Snapshot {
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.EditText"},
		Windows: []codec.Window{{ID: 1, Type: 1, Bounds: b(0, 0, 1080, 2400), Flags: schema.WindowActive,
			Root: &codec.Node{ID: 1, Bounds: b(0, 0, 1080, 2400), Flags: schema.NodeVisible, Children: []codec.Node{
				{ID: 2, Class: 1, Bounds: b(0, 0, 1080, 120), Flags: schema.NodeEditable | schema.NodeVisible,
					Empty: codec.AllNodeTexts},
				{ID: 3, Class: 1, Bounds: b(0, 120, 1080, 240), Flags: schema.NodeEditable | schema.NodeVisible,
					Empty: codec.NodeText | codec.NodeState, Desc: "Search", Hint: "Type here"},
				{ID: 4, Class: 1, Bounds: b(0, 240, 1080, 360), Flags: schema.NodeVisible},
			}}}},
		Seq: 3,
	}
}

func intScrollSnapshot() *codec.Snapshot {
	s := scrollSnapshot()
	kids := s.Windows[0].Root.Children
	kids[0].Scroll = &codec.Scroll{Axis: 1, Range: some(codec.ScrollRange{Unit: 0, Lo: -4294967296, Hi: -4294967297}), Position: some(codec.ScrollPosition{Lo: -9223372036854775808, Hi: 9223372036854775807})}
	kids[1].Scroll = &codec.Scroll{Axis: 1, Range: some(codec.ScrollRange{Unit: 1, Lo: math.MinInt64, Hi: math.MaxInt64}), Position: some(codec.ScrollPosition{Lo: 4294967296, Hi: 4294967295})}
	return s
}

func highFlagSnapshot() *codec.Snapshot {
	s := &codec.Snapshot{Strings: []string{"v"}, Truncated: 0x80000007, Seq: math.MaxUint64,
		Windows: []codec.Window{{ID: 4294967295, Type: 4294967295, Layer: -2147483648, Bounds: b(0, 0, 1, 1), Flags: 0x80000000 | schema.WindowActive,
			Root: &codec.Node{ID: 4294967295, Class: 0, Bounds: b(-1, -1, 0, 0), Flags: 0xffffffff}}}}
	return s
}

// deepSnapshot is one window whose root heads a chain of depth levels.
func deepSnapshot(depth int) *codec.Snapshot {
	nodes := make([]codec.Node, depth)
	for i := range nodes {
		nodes[i] = codec.Node{ID: uint32(i + 1), Class: 0, Bounds: b(0, 0, 1080, 2400), Flags: schema.NodeVisible}
	}
	for i := depth - 2; i >= 0; i-- {
		nodes[i].Children = nodes[i+1 : i+2]
	}
	return &codec.Snapshot{Strings: []string{"android.widget.FrameLayout"},
		Windows: []codec.Window{{ID: 1, Type: 1, Bounds: b(0, 0, 1080, 2400), Flags: schema.WindowActive, Root: &nodes[0]}}, Seq: 1}
}

// DeepSnapshot returns a snapshot whose single window holds a chain of
// depth nested nodes (MaxNodeDepth for the golden sample).
func DeepSnapshot(depth int) *codec.Snapshot { return deepSnapshot(depth) }

// Names lists the sample names in order.
func Names() []string {
	var out []string
	for _, s := range Samples() {
		out = append(out, s.Name)
	}
	return out
}
