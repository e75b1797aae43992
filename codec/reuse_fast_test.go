package codec

import (
	"bytes"
	"reflect"
	"testing"
)

// TestReuseRequestCanonicalAsFresh: the Decoder's copy of the canonical
// request reader (reuse.requestCanonical) takes what Decode's
// (decodeRequestCanonical) takes, and reads it alike: every golden
// payload, and each of them with every byte set in turn to values that
// change a head, a key or a length.
func TestReuseRequestCanonicalAsFresh(t *testing.T) {
	r := &reuse{max: DefaultMaxRetained}
	fast := 0
	check := func(b []byte) {
		t.Helper()
		if len(b) < 8 || b[0]|1 != 0xa5 {
			return
		}
		want := decodeRequestCanonical(b)
		r.u32s = r.u32s[:0]
		got := r.requestCanonical(b)
		if (got == nil) != (want == nil) {
			t.Fatalf("% x: the Decoder's reader took it: %v, Decode's: %v", b, got != nil, want != nil)
		}
		if want != nil {
			fast++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("% x: the Decoder's reader read %+v (%+v), Decode's %+v (%+v)", b, got, got.Params, want, want.Params)
			}
		}
	}
	for _, b := range GoldenPayloads(t) {
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
