package cbor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

type vector struct {
	Hex        string          `json:"hex"`
	Roundtrip  bool            `json:"roundtrip"`
	Decoded    json.RawMessage `json:"decoded"`
	Diagnostic string          `json:"diagnostic"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	// RFC 8949 Appendix A, as JSON: the repository's own copy.
	raw, err := os.ReadFile(filepath.Join("testdata", "appendix_a.json"))
	if err != nil {
		t.Fatalf("the RFC 8949 Appendix A vectors: %v", err)
	}
	var vs []vector
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 80 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

// plain reports whether v holds only what the protocol allows: no floats,
// no tags, no simple values but true, false and null.
func plain(v Value) bool {
	switch v.Kind {
	case KindFloat, KindTag, KindSimple, KindUndefined:
		return false
	}
	for _, it := range v.Items {
		if !plain(it) {
			return false
		}
	}
	return true
}

// jsonish turns v into what encoding/json with UseNumber yields for the
// vector's "decoded" field, so the two compare with reflect.DeepEqual.
func jsonish(v Value) any {
	switch v.Kind {
	case KindUint:
		return json.Number(strconv.FormatUint(v.Uint, 10))
	case KindNegInt:
		return json.Number(Diag(v))
	case KindText:
		return v.Text
	case KindBool:
		return v.Bool
	case KindNull:
		return nil
	case KindArray:
		out := []any{}
		for _, it := range v.Items {
			out = append(out, jsonish(it))
		}
		return out
	case KindMap:
		out := map[string]any{}
		for i := 0; i+1 < len(v.Items); i += 2 {
			out[v.Items[i].Text] = jsonish(v.Items[i+1])
		}
		return out
	}
	return v
}

func TestAppendixA(t *testing.T) {
	var checked, plainOK, diagOK int
	for _, vec := range loadVectors(t) {
		in, err := hex.DecodeString(vec.Hex)
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeValue(in)
		if vec.Hex == "f818" {
			// RFC 8949 section 3.3: a two-byte simple value below 32 is not
			// well-formed; the appendix (inherited from RFC 7049) lists it.
			if err == nil {
				t.Errorf("f818: decoded, want not well-formed")
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", vec.Hex, err)
			continue
		}
		checked++
		if streamed, err := AppendDiag(nil, in); err != nil || string(streamed) != Diag(v) {
			t.Errorf("%s: AppendDiag %q (%v), Diag %q", vec.Hex, streamed, err, Diag(v))
		}
		if vec.Diagnostic != "" {
			if vec.Hex != "5f42010243030405ff" { // chunks are shown joined
				if got := Diag(v); got != vec.Diagnostic {
					t.Errorf("%s: diag %s, want %s", vec.Hex, got, vec.Diagnostic)
				}
			}
			diagOK++
		}
		if !plain(v) {
			continue
		}
		if vec.Decoded != nil {
			dec := json.NewDecoder(bytes.NewReader(vec.Decoded))
			dec.UseNumber()
			var want any
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if got := jsonish(v); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: decoded %#v, want %#v", vec.Hex, got, want)
			}
		}
		if vec.Roundtrip {
			if out := AppendValue(nil, v); !bytes.Equal(out, in) {
				t.Errorf("%s: re-encoded as %x", vec.Hex, out)
			}
		} else if !v.Indefinite && !hasIndefinite(v) {
			t.Errorf("%s: not a round trip, but nothing indefinite decoded", vec.Hex)
		}
		plainOK++
	}
	if plainOK < 45 || diagOK < 20 {
		t.Errorf("checked %d vectors, %d plain, %d diagnostic: the filter is too strict", checked, plainOK, diagOK)
	}
}

func hasIndefinite(v Value) bool {
	if v.Indefinite {
		return true
	}
	for _, it := range v.Items {
		if hasIndefinite(it) {
			return true
		}
	}
	return false
}

func TestDiagQuoting(t *testing.T) {
	v := Value{Kind: KindText, Text: "a\"b\\c\n\x7f\x01é"}
	if got, want := Diag(v), `"a\"b\\c\n\u007f\u0001é"`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

func TestAppendDiagBounded(t *testing.T) {
	// A flat array of a million zeros: no Value tree is built.
	n := 1 << 20
	b := append([]byte{0x9a, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, make([]byte, n)...)
	allocs := testing.AllocsPerRun(1, func() {
		out, err := AppendDiag(make([]byte, 0, 4*n), b)
		if err != nil || len(out) != 3*n {
			t.Fatalf("%d bytes, %v", len(out), err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations", allocs)
	}
	if _, err := AppendDiag(nil, []byte{0x9a, 0xff, 0xff, 0xff, 0xff, 0}); err == nil {
		t.Error("2^32 elements with one byte left")
	}
	if _, err := AppendDiag(nil, []byte{0x00, 0x00}); err == nil {
		t.Error("trailing bytes")
	}
}
