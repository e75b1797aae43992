package golden

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/bench/twins"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Set UPDATE_GOLDEN=1 (make golden) to rewrite golden/ after a deliberate change.
var update = os.Getenv("UPDATE_GOLDEN") == "1"

func ourFrame(t *testing.T, s Sample) []byte {
	t.Helper()
	f, err := codec.AppendFrame(nil, s.Msg, schema.DefaultMaxFrame)
	if err != nil {
		t.Fatalf("%s: encode: %v", s.Name, err)
	}
	return f
}

func refFrame(t *testing.T, s Sample) []byte {
	t.Helper()
	p, err := twins.Marshal(s.Msg)
	if err != nil {
		t.Fatalf("%s: reference encode: %v", s.Name, err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make golden after adding a sample)", err)
	}
	return b
}

func payload(t *testing.T, name string, frame []byte) []byte {
	t.Helper()
	if len(frame) < 4 || int(binary.BigEndian.Uint32(frame)) != len(frame)-4 {
		t.Fatalf("%s: not one frame", name)
	}
	return frame[4:]
}

func TestGoldenWrite(t *testing.T) {
	if !update {
		t.Skip("set UPDATE_GOLDEN=1 to rewrite the golden frames")
	}
	os.MkdirAll("reference", 0o755)
	for _, s := range Samples() {
		if err := os.WriteFile(s.Name+".bin", ourFrame(t, s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("reference", s.Name+".bin"), refFrame(t, s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoldenSet checks that the set is complete: at least 41 samples, every
// name docs/protocol.md section 9 asks for, one per kind, method, result, event
// type and error code, and no stray .bin file.
func TestGoldenSet(t *testing.T) {
	samples := Samples()
	if len(samples) < 41 {
		t.Fatalf("%d samples, want at least 41", len(samples))
	}
	names := map[string]bool{}
	kinds := map[codec.Kind]bool{}
	params := map[codec.Method]bool{}
	results := map[codec.Method]bool{}
	events := map[[2]uint32]bool{}
	codes := map[codec.Code]bool{}
	for _, s := range samples {
		if names[s.Name] {
			t.Errorf("sample %s twice", s.Name)
		}
		names[s.Name] = true
		kinds[s.Msg.Kind()] = true
		switch m := s.Msg.(type) {
		case *codec.Request:
			params[m.Method] = true
		case *codec.Response:
			if m.Error != nil {
				codes[m.Error.Code] = true
			} else {
				results[m.Method] = true
			}
		case *codec.Welcome:
			if m.Error != nil {
				codes[m.Error.Code] = true
			}
		case *codec.Event:
			events[[2]uint32{uint32(m.Stream), uint32(m.Type)}] = true
		}
	}
	for _, n := range []string{"hello_full", "hello_minimal", "welcome_ok", "welcome_no_common_version",
		"request_snapshot_evict", "request_snapshot_evict_windows", "request_bounds", "response_bounds",
		"response_snapshot_window_meta", "response_snapshot_scroll", "response_snapshot_deep", "response_snapshot_empty_texts",
		"response_screenshot", "event_frame", "utf8", "array25"} {
		if !names[n] {
			t.Errorf("named sample %s is missing", n)
		}
	}
	for k := codec.KindHello; k <= codec.KindEvent; k++ {
		if !kinds[k] {
			t.Errorf("no sample of kind %s", k)
		}
	}
	for _, m := range codec.Methods() {
		if !params[m] {
			t.Errorf("no request sample of %s", m)
		}
		if !results[m] && m != codec.MethodLongPress && m != codec.MethodSwipe && m != codec.MethodKey &&
			m != codec.MethodTypeText && m != codec.MethodSetText && m != codec.MethodFramesStop {
			t.Errorf("no result sample of %s", m)
		}
	}
	for _, ev := range [][2]uint32{{0, 0}, {0, 1}, {1, 0}} {
		if !events[ev] {
			t.Errorf("no event sample of stream %d type %d", ev[0], ev[1])
		}
	}
	for _, c := range codec.Codes() {
		if !codes[c] {
			t.Errorf("no sample of error code %s", c)
		}
	}
	for _, dir := range []string{".", "reference"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
		if len(files) != len(samples) {
			t.Errorf("%s holds %d frames for %d samples", dir, len(files), len(samples))
		}
		for _, f := range files {
			if n := filepath.Base(f); !names[n[:len(n)-4]] {
				t.Errorf("%s has no sample", f)
			}
		}
	}
	// The hello_full capabilities carry an unknown bit 30.
	if h := samples[0].Msg.(*codec.Hello); h.Capabilities&(1<<30) == 0 || !h.Capabilities.Has(codec.CapAll) {
		t.Errorf("hello_full capabilities %s", h.Capabilities)
	}
}

// TestGoldenEncode: our encoder writes each golden frame byte for byte.
func TestGoldenEncode(t *testing.T) {
	for _, s := range Samples() {
		want := read(t, s.Name+".bin")
		if got := ourFrame(t, s); !bytes.Equal(got, want) {
			t.Errorf("%s: encoder wrote\n%x\nthe golden frame is\n%x", s.Name, got, want)
		}
	}
}

// TestGoldenReferenceIdentical: fxamacker writes the same frames from
// the twin structs, and the two stored sets are identical.
func TestGoldenReferenceIdentical(t *testing.T) {
	for _, s := range Samples() {
		ours := read(t, s.Name+".bin")
		ref := read(t, filepath.Join("reference", s.Name+".bin"))
		if !bytes.Equal(ours, ref) {
			t.Errorf("%s: golden and reference frames differ:\n%x\n%x", s.Name, ours, ref)
		}
		if got := refFrame(t, s); !bytes.Equal(got, ref) {
			t.Errorf("%s: fxamacker now writes\n%x\nthe reference frame is\n%x", s.Name, got, ref)
		}
	}
}

// TestGoldenDecodeReference: our decoder reads every reference frame to the
// sample's message.
func TestGoldenDecodeReference(t *testing.T) {
	decodesToSamples(t, "reference", "", codec.Decode)
}

// TestGoldenReferenceDecodesGolden: fxamacker reads every golden frame to
// the sample's message.
func TestGoldenReferenceDecodesGolden(t *testing.T) {
	decodesToSamples(t, "", "fxamacker ", twins.Unmarshal)
}

// decodesToSamples checks that decode reads each sample's frame in dir
// to the sample's message; who names the decoder in errors.
func decodesToSamples(t *testing.T, dir, who string, decode func([]byte) (codec.Message, error)) {
	t.Helper()
	for _, s := range Samples() {
		f := read(t, filepath.Join(dir, s.Name+".bin"))
		m, err := decode(payload(t, s.Name, f))
		if err != nil {
			t.Errorf("%s: %s%v", s.Name, who, err)
			continue
		}
		if !reflect.DeepEqual(m, s.Msg) {
			t.Errorf("%s: %sdecoded\n%#v\nwant\n%#v", s.Name, who, m, s.Msg)
		}
	}
}

// TestGoldenDefinite: no golden frame holds an indefinite-length item, and
// each is exactly one well-formed item: the payload is what the generic
// encoder, which writes definite lengths only, writes of its value.
func TestGoldenDefinite(t *testing.T) {
	for _, s := range Samples() {
		for _, path := range []string{s.Name + ".bin", filepath.Join("reference", s.Name+".bin")} {
			p := payload(t, s.Name, read(t, path))
			v, err := cbor.DecodeValue(p)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			if enc := cbor.AppendValue(nil, v); !bytes.Equal(enc, p) {
				t.Errorf("%s holds an indefinite-length item or a head longer than it needs:\n%x\nre-encoded\n%x", path, p, enc)
			}
		}
	}
}
