package cbor

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8: ValidUTF8 agrees with utf8.Valid on every sequence of
// up to three bytes from a set around each boundary of RFC 3629, on those
// inside ASCII runs of every offset, and on random texts.
func TestValidUTF8(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
		0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xff}
	check := func(s []byte) {
		t.Helper()
		if got, want := ValidUTF8(s), utf8.Valid(s); got != want {
			t.Fatalf("ValidUTF8(% x) = %v, utf8.Valid %v", s, got, want)
		}
	}
	var seqs [][]byte
	for _, a := range edges {
		seqs = append(seqs, []byte{a})
		for _, b := range edges {
			seqs = append(seqs, []byte{a, b})
			for _, c := range edges {
				seqs = append(seqs, []byte{a, b, c})
			}
		}
	}
	for _, r := range []rune{0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff} {
		for cut := 0; cut <= utf8.RuneLen(r); cut++ {
			seqs = append(seqs, utf8.AppendRune(nil, r)[:cut])
		}
		seqs = append(seqs, append(utf8.AppendRune(nil, r), 0x80))
	}
	seqs = append(seqs, []byte{0xf4, 0x90, 0x80, 0x80}, []byte{0xed, 0xa0, 0x80}, []byte{0xe0, 0x80, 0x80}, []byte{0xf0, 0x80, 0x80, 0x80})
	for _, s := range seqs {
		check(s)
		for pre := 0; pre <= 17; pre++ {
			for post := 0; post <= 9; post += 3 {
				x := append(make([]byte, 0, pre+len(s)+post), []byte("abcdefghijklmnopq")[:pre]...)
				x = append(x, s...)
				check(append(x, []byte("rstuvwxyz")[:post]...))
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"a", "Zürich", "東京", "🎉", "x\xffy", "\xed\xa0\x80", "é", "€", "hello world", "\xc3", "\xf0\x9f"}
	for range 20000 {
		var b []byte
		for range r.IntN(6) {
			b = append(b, words[r.IntN(len(words))]...)
		}
		check(b)
	}
}

// TestValidUTF8Positions: ValidUTF8 agrees with utf8.Valid on ASCII
// texts of every length up to 40 (short texts, the two words of a text of
// up to 16 bytes, whole words and the word that ends a longer text) with
// a sequence, valid or not, at every position: so that each boundary
// between ASCII and non-ASCII falls at every offset within a word, and
// each sequence is cut short by the end of the text at every length.
func TestValidUTF8Positions(t *testing.T) {
	seqs := [][]byte{{0x80}, {0xff}, {0xc3, 0xa9}, {0xc1, 0xbf}, {0xe2, 0x82, 0xac}, {0xe2, 0x82}, {0xed, 0xa0, 0x80},
		{0xe6, 0x9d, 0xb1, 0xe4, 0xba, 0xac}, {0xf0, 0x9f, 0x8e, 0x89}, {0xf0, 0x9f, 0x8e}, {0xf4, 0x90, 0x80, 0x80},
		{0xd0, 0x9d, 0xd0, 0xb0}, {0xd0, 0x9d, 0xc1, 0xbf}, {0xc0, 0x80, 0xd0, 0x9d}, {0xd0, 0x9d, 0xd0, 0x41},
		{0xd0, 0x9d, 0xd0, 0xb0, 0xd0}, {0xc3, 0xa9, 0x41, 0xc3}}
	for n := 0; n <= 40; n++ {
		for p := 0; p <= n; p++ {
			for _, q := range seqs {
				s := make([]byte, n)
				for i := range s {
					s[i] = 'a' + byte(i%26)
				}
				s = append(s[:p], append(append([]byte{}, q...), s[p:]...)...)
				for _, x := range [][]byte{s, s[:len(s)-min(len(s), 1)]} {
					if got, want := ValidUTF8(x), utf8.Valid(x); got != want {
						t.Fatalf("ValidUTF8(% x) = %v, utf8.Valid %v", x, got, want)
					}
				}
			}
		}
	}
}

// FuzzValidUTF8: ValidUTF8 agrees with utf8.Valid on any input.
func FuzzValidUTF8(f *testing.F) {
	f.Add([]byte("naïve café 東京 🎉"))
	f.Add([]byte("abcdefgh\xe2\x82"))
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := ValidUTF8(s), utf8.Valid(s); got != want {
			t.Fatalf("ValidUTF8(% x) = %v, utf8.Valid %v", s, got, want)
		}
	})
}

// benchTexts are texts like a tree's: short, mostly ASCII, some with a
// word of accented Latin, CJK or emoji.
var benchTexts = func() [][]byte {
	words := []string{"OK", "Settings", "Réglages", "設定", "Wi-Fi", "Bluetooth & devices", "🎉 Party",
		"com.example.app:id/button_ok", "Ñandú", "Search apps", "Écran"}
	var out [][]byte
	for i := 0; i < 64; i++ {
		s := words[i%len(words)]
		if i%3 == 0 {
			s += " " + words[(i*7)%len(words)]
		}
		out = append(out, []byte(s))
	}
	return out
}()

// BenchmarkValidUTF8 checks benchTexts, against utf8.Valid on the same.
func BenchmarkValidUTF8(b *testing.B) {
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"impl=cbor", ValidUTF8}, {"impl=utf8", utf8.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, t := range benchTexts {
					if !c.valid(t) {
						b.Fatalf("%q refused", t)
					}
				}
			}
		})
	}
}
