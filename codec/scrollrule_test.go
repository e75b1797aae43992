package codec_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/zerocopy"
	"github.com/wirebench/wirebench/golden"
)

// TestScrollPositionNeedsRange: the schema's "position only with range"
// holds on every way in, as it does for the encoder, so that whatever
// decodes encodes again (FuzzDecodeJSON found a frame that decoded and
// then would not encode). The canonical scroll, read by the fast paths,
// and the same scroll with its keys out of order, read by the general
// one, both fail, naming the field; the valid scroll still decodes.
func TestScrollPositionNeedsRange(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot_scroll")
	b := mustMarshal(t, s.Msg)
	// Node 4's scroll: {0: 2, 1: 1, 2: [1, 0, 100], 3: [37, 37]}.
	valid := []byte{0xa4, 0x00, 0x02, 0x01, 0x01, 0x02, 0x83, 0x01, 0x00, 0x18, 0x64, 0x03, 0x82, 0x18, 0x25, 0x18, 0x25}
	if bytes.Count(b, valid) != 1 {
		t.Fatal("node 4's scroll not found in the golden frame")
	}
	for _, c := range []struct {
		name   string
		scroll []byte
	}{
		{"canonical", []byte{0xa3, 0x00, 0x02, 0x01, 0x01, 0x03, 0x82, 0x18, 0x25, 0x18, 0x25}},
		{"keys out of order", []byte{0xa3, 0x03, 0x82, 0x18, 0x25, 0x18, 0x25, 0x00, 0x02, 0x01, 0x01}},
		{"null range", []byte{0xa4, 0x00, 0x02, 0x01, 0x01, 0x02, 0xf6, 0x03, 0x82, 0x18, 0x25, 0x18, 0x25}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := bytes.Replace(b, valid, c.scroll, 1)
			check := func(way string, err error) {
				t.Helper()
				var ce *cbor.Error
				if !errors.Is(err, cbor.ErrInvalid) || !errors.As(err, &ce) {
					t.Errorf("%s: err %v, want an invalid value", way, err)
					return
				}
				if want := "response.result.windows[0].root.children[2].scroll.position"; ce.Path() != want {
					t.Errorf("%s: path %q, want %q", way, ce.Path(), want)
				}
			}
			_, err := codec.Decode(in)
			check("Decode", err)
			_, err = codec.DecodeTree(in)
			check("DecodeTree", err)
			var v zerocopy.Snapshot
			check("zerocopy Parse", v.Parse(in))
		})
	}
	if _, err := codec.Decode(b); err != nil {
		t.Fatalf("the valid frame: %v", err)
	}
}
