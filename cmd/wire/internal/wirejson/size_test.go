package wirejson

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestPayloadLen: PayloadLen is the length of codec.Append's encoding for
// every golden sample and every extra of the golden JSON file.
func TestPayloadLen(t *testing.T) {
	for _, s := range append(golden.Samples(), goldenExtras()...) {
		b, err := codec.Append(nil, s.Msg)
		if err != nil {
			continue // not encodable (unknown kind, invalid UTF-8)
		}
		n, err := PayloadLen(s.Msg)
		if err != nil || n != len(b) {
			t.Errorf("%s: PayloadLen %d, %v; encoded %d bytes", s.Name, n, err, len(b))
		}
		if m, err := codec.Decode(b); err == nil {
			if n, _ := PayloadLen(m); n != len(b) {
				t.Errorf("%s decoded: PayloadLen %d; encoded %d bytes", s.Name, n, len(b))
			}
		}
	}
}
