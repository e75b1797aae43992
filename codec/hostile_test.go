package codec_test

import (
	"encoding/binary"
	"flag"
	"path/filepath"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/testio"
)

// The hostile frames of testdata/hostile: heads that claim more items
// than the frame holds, where a decoder that reserves what a head claims
// would allocate far more than the frame's size. Each is a whole frame
// (the length header and the payload); the codec's, package cbor's and
// zerocopy's tests decode them and hold every decoder to its bound
// (hostile_norace_test.go). go test ./codec -run TestHostileFiles
// -hostile.write rewrites them after a change of a shape.

var writeHostile = flag.Bool("hostile.write", false, "rewrite testdata/hostile from the shapes")

// hostileLen is the payload size of the snapshot shapes: large enough
// that 1 MiB of slack is small beside 16 bytes a byte.
const hostileLen = 512 << 10

// valueLen is the payload size of the generic-value shapes.
const valueLen = 32 << 10

// minNode is a node of the least bytes: keys 0 to 3 with one-byte values.
var minNode = []byte{0xa4, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0}

// parentHead is a node with children: minNode with a fifth pair, key 8,
// whose array head follows.
var parentHead = []byte{0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0, 8}

// snapshotPrefix is a snapshot response up to its first window's root:
// the envelope, a string table of one string, a windows array of
// windows (its head as given) and the first window's keys 0 to 4.
func snapshotPrefix(windows []byte) []byte {
	b := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa4, 0x00, 0x81, 0x61, 'V', 0x01}
	b = append(b, windows...)
	return append(b, 0xa6, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0x07)
}

// head appends an array (major 4) or map (5) head claiming n with an
// argument of width bytes (1, 2 or 4: 0x98, 0x99, 0x9a heads).
func head(b []byte, major byte, n, width int) []byte {
	switch width {
	case 1:
		return append(b, major<<5|24, byte(n))
	case 2:
		return binary.BigEndian.AppendUint16(append(b, major<<5|25), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, major<<5|26), uint32(n))
}

// pad fills b to size with byte c.
func pad(b []byte, size int, c byte) []byte {
	for len(b) < size {
		b = append(b, c)
	}
	return b
}

// nestedKids is a chain of MaxNodeDepth nodes, each of whose children
// arrays claims as many nodes as the bytes left after its head could
// hold, with heads of width bytes.
func nestedKids(width int) []byte {
	b := snapshotPrefix([]byte{0x81})
	for range schema.MaxNodeDepth {
		b = append(b, parentHead...)
		left := hostileLen - len(b) - 1 - width
		n := left / schema.MinNodeLen
		if width == 2 {
			n = min(n, 0xffff)
		}
		b = head(b, 4, n, width)
	}
	return pad(b, hostileLen, 0)
}

// hostileShapes builds every payload of testdata/hostile by name.
func hostileShapes() map[string][]byte {
	shapes := map[string][]byte{
		"nested_children":       nestedKids(4),
		"nested_children_head2": nestedKids(2),
	}

	// Many sibling children arrays: the root has siblings nodes, and
	// each sibling's children array claims the rest of the frame.
	{
		const siblings = 1000
		b := snapshotPrefix([]byte{0x81})
		b = append(b, parentHead...)
		b = head(b, 4, siblings, 2)
		for range siblings {
			b = append(b, parentHead...)
			b = head(b, 4, (hostileLen-len(b)-5)/schema.MinNodeLen, 4)
		}
		shapes["sibling_children"] = pad(b, hostileLen, 0)
	}

	// A claim at the last byte: a root whose children are all there,
	// nodes of the least bytes (a few with a two-byte id, so that they
	// fill the frame exactly), the last of which ends in a children head
	// claiming 23 nodes with no byte after it.
	{
		b := snapshotPrefix([]byte{0x81})
		b = append(b, parentHead...)
		room := hostileLen - len(b) - 5 - len(parentHead) - 1
		wide := room % schema.MinNodeLen // nodes of 14 bytes
		kids := (room-wide*(schema.MinNodeLen+1))/schema.MinNodeLen + wide
		b = head(b, 4, kids+1, 4)
		for i := range kids {
			if i < wide {
				b = append(b, 0xa4, 0, 0x18, 0x18, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0)
			} else {
				b = append(b, minNode...)
			}
		}
		shapes["last_byte_claim"] = append(append(b, parentHead...), 0x97)
	}

	// Honest up to one late lie, the biggest honest part there can be: a
	// windows array of two, the first window's root with as many nodes
	// of the least bytes as the frame holds (a few of 14 bytes, so that
	// they fill it exactly), all there; the second window's root, in the
	// last bytes, ends in a children head claiming 23 nodes with no byte
	// after it. Decoded as it comes, the honest part costs what an
	// honest frame of its nodes costs, more than 16 bytes a byte; the
	// decoder walks the frame before that and refuses it.
	{
		b := snapshotPrefix([]byte{0x82})
		b = append(b, parentHead...)
		tail := []byte{0xa6, 0x00, 0x02, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00, 0x07}
		tail = append(append(tail, parentHead...), 0x97)
		room := hostileLen - len(b) - 5 - len(tail)
		wide := room % schema.MinNodeLen // nodes of 14 bytes
		kids := (room-wide*(schema.MinNodeLen+1))/schema.MinNodeLen + wide
		b = head(b, 4, kids, 4)
		for i := range kids {
			if i < wide {
				b = append(b, 0xa4, 0, 0x18, 0x18, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0)
			} else {
				b = append(b, minNode...)
			}
		}
		shapes["honest_then_late_lie"] = append(b, tail...)
	}

	// Claims inside skipped unknown fields: the root carries key 20, an
	// array nested as deep as the bytes allow, each level claiming
	// every byte left; and key 21, maps likewise.
	for _, major := range []byte{4, 5} {
		b := snapshotPrefix([]byte{0x81})
		b = append(b, 0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0, 20+major-4)
		for len(b) < hostileLen-16 {
			left := hostileLen - len(b) - 5
			if major == 5 {
				b = append(head(b, 5, left/2, 4), 0)
			} else {
				b = head(b, 4, left, 4)
			}
		}
		name := map[byte]string{4: "unknown_field_arrays", 5: "unknown_field_maps"}[major]
		shapes[name] = pad(b, hostileLen, 0)
	}

	// The string table claims a string per byte left; the windows array
	// a window per MinWindowLen bytes left.
	{
		b := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa4, 0x00}
		b = head(b, 4, hostileLen-len(b)-5, 4)
		shapes["strings_claim"] = pad(append(b, 0x61, 'V'), hostileLen, 0)
		w := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, 0xa4, 0x00, 0x81, 0x61, 'V', 0x01}
		w = head(w, 4, (hostileLen-len(w)-5)/schema.MinWindowLen, 4)
		shapes["windows_claim"] = pad(w, hostileLen, 0)
	}

	// Generic values: arrays and maps nested at every depth, each
	// claiming every byte left (a pair per two bytes for a map), and a
	// map whose values are such arrays.
	{
		a := []byte{}
		for len(a) < valueLen-16 {
			a = head(a, 4, valueLen-len(a)-5, 4)
		}
		shapes["value_nested_arrays"] = pad(a, valueLen, 0)
		m := []byte{}
		for len(m) < valueLen-16 {
			m = append(head(m, 5, (valueLen-len(m)-5)/2, 4), 0)
		}
		shapes["value_nested_maps"] = pad(m, valueLen, 0)
		s := []byte{}
		for i := 0; len(s) < valueLen-16; i++ {
			s = append(head(s, 5, (valueLen-len(s)-5)/2, 4), byte(i%24))
			s = head(s, 4, valueLen-len(s)-5, 4)
		}
		shapes["value_maps_of_arrays"] = pad(s, valueLen, 0)
	}
	return shapes
}

// denseSnapshot is a valid snapshot of a root and kids nodes of the least
// bytes (each with a scroll, when scrolls).
func denseSnapshot(kids int, scrolls bool) *codec.Snapshot {
	root := &codec.Node{ID: 1, Children: make([]codec.Node, kids)}
	for i := range root.Children {
		if scrolls {
			root.Children[i].Scroll = &codec.Scroll{}
		}
	}
	return &codec.Snapshot{Strings: []string{"V"}, Windows: []codec.Window{{ID: 1, Root: root}}}
}

// hostileFrame is payload p as a frame.
func hostileFrame(p []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

// TestHostileFiles: testdata/hostile holds the shapes, byte for byte.
func TestHostileFiles(t *testing.T) {
	shapes := hostileShapes()
	for name, p := range shapes {
		if name[:5] != "value" && len(p) != hostileLen {
			t.Errorf("%s: %d bytes, want %d", name, len(p), hostileLen)
		}
		testio.Fixture(t, filepath.Join("testdata", "hostile", name+".bin"), hostileFrame(p), *writeHostile,
			"go test ./codec -run TestHostileFiles -hostile.write writes it")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "hostile", "*.bin"))
	if len(files) != len(shapes) {
		t.Errorf("%d files in testdata/hostile, %d shapes", len(files), len(shapes))
	}
}
