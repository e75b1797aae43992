//go:build !race && !wirebench_poison

// Left out of poison builds too: there a Decoder allocates anew each call.

package codec_test

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestDecoderAllocatesNothing: in steady state a Decoder reads
// snapshots, the other responses and tree events without an allocation, each message over
// and over and all of them in turn (a request between them too, which
// costs its own message only).
func TestDecoderAllocatesNothing(t *testing.T) {
	var in [][]byte
	for _, name := range []string{"event_content_changed", "response_bounds", "response_screenshot", "response_resync", "response_device_info", "event_window_changed", "response_snapshot", "response_snapshot_scroll", "response_snapshot_deep"} {
		s, ok := golden.Lookup(name)
		if !ok {
			t.Fatalf("no golden %s", name)
		}
		in = append(in, mustMarshal(t, s.Msg))
	}
	in = append(in, mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(3000, true)}))
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
	tap, _ := golden.Lookup("request_tap")
	tapB := mustMarshal(t, tap.Msg)
	if got := testing.AllocsPerRun(10, func() {
		for _, b := range in {
			decode(b)
		}
		decode(tapB)
	}); got != 1 {
		t.Errorf("all in turn and a tap: %v allocations a round, want 1 (the tap's)", got)
	}
}
