package cbor

import (
	"errors"
	"testing"
)

// TestFieldIter reads maps as the protocol does: keys below known are
// reported, a null value is absent, other keys (of any type) are
// skipped, and definite and indefinite maps read alike.
func TestFieldIter(t *testing.T) {
	type pair struct {
		k    uint64
		null bool
	}
	for name, c := range map[string]struct {
		in   []byte
		want []pair
		seen uint32
	}{
		"definite":         {[]byte{0xa3, 0x00, 0x01, 0x05, 0x02, 0x01, 0xf6}, []pair{{0, false}, {1, true}}, 1},
		"indefinite":       {[]byte{0xbf, 0x01, 0x03, 0x00, 0xf6, 0xff}, []pair{{1, false}, {0, true}}, 2},
		"null then value":  {[]byte{0xa2, 0x01, 0xf6, 0x01, 0x07}, []pair{{1, true}, {1, false}}, 2},
		"text key skipped": {[]byte{0xa2, 0x61, 'a', 0x82, 0x01, 0x02, 0x00, 0x09}, []pair{{0, false}}, 1},
		"empty":            {[]byte{0xa0}, nil, 0},
	} {
		d := NewDecoder(c.in)
		it, err := d.Fields(2)
		if err != nil || it.Start() != 0 {
			t.Fatalf("%s: Fields: %v at %d", name, err, it.Start())
		}
		var got []pair
		for it.Next(&d) {
			got = append(got, pair{it.Key(), it.Null()})
			if !it.Null() {
				if err := d.Skip(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if it.Err() != nil || len(got) != len(c.want) || it.Seen() != c.seen || d.Done() != nil {
			t.Fatalf("%s: pairs %v (want %v), seen %b (want %b), err %v, done %v", name, got, c.want, it.Seen(), c.seen, it.Err(), d.Done())
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%s: pairs %v, want %v", name, got, c.want)
			}
		}
	}
	// A map that is not one, a truncated key, a truncated skipped value.
	d := NewDecoder([]byte{0x80})
	if _, err := d.Fields(1); !errors.Is(err, ErrType) {
		t.Errorf("array as a map: %v", err)
	}
	for name, in := range map[string][]byte{"key": {0xa2, 0x01, 0x00, 0x19, 0x01}, "skipped value": {0xa2, 0x05, 0x63, 'a', 'b'}} {
		d := NewDecoder(in)
		it, _ := d.Fields(1)
		if it.Next(&d) || !errors.Is(it.Err(), ErrTruncated) {
			t.Errorf("truncated %s: %v", name, it.Err())
		}
	}
	// A map opened already: FieldsFrom goes on after its first pair.
	d = NewDecoder([]byte{0xa2, 0x00, 0x01, 0x01, 0x02})
	d.Advance(3)
	it := FieldsFrom(0, 2, 1, 1, 2)
	if !it.Next(&d) || it.Key() != 1 || it.Seen() != 3 {
		t.Fatalf("FieldsFrom: key %d, seen %b", it.Key(), it.Seen())
	}
}
