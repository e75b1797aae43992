package codec

import (
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// uintHead appends v as an unsigned integer with a head of w bytes (1, 2,
// 3, 5 or 9; wider than v needs is a non-minimal head, which the general
// decoder accepts).
func uintHead(dst []byte, v uint64, w int) []byte {
	switch w {
	case 1:
		return append(dst, byte(v))
	case 2:
		return append(dst, 0x18, byte(v))
	case 3:
		return append(dst, 0x19, byte(v>>8), byte(v))
	case 5:
		return append(dst, 0x1a, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	return append(dst, 0x1b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// widths are the head widths that hold v, minimal or not.
func widths(v uint64) []int {
	var ws []int
	for _, w := range []int{1, 2, 3, 5, 9} {
		if w == 1 && v < 24 || w == 2 && v < 1<<8 || w == 3 && v < 1<<16 || w == 5 && v < 1<<32 || w == 9 {
			ws = append(ws, w)
		}
	}
	return ws
}

// TestTreeEventEveryWidth: a tree event whose elements have heads of any
// width, minimal or not, and values at the edges of each width, reads as
// the array reader (treeEventArray, the old fast path) and the general
// decoder read it, through Decode and through a Decoder; so do its
// variants cut short, with a byte more, and with another type.
func TestTreeEventEveryWidth(t *testing.T) {
	dec := NewDecoder(0)
	vals := []uint64{0, 1, 23, 24, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1}
	check := func(b []byte) {
		t.Helper()
		s0, t0, f0, ok0 := treeEventArray(b)
		s1, t1, f1, ok1 := treeEventFields(b)
		if ok0 != ok1 || ok0 && (s0 != s1 || t0 != t1 || f0 != f1) {
			t.Fatalf("% x: treeEventFields %v %d %d %v, the array reader %v %d %d %v", b, ok1, s1, t1, f1, ok0, s0, t0, f0)
		}
		m, err := decodeBoth(t, b)
		if ok0 {
			want := &Event{Stream: StreamTree, Seq: s0, Type: t0, Body: &WindowChanged{Window: f0[0], Change: f0[1]}}
			if t0 == TypeContentChanged {
				want.Body = &ContentChanged{Window: f0[0], Node: f0[1], Change: f0[2]}
			}
			if err != nil || !reflect.DeepEqual(m, want) {
				t.Fatalf("% x: Decode %#v, %v; want %#v", b, m, err, want)
			}
		}
		if got, err := dec.Decode(b); (err == nil) != (m != nil) || err == nil && !reflect.DeepEqual(got, m) {
			t.Fatalf("% x: a Decoder reads %#v, %v; Decode %#v", b, got, err, m)
		}
	}
	var read int
	for _, typ := range []EventType{TypeWindowChanged, TypeContentChanged} {
		n := 2 + int(typ)
		for _, seq := range vals {
			for _, ws := range widths(seq) {
				for _, x := range vals {
					for _, wx := range widths(x) {
						// Each body field in turn takes x at width wx, the
						// others small values in a byte.
						for k := range n {
							b := []byte{0x84 + byte(n), byte(KindEvent), byte(StreamTree)}
							b = uintHead(b, seq, ws)
							b = append(b, byte(typ))
							for j := range n {
								if j == k {
									b = uintHead(b, x, wx)
								} else {
									b = append(b, byte(j+1))
								}
							}
							check(b)
							if _, _, _, ok := treeEventArray(b); ok {
								read++
							}
							check(b[:len(b)-1])
							check(append(b[:len(b):len(b)], 0))
						}
					}
				}
			}
		}
	}
	if read == 0 {
		t.Fatal("no event read")
	}
	// The kind, stream and type at other widths; another stream, type or
	// count.
	for _, b := range [][]byte{
		{0x87, 0x18, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x18, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x00, 0x02, 0x18, 0x01, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x00, 0x02, 0x19, 0x00, 0x01, 0x03, 0x11, 0x02},
		{0x86, 0x06, 0x00, 0x02, 0x18, 0x00, 0x03, 0x11},
		{0x87, 0x06, 0x00, 0x02, 0x00, 0x03, 0x11, 0x02},
		{0x86, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11},
		{0x87, 0x06, 0x01, 0x02, 0x01, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x00, 0x02, 0x02, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x20},
		{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x1c},
		{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x1f},
		{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x40},
		{0x87, 0x06, 0x00, 0x1c, 0x01, 0x03, 0x11, 0x02},
		{0x87, 0x06, 0x00, 0x1a, 0x01, 0x03, 0x11},
		{0x9f, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02, 0xff},
		{0x88, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02, 0x00},
		{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11},
		{0x86, 0x06, 0x00},
	} {
		check(b)
	}
}

// TestTreeEventOwned: each event Decode returns is its own memory, its
// body in the same allocation and nowhere else.
func TestTreeEventOwned(t *testing.T) {
	b := []byte{0x87, 0x06, 0x00, 0x02, 0x01, 0x03, 0x11, 0x02}
	m1, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	e1, e2 := m1.(*Event), m2.(*Event)
	if e1 == e2 || e1.Body == e2.Body {
		t.Fatal("two decodes share memory")
	}
	e1.Body.(*ContentChanged).Node = 99
	e1.Seq = 7
	if e2.Body.(*ContentChanged).Node != 17 || e2.Seq != 2 {
		t.Fatalf("a change to one event shows in the other: %#v", e2)
	}
	if b[6] != 0x11 {
		t.Fatal("the input changed")
	}
	// A body set by the caller replaces the one allocated with the event.
	e1.Body = &WindowChanged{Window: 1}
	e1.Type = TypeWindowChanged
	if _, err := Marshal(e1); err != nil {
		t.Fatal(err)
	}
}

// TestTapEveryWidth: a tap's coordinates at every head width, of either
// sign, minimal or not, read by the fast path as by the general decoder.
func TestTapEveryWidth(t *testing.T) {
	vals := []int64{0, 1, 23, 24, 255, 256, 65535, 65536, 1<<31 - 1, 1 << 31, -1, -24, -25, -256, -257, -65536, -65537, -1 << 31, -1<<31 - 1}
	var taken int
	for _, x := range vals {
		for _, y := range vals {
			for _, wide := range []bool{false, true} {
				b := []byte{0xa4, schema.KeyKind, byte(KindRequest), schema.KeyRequestID, 0x07, schema.KeyRequestMethod, byte(MethodTap), schema.KeyRequestParams, 0xa2, schema.KeyTapParamsX}
				b = intHead(b, x, wide)
				b = append(b, schema.KeyTapParamsY)
				b = intHead(b, y, wide)
				m, err := decodeBoth(t, b)
				_, ok := decodeRequestFast(b)
				fits := x >= -1<<31 && x < 1<<31 && y >= -1<<31 && y < 1<<31
				if fits && !wide && !ok {
					t.Errorf("% x: fast path not taken", b)
				}
				if ok {
					taken++
				}
				if fits != (err == nil) {
					t.Fatalf("% x: %v", b, err)
				}
				if err == nil {
					p := m.(*Request).Params.(*TapParams)
					if int64(p.X) != x || int64(p.Y) != y {
						t.Fatalf("% x: read %d, %d", b, p.X, p.Y)
					}
				}
				decodeBoth(t, b[:len(b)-1])
			}
		}
	}
	if taken == 0 {
		t.Fatal("fast path never taken")
	}
}

// intHead appends v as an integer, its head minimal or, if wide, a 9-byte
// one.
func intHead(dst []byte, v int64, wide bool) []byte {
	major, u := byte(0), uint64(v)
	if v < 0 {
		major, u = 0x20, uint64(-1-v)
	}
	var out []byte
	if wide {
		out = uintHead(dst, u, 9)
	} else {
		out = cbor.AppendUint(dst, u)
	}
	out[len(dst)] |= major
	return out
}
