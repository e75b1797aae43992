//go:build !race && !wirebench_poison

// Left out of poison builds too: there a Decoder allocates anew each call.

package codec_test

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestDecoderAllocatesNothing: in steady state a Decoder reads
// snapshots, the other responses, tree events and requests of every
// method (in the canonical layout and in another) without an allocation,
// each message over and over and all of them in turn.
func TestDecoderAllocatesNothing(t *testing.T) {
	var in [][]byte
	for _, name := range []string{"event_content_changed", "response_bounds", "response_screenshot", "response_resync", "response_device_info", "event_window_changed", "response_snapshot", "response_snapshot_scroll", "response_snapshot_deep",
		"request_tap", "request_snapshot", "request_snapshot_bounds", "request_snapshot_evict", "request_snapshot_evict_windows", "request_bounds", "request_long_press", "request_swipe", "request_swipe_rest",
		"request_key", "request_key_meta", "request_type_text", "request_set_text", "request_screenshot", "request_frames_start", "request_frames_stop", "request_resync", "request_device_info", "request_deadline", "request_unknown_method", "request_screenshot_jpeg"} {
		s, ok := golden.Lookup(name)
		if !ok {
			t.Fatalf("no golden %s", name)
		}
		in = append(in, mustMarshal(t, s.Msg))
	}
	in = append(in, mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(3000, true)}))
	// Requests the general decoder reads: keys out of order, an unknown
	// method, a long evict list, repeated params.
	in = append(in, requestsOffTheFastPath(t)...)
	dec := codec.NewDecoder(0)
	decode := func(b []byte) {
		if _, err := dec.Decode(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range in {
		decode(b)
		decode(b)
		if got := testing.AllocsPerRun(20, func() { decode(b) }); got != 0 {
			t.Errorf("% x...: %v allocations a message", b[:min(len(b), 12)], got)
		}
	}
	if got := testing.AllocsPerRun(10, func() {
		for _, b := range in {
			decode(b)
		}
	}); got != 0 {
		t.Errorf("all in turn: %v allocations a round", got)
	}
}
