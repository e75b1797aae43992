//go:build !race && !wirebench_poison

// Left out of poison builds too: there a TreeDecoder allocates anew each
// call.

package codec_test

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestTreeDecoderAllocatesNothing: in steady state a TreeDecoder reads a
// snapshot response, in the canonical layout or through its Decoder, and
// a tree event between them, without an allocation.
func TestTreeDecoderAllocatesNothing(t *testing.T) {
	canonical := mustMarshal(t, &codec.Response{ID: 5, Method: codec.MethodSnapshot, Result: appSnapshot(500)})
	ev, _ := golden.Lookup("event_content_changed")
	event := mustMarshal(t, ev.Msg)
	// The snapshot's keys 2 and 3 swapped: the general path.
	other := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03,
		0xa4, 0x00, 0x81, 0x61, 'V', 0x01, 0x81,
		0xa6, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0x07,
		0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x04, 0x61, 'x',
		0x03, 0x05, 0x02, 0x00}
	td := codec.NewTreeDecoder(0)
	for _, b := range [][]byte{canonical, other} {
		codec.CheckAllocsAtMost(t, "a TreeDecoder", 0, func() {
			if _, err := td.DecodeTree(b); err != nil {
				t.Fatal(err)
			}
		})
	}
	_, _ = td.Decode(event)
	codec.CheckAllocsAtMost(t, "a TreeDecoder, all in turn", 0, func() {
		for _, b := range [][]byte{canonical, event, other} {
			if _, err := td.Decode(b); err != nil {
				t.Fatal(err)
			}
		}
	})
}
