package golden

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/peertest"
)

// A second language reads the golden frames: Debian's python3-cbor2
// (installed by mk/peers.sh with .ci/install-cbor2.sh) decodes every
// frame's payload, and
//
//   - what it reads equals the message our codec decodes from the same
//     bytes, written back with our encoder and read as generic CBOR: the
//     same items, of the same types, with the same values, in the same
//     order (maps as lists of pairs, byte strings in hex);
//   - its canonical encoding of what it read (cbor2.dumps(canonical=True):
//     shortest heads, definite lengths, keys sorted) is the frame's
//     payload, byte for byte.
//
// Both sides write their reading as JSON of one form (tree and pyTree):
// integers as numbers of any size, byte strings {"bytes": hex}, maps
// {"map": [[key, value], ...]}, tags {"tag": n, "value": item}.

// cbor2Script reads {name: payload hex} on stdin and writes {name:
// {"tree": ..., "canonical": hex} or {"error": ...}} on stdout.
const cbor2Script = `
import json, sys
import cbor2

sys.setrecursionlimit(20000)  # response_snapshot_deep nests 256 nodes, three items a level

def tree(o):
    if o is None or isinstance(o, (bool, int, str)):
        return o
    if isinstance(o, bytes):
        return {"bytes": o.hex()}
    if isinstance(o, list):
        return [tree(x) for x in o]
    if isinstance(o, dict):
        return {"map": [[tree(k), tree(v)] for k, v in o.items()]}
    if isinstance(o, cbor2.CBORTag):
        return {"tag": o.tag, "value": tree(o.value)}
    if isinstance(o, float):
        return {"float": repr(o)}
    if isinstance(o, cbor2.CBORSimpleValue):
        return {"simple": o.value}
    if o is cbor2.undefined:
        return {"simple": 23}
    raise TypeError("cannot write a " + type(o).__name__)

out = {}
for name, h in json.load(sys.stdin).items():
    try:
        o = cbor2.loads(bytes.fromhex(h))
        out[name] = {"tree": tree(o), "canonical": cbor2.dumps(o, canonical=True).hex()}
    except Exception as e:
        out[name] = {"error": type(e).__name__ + ": " + str(e)}
json.dump(out, sys.stdout)
`

// tree is v in the JSON form cbor2Script writes.
func tree(v cbor.Value) any {
	switch v.Kind {
	case cbor.KindUint:
		return json.Number(strconv.FormatUint(v.Uint, 10))
	case cbor.KindNegInt:
		n := new(big.Int).SetUint64(v.Uint)
		return json.Number(n.Neg(n.Add(n, big.NewInt(1))).String())
	case cbor.KindBytes:
		return map[string]any{"bytes": hex.EncodeToString(v.Bytes)}
	case cbor.KindText:
		return v.Text
	case cbor.KindArray:
		out := []any{}
		for _, it := range v.Items {
			out = append(out, tree(it))
		}
		return out
	case cbor.KindMap:
		pairs := []any{}
		for i := 0; i+1 < len(v.Items); i += 2 {
			pairs = append(pairs, []any{tree(v.Items[i]), tree(v.Items[i+1])})
		}
		return map[string]any{"map": pairs}
	case cbor.KindTag:
		return map[string]any{"tag": json.Number(strconv.FormatUint(v.Uint, 10)), "value": tree(v.Items[0])}
	case cbor.KindBool:
		return v.Bool
	case cbor.KindNull:
		return nil
	}
	return map[string]any{"simple": json.Number(strconv.FormatUint(v.Uint, 10))}
}

// normal is x written as JSON and read back with numbers as json.Number,
// so that both sides' trees compare alike.
func normal(t *testing.T, x any) any {
	t.Helper()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoldenFramesInCBOR2: every golden frame, read by python3-cbor2,
// is the message our codec reads, and cbor2's canonical encoding of it is
// the frame's payload. A missing python3-cbor2 fails the test (PEERS=off
// skips it).
func TestGoldenFramesInCBOR2(t *testing.T) {
	python := peertest.Python(t, "cbor2", ".ci/install-cbor2.sh")
	files, err := filepath.Glob("*.bin")
	if err != nil || len(files) < 41 {
		t.Fatalf("golden frames: %d files, %v", len(files), err)
	}
	payloads := map[string][]byte{}
	in := map[string]string{}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".bin")
		b := read(t, f)
		if len(b) < schema.HeaderLen {
			t.Fatalf("%s: %d bytes, no frame header", f, len(b))
		}
		payloads[name] = b[schema.HeaderLen:]
		in[name] = hex.EncodeToString(b[schema.HeaderLen:])
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", cbor2Script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s with cbor2: %v\n%s", python, err, stderr.String())
	}
	var got map[string]struct {
		Tree      json.RawMessage
		Canonical string
		Error     string
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("cbor2's output: %v", err)
	}
	if len(got) != len(payloads) {
		t.Fatalf("cbor2 read %d frames of %d", len(got), len(payloads))
	}
	for name, p := range payloads {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: not read by cbor2", name)
			continue
		case g.Error != "":
			t.Errorf("%s: cbor2 cannot read it: %s", name, g.Error)
			continue
		}
		if g.Canonical != hex.EncodeToString(p) {
			t.Errorf("%s: cbor2's canonical encoding\n%s\ndiffers from the frame's payload\n%s", name, g.Canonical, hex.EncodeToString(p))
		}
		// The message our codec reads, written back and read generically.
		m, err := codec.Decode(p)
		if err != nil {
			t.Errorf("%s: our codec cannot read it: %v", name, err)
			continue
		}
		enc, err := codec.Marshal(m)
		if err != nil {
			t.Errorf("%s: our codec cannot write back what it read: %v", name, err)
			continue
		}
		v, err := cbor.DecodeValue(enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := normal(t, tree(v))
		var theirs any
		d := json.NewDecoder(bytes.NewReader(g.Tree))
		d.UseNumber()
		if err := d.Decode(&theirs); err != nil {
			t.Fatalf("%s: cbor2's tree: %v", name, err)
		}
		if !reflect.DeepEqual(theirs, want) {
			t.Errorf("%s: cbor2 reads\n%s\nour codec's message is\n%s", name, g.Tree, mustJSON(t, want))
		}
	}
}

func mustJSON(t *testing.T, x any) []byte {
	t.Helper()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
