package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// TestDecoderReadsMutatedRequestsAsDecode: Decode and a Decoder read
// the canonical request reader's inputs alike, with the same reader
// (decodeRequestCanonical, without and with the Decoder's reuse): every
// golden request that starts as the reader wants (requestHead), and each
// of them with every byte set in turn to values that change a head, a
// key or a length, cut short by a byte or one byte too long. The reader
// takes the same inputs with a reuse as without, and Decode and
// Decoder.Decode return equal messages or equal errors, on the fast path
// or off it (TestDecoderReadsRequestsAsDecode reads only whole requests).
func TestDecoderReadsMutatedRequestsAsDecode(t *testing.T) {
	dec := NewDecoder(0)
	fast := 0
	check := func(b []byte) {
		t.Helper()
		if requestHead(b) {
			fresh := decodeRequestCanonical(b, nil)
			dec.r.u32s = dec.r.u32s[:0]
			kept := decodeRequestCanonical(b, &dec.r)
			if (kept == nil) != (fresh == nil) {
				t.Fatalf("% x: the reader with a reuse took it: %v, without: %v", b, kept != nil, fresh != nil)
			}
			if fresh != nil {
				fast++
			}
		}
		want, wantErr := Decode(b)
		got, err := dec.Decode(b)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("% x: Decoder %v, Decode %v", b, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("% x: Decoder read %+v, Decode %+v", b, got, want)
		}
	}
	for _, b := range GoldenPayloads(t) {
		if m, err := Decode(b); err != nil || !requestHead(b) {
			continue
		} else if _, ok := m.(*Request); !ok {
			continue
		}
		check(b)
		for i := range b {
			for _, v := range []byte{0x00, 0x01, 0x04, 0x05, 0x17, 0x18, 0x19, 0x1a, 0x20, 0x37, 0x38, 0x80, 0x81, 0x97, 0xa0, 0xa1, 0xa4, 0xa5, 0xf4, 0xf5, 0xf6, 0xff, b[i] + 1, b[i] - 1} {
				m := bytes.Clone(b)
				m[i] = v
				check(m)
			}
		}
		check(b[:len(b)-1])
		check(append(bytes.Clone(b), 0))
	}
	if fast < 500 {
		t.Errorf("only %d inputs took the fast path", fast)
	}
}
