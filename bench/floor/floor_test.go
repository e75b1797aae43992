package floor

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	fxcbor "github.com/fxamacker/cbor/v2"
	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

func encodings(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	add := func(name string, m codec.Message) {
		b, err := codec.Marshal(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	for _, s := range golden.Samples() {
		add(s.Name, s.Msg)
	}
	for _, s := range support.Seeded() {
		add(s.Name, s.Msg)
	}
	return out
}

func TestWalkAcceptsEveryMessage(t *testing.T) {
	for name, b := range encodings(t) {
		if err := Walk(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, cut := range []int{0, len(b) / 2, len(b) - 1} {
			if err := Walk(b[:cut]); !errors.Is(err, ErrShort) {
				t.Errorf("%s cut to %d of %d bytes: %v, want ErrShort", name, cut, len(b), err)
			}
		}
	}
}

// nested returns d arrays of one element each around a 0.
func nested(d int) []byte { return append(bytes.Repeat([]byte{0x81}, d), 0x00) }

func TestWalkDepth(t *testing.T) {
	for _, d := range []int{0, inlineDepth - 1, inlineDepth, inlineDepth + 1, MaxDepth} {
		if err := Walk(nested(d)); err != nil {
			t.Errorf("depth %d: %v", d, err)
		}
	}
	if err := Walk(nested(MaxDepth + 1)); !errors.Is(err, ErrDepth) {
		t.Errorf("depth %d: %v, want ErrDepth", MaxDepth+1, err)
	}
	// Empty containers open no level.
	if err := Walk(append(bytes.Repeat([]byte{0x81}, MaxDepth), 0x80)); err != nil {
		t.Errorf("an empty array at depth %d: %v", MaxDepth, err)
	}
}

func TestWalkRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"trailing", []byte{0x00, 0x00}, ErrTrailing},
		{"indefinite array", []byte{0x9f, 0xff}, ErrIndefinite},
		{"indefinite text", []byte{0x7f, 0xff}, ErrIndefinite},
		{"break alone", []byte{0xff}, ErrIndefinite},
		{"tag", []byte{0xc0, 0x00}, ErrTag},
		{"reserved 28", []byte{0x1c}, ErrReserved},
		{"reserved 30 in a map", []byte{0xa1, 0x00, 0x5e}, ErrReserved},
		{"simple 31 in two bytes", []byte{0xf8, 0x1f}, ErrSimple},
		{"invalid UTF-8", []byte{0x62, 0xff, 0xfe}, ErrUTF8},
		// Texts that end 8 or more bytes in take the in-place word check.
		{"invalid UTF-8 after a word", []byte{0x82, 0x67, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 0x62, 0xc3, 0x28}, ErrUTF8},
		{"invalid UTF-8 in a text of 16", append([]byte{0x70}, []byte("abcdefghijklmno\xff")...), ErrUTF8},
		{"surrogate", []byte{0x63, 0xed, 0xa0, 0x80}, ErrUTF8},
		{"text past the end", []byte{0x63, 'a', 'b'}, ErrShort},
		{"bytes past the end", []byte{0x5a, 0x00, 0x01, 0x00, 0x00, 0x00}, ErrShort},
		{"8-byte length", []byte{0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ErrShort},
		{"array claims more items than bytes", []byte{0x9a, 0xff, 0xff, 0xff, 0xff, 0x00}, ErrShort},
		{"map claims more pairs than bytes", []byte{0xa2, 0x00, 0x00, 0x00}, ErrShort},
		{"head cut", []byte{0x19, 0x01}, ErrShort},
	} {
		if err := Walk(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s (% x): %v, want %v", c.name, c.in, err, c.want)
		}
	}
	// The limits of a simple value in two bytes and of a length.
	for _, in := range [][]byte{
		{0x82, 0x67, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 0x62, 0xc3, 0xa9}, // é after a word
		append([]byte{0x70}, []byte("abcdefghijklmnop")...),
		append([]byte{0x71}, []byte("abcdefghijklmnopq")...),
		{0xf8, 0x20}, {0xf5}, {0xfb, 0, 0, 0, 0, 0, 0, 0, 0}, {0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x42, 1, 2}, {0x60}} {
		if err := Walk(in); err != nil {
			t.Errorf("% x: %v", in, err)
		}
	}
}

// reference is fxamacker's decoder with the floor's rules (its
// Wellformed does not check UTF-8, so the fuzz test decodes into any).
var reference = func() fxcbor.DecMode {
	dm, err := fxcbor.DecOptions{
		MaxNestedLevels:  MaxDepth,
		IndefLength:      fxcbor.IndefLengthForbidden,
		TagsMd:           fxcbor.TagsForbidden,
		UTF8:             fxcbor.UTF8RejectInvalid,
		MaxArrayElements: 1<<31 - 1,
		MaxMapPairs:      1<<31 - 1,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}()

// FuzzWalk: Walk accepts exactly what fxamacker decodes under the same
// rules. Not compared: inputs Walk refuses for depth (the two count
// levels differently at the limit) and maps whose keys a Go map cannot
// hold (fxamacker refuses an array as a key of map[any]any).
func FuzzWalk(f *testing.F) {
	for _, b := range encodings(f) {
		if len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte{0x9f, 0xff})
	f.Add([]byte{0xf8, 0x1f})
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Walk(b)
		if errors.Is(err, ErrDepth) {
			return
		}
		var v any
		ref := reference.Unmarshal(b, &v)
		if ref != nil && strings.Contains(ref.Error(), "map key") {
			return
		}
		if (err == nil) != (ref == nil) {
			t.Fatalf("% x: Walk %v, fxamacker %v", b, err, ref)
		}
	})
}
