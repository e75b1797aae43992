//go:build !race

// Allocation bounds, counted without the race detector only: its runtime
// allocates for itself.

package cbor

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/wirebench/wirebench/internal/allocbound"
)

// TestHostileValueAllocation: DecodeValue of no hostile frame's payload
// (../testdata/hostile: heads claiming more than the frame holds,
// nested at every depth, in arrays and maps) allocates more than
// allocbound.Hostile of its size.
func TestHostileValueAllocation(t *testing.T) {
	errs := map[string]error{}
	for name, got := range allocbound.CheckHostile(t, "../testdata/hostile", func(name string, p []byte) {
		_, errs[name] = DecodeValue(p)
	}) {
		if errs[name] == nil {
			t.Errorf("%s: decoded", name)
		}
		t.Logf("%-24s %d bytes: %v", name, got, errs[name])
	}
}

// TestValueSize: ValueSize is the size of a Value.
func TestValueSize(t *testing.T) {
	if s := unsafe.Sizeof(Value{}); s != ValueSize {
		t.Fatalf("a Value takes %d bytes, ValueSize says %d", s, ValueSize)
	}
}

// TestHonestValueAllocation: the densest items there are (one byte
// each) in definite and indefinite arrays and maps, nested and not, stay
// within k·n + C.
func TestHonestValueAllocation(t *testing.T) {
	const items = 100_000
	ones := bytes.Repeat([]byte{0x01}, items)
	nested := []byte{}
	for range 1000 {
		nested = append(nested, 0x82, 0x01) // [1, [1, [1, ...]]]
	}
	nested = append(nested, 0x01)
	for name, b := range map[string][]byte{
		"array":            append(AppendArrayHead(nil, items), ones...),
		"indefinite array": append(append([]byte{0x9f}, ones...), 0xff),
		"map":              append(AppendMapHead(nil, items/2), ones...),
		"indefinite map":   append(append([]byte{0xbf}, ones...), 0xff),
		"nested":           nested,
		"texts":            append(AppendArrayHead(nil, items/2), bytes.Repeat([]byte{0x61, 'a'}, items/2)...),
	} {
		allocbound.Fresh()
		got := allocbound.Check(t, name, len(b), valueK*uint64(len(b))+valueC, func() {
			if _, err := DecodeValue(b); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%-16s %6.2f bytes a byte", name, float64(got)/float64(len(b)))
	}
}
