package cbor

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAtReaders: the offset readers agree with Decoder on every head
// length and sign, at each type's limits and one past them, and read
// nothing from a cut-short head or an item of another type.
func TestAtReaders(t *testing.T) {
	var ints []int64
	for _, v := range []int64{0, 23, 24, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64} {
		ints = append(ints, v, -v, -v-1)
	}
	for _, v := range ints {
		b := AppendInt([]byte{0xee}, v) // a byte before, so offsets are tested too
		d := NewDecoder(b[1:])
		want, _ := d.Int()
		got, n := IntAt(b, 1)
		if n != len(b)-1 || got != want {
			t.Errorf("IntAt(% x) = %d, %d; want %d, %d", b[1:], got, n, want, len(b)-1)
		}
		g32, n32 := Int32At(b, 1)
		if fits := v >= math.MinInt32 && v <= math.MaxInt32; fits != (n32 > 0) || (fits && int64(g32) != v) {
			t.Errorf("Int32At(% x) = %d, %d", b[1:], g32, n32)
		}
		gu, nu := UintAt(b, 1)
		if (v >= 0) != (nu > 0) || (v >= 0 && gu != uint64(v)) {
			t.Errorf("UintAt(% x) = %d, %d", b[1:], gu, nu)
		}
		gu32, nu32 := Uint32At(b, 1)
		if fits := v >= 0 && v <= math.MaxUint32; fits != (nu32 > 0) || (fits && int64(gu32) != v) {
			t.Errorf("Uint32At(% x) = %d, %d", b[1:], gu32, nu32)
		}
		for cut := 1; cut < len(b); cut++ {
			if _, n := IntAt(b[:cut], 1); n != 0 {
				t.Errorf("IntAt reads %d bytes of the cut-short % x", n, b[1:cut])
			}
		}
	}
	// Past int64: 2^63 and -1-2^63 do not fit.
	for _, b := range [][]byte{{0x1b, 0x80, 0, 0, 0, 0, 0, 0, 0}, {0x3b, 0x80, 0, 0, 0, 0, 0, 0, 0}} {
		if _, n := IntAt(b, 0); n != 0 {
			t.Errorf("IntAt(% x) reads past int64", b)
		}
	}
	if v, n := UintAt([]byte{0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0); n != 9 || v != math.MaxUint64 {
		t.Errorf("UintAt of 2^64-1 = %d, %d", v, n)
	}
	for _, b := range [][]byte{{0x60}, {0xf4}, {0x1c}, {0x3f}, {0x80}, {}} {
		if _, n := IntAt(b, 0); n != 0 {
			t.Errorf("IntAt(% x) reads a non-integer", b)
		}
		if _, n := UintAt(b, 0); n != 0 {
			t.Errorf("UintAt(% x) reads a non-integer", b)
		}
	}
	if _, n := UintAt([]byte{1}, -1); n != 0 {
		t.Error("UintAt reads at a negative offset")
	}
}

// TestUintArray: an array of unsigned integers of any width is read
// whole; one that does not fit dst, holds anything else, is cut short or
// followed by a byte, or has a longer head, is not.
func TestUintArray(t *testing.T) {
	vals := []uint64{0, 23, 24, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64}
	b := AppendArrayHead(nil, len(vals))
	for _, v := range vals {
		b = AppendUint(b, v)
	}
	dst := make([]uint64, len(vals))
	if n := UintArray(b, dst); n != len(vals) || !slices.Equal(dst, vals) {
		t.Fatalf("UintArray(% x) = %d, %v", b, n, dst)
	}
	if n := UintArray([]byte{0x80}, nil); n != 0 {
		t.Errorf("empty array: %d", n)
	}
	for _, c := range []struct {
		name string
		b    []byte
		room int
	}{
		{"more than dst", b, len(vals) - 1},
		{"cut short", b[:len(b)-1], len(vals)},
		{"a byte after", append(b[:len(b):len(b)], 0), len(vals)},
		{"a negative", []byte{0x82, 0x01, 0x20}, 2},
		{"a text", []byte{0x82, 0x01, 0x61, 'a'}, 2},
		{"a map", []byte{0xa1, 0x01, 0x02}, 2},
		{"a two-byte head", []byte{0x98, 0x01, 0x05}, 2},
		{"indefinite", []byte{0x9f, 0x05, 0xff}, 2},
		{"nothing", nil, 2},
	} {
		if n := UintArray(c.b, make([]uint64, c.room)); n != -1 {
			t.Errorf("%s: UintArray(% x) = %d, want -1", c.name, c.b, n)
		}
	}
}

// TestSpanReaders: TextAt and ArrayAt locate what Decoder reads, at each
// head length, refuse a fourth head length (left to Decoder), a cut-short
// item and another type; ValidUTF8In agrees with utf8.Valid on every span
// of a buffer of mixed text, whatever lies before and after it.
func TestSpanReaders(t *testing.T) {
	for _, n := range []int{0, 23, 24, 255, 256, 65535, 65536} {
		txt := AppendText([]byte{0xee}, strings.Repeat("a", n))
		s, e := TextAt(txt, 1)
		if n < 65536 && (e != len(txt) || s != len(txt)-n) {
			t.Errorf("TextAt of %d bytes = [%d:%d] of %d", n, s, e, len(txt))
		}
		if n == 65536 && e != 0 {
			t.Error("TextAt reads a head of five bytes")
		}
		if _, e := TextAt(txt[:len(txt)-1], 1); e != 0 {
			t.Errorf("TextAt of %d bytes reads a cut-short text", n)
		}
		arr := AppendArrayHead([]byte{0xee}, n)
		k, h := ArrayAt(arr, 1)
		if n < 65536 && (k != n || h != len(arr)-1) {
			t.Errorf("ArrayAt of %d = %d, %d", n, k, h)
		}
		if n == 65536 && h != 0 {
			t.Error("ArrayAt reads a head of five bytes")
		}
	}
	if _, e := TextAt([]byte{0x41}, 0); e != 0 {
		t.Error("TextAt reads an integer")
	}
	if _, h := ArrayAt([]byte{0xa1}, 0); h != 0 {
		t.Error("ArrayAt reads a map")
	}
	buf := []byte("xyz naïve café 東京 🎉 abcdefghijklmnopqr\xff\xc3 ok")
	for s := 0; s <= len(buf); s++ {
		for e := s; e <= len(buf); e++ {
			if got, want := ValidUTF8In(buf, s, e), utf8.Valid(buf[s:e]); got != want {
				t.Fatalf("ValidUTF8In(%q) = %v, want %v", buf[s:e], got, want)
			}
		}
	}
	// ValidTextAt: TextAt's span when the text is valid UTF-8, none when
	// it is not, at every head length.
	for _, n := range []int{5, 30, 300} {
		good := strings.Repeat("é", n)
		for _, c := range []struct {
			text string
			ok   bool
		}{{good, true}, {good[:len(good)-1], false}, {"\xff" + good, false}} {
			item := AppendText([]byte{0xee}, c.text)
			s, e := ValidTextAt(item, 1)
			ws, we := TextAt(item, 1)
			if c.ok && (s != ws || e != we || e == 0) || !c.ok && e != 0 {
				t.Errorf("ValidTextAt(%d bytes, valid %v) = [%d:%d], TextAt [%d:%d]", len(c.text), c.ok, s, e, ws, we)
			}
			if _, e := ValidTextAt(item[:len(item)-1], 1); e != 0 {
				t.Errorf("ValidTextAt reads a cut-short text of %d bytes", len(c.text))
			}
		}
	}
}

// TestShortASCII: ShortASCII is true exactly for the spans of 1 to 16
// ASCII bytes that end 8 or more bytes into the buffer, whatever lies
// before and after them, and never for a span with a byte of 0x80 or more
// (nor an empty one that it cannot tell, which the full check then takes).
func TestShortASCII(t *testing.T) {
	for hole := -1; hole < 40; hole++ { // the one non-ASCII byte, -1 none
		buf := []byte(strings.Repeat("abcdefgh", 5))
		if hole >= 0 {
			buf[hole] = 0x80 | byte(hole)
		}
		for s := 0; s <= len(buf); s++ {
			for e := s; e <= len(buf); e++ {
				ascii := hole < s || hole >= e
				got := ShortASCII(buf, s, e)
				if want := ascii && e-s >= 1 && e-s <= 16 && e >= 8; got != want && !(got && ascii && e == s) {
					t.Fatalf("ShortASCII(buf with 0x80 at %d, %d, %d) = %v, want %v", hole, s, e, got, want)
				}
			}
		}
	}
}
