package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// vtJSONLine is the JSON line decode prints for m.
func vtJSONLine(t testing.TB, m codec.Message) []byte {
	t.Helper()
	j, err := wirejson.Value(m)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestEncodeAlternatives: the JSON input may use numbers for names, null
// for absent fields, and leave out what the output always prints but the
// wire omits; each still writes the canonical frame.
func TestEncodeAlternatives(t *testing.T) {
	for _, c := range []struct {
		sample string
		json   string
	}{
		{"request_tap", `{"kind":2,"id":6,"method":3,"params":{"y":1200,"x":540}}`},
		{"request_tap", `{"params":{"x":540,"y":1200},"method":"3","id":6,"kind":"request","deadline_ms":null}`},
		{"hello_minimal", `{"kind":"hello","versions":[1],"max_frame":4096,"capabilities":0,"agent":"a","token":null}`},
		{"hello_minimal", `{"kind":"hello","versions":[1],"max_frame":4096,"capability_names":[],"agent":"a"}`},
		{"hello_full", strings.Replace(string(vtJSONLine(t, mustSample(t, "hello_full"))), `"capabilities":1073741951,`, ``, 1)},
		{"event_content_changed", `{"kind":"event","stream":0,"seq":2,"type":1,"window":3,"node":17,"change":2}`},
		{"response_frames_start", `{"kind":"response","id":16,"method":"frames_start","result":{"stream":1}}`},
		{"request_unknown_method", `{"kind":"request","id":21,"method":99,"params":{}}`},
		{"response_snapshot_window_meta", strings.Replace(string(vtJSONLine(t, mustSample(t, "response_snapshot_window_meta"))), `"emits_events":true}`, `"emits_events":true,"modal":false}`, 1)},
		{"response_snapshot_deep", strings.Replace(string(vtJSONLine(t, mustSample(t, "response_snapshot_deep"))), `"flags":2048}`, `"flags":2048,"children":[]}`, 1)},
	} {
		frame := vtSample(t, c.sample)
		code, out, errs := vtRun(t, []byte(c.json), "encode")
		if code != 0 || !bytes.Equal(out, frame) {
			t.Errorf("%s from %s: exit %d, %s\n got %x\nwant %x", c.sample, c.json, code, errs, out, frame)
		}
	}
	// A response to an unknown method, and a request with an unknown
	// event stream in its params, are written as they come.
	for _, c := range []struct{ json, diag string }{
		{`{"kind":"response","id":1,"method":77,"result":{}}`, `{0: 3, 1: 1, 2: 77, 3: {}}`},
		{`{"kind":"request","id":1,"method":"resync","params":{"stream":9}}`, `{0: 2, 1: 1, 2: 12, 3: {0: 9}}`},
		{`{"kind":"welcome"}`, `{0: 1}`},
		{`{"kind":"event","stream":"frames","seq":3,"type":4}`, `[6, 1, 3, 4]`},
	} {
		code, frame, errs := vtRun(t, []byte(c.json), "encode")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.json, code, errs)
		}
		_, diag, _ := vtRun(t, frame, "diag")
		if got := strings.TrimSpace(string(diag)); got != c.diag {
			t.Errorf("%s: diag %s, want %s", c.json, got, c.diag)
		}
		_, back, _ := vtRun(t, frame, "decode")
		if got := strings.TrimSpace(string(back)); got != c.json {
			t.Errorf("%s: decodes as %s", c.json, got)
		}
	}
}

func mustSample(t *testing.T, name string) codec.Message {
	s, ok := golden.Lookup(name)
	if !ok {
		t.Fatalf("no sample %s", name)
	}
	return s.Msg
}

// TestEncodeStopsOnlyLines: a bad line does not hide the good ones, and
// every bad line is reported with its number.
func TestEncodeReportsEveryLine(t *testing.T) {
	in := "{\"kind\":\"ping\",\"nonce\":1}\n{\"kind\":\"pang\"}\n\n  \n{\"kind\":\"pong\",\"nonce\":1}\n{\"kind\":\"ping\"}\r\n{\"kind\":\"ping\",\"nonce\":1}" // no final newline
	code, out, errs := vtRun(t, []byte(in), "encode")
	want := bytes.Join([][]byte{vtSample(t, "ping"), vtSample(t, "pong"), vtSample(t, "ping")}, nil)
	if code != 1 || !bytes.Equal(out, want) {
		t.Errorf("exit %d, out %x", code, out)
	}
	if !strings.Contains(errs, "line 2: field /kind") || !strings.Contains(errs, "line 6: field /nonce: required field is missing") {
		t.Errorf("stderr %q", errs)
	}
}

// encodeLine is wire encode's path for one line: the frame of its
// message appended to dst.
func encodeLine(dst, line []byte, limit uint32) ([]byte, error) {
	m, err := safely(func() (codec.Message, error) { return parseLine(line, limit) })
	if err != nil {
		return dst, err
	}
	return safely(func() ([]byte, error) { return appendFrame(dst, m, limit) })
}

// FuzzEncodeJSON feeds the JSON → frame path arbitrary lines, seeded with
// the JSON of every golden sample. It must never panic; a line it accepts
// must give a frame the codec decodes, whose JSON encodes to the same
// frame again.
func FuzzEncodeJSON(f *testing.F) {
	for _, s := range golden.Samples() {
		f.Add(vtJSONLine(f, s.Msg))
	}
	f.Add([]byte(`{"kind":"request","id":1,"method":99,"params":{}}`))
	f.Add([]byte(`{"kind":"event","stream":7,"seq":1,"type":2}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n") {
			return // one line at a time
		}
		frame, err := encodeLine(nil, line, schema.DefaultMaxFrame)
		if err != nil {
			if strings.Contains(err.Error(), "panic") {
				t.Fatalf("%q: %v", line, err)
			}
			return
		}
		m, err := codec.Decode(frame[schema.HeaderLen:])
		if err != nil {
			t.Fatalf("%q: encoded to %x, which does not decode: %v", line, frame, err)
		}
		again, err := encodeLine(nil, vtJSONLine(t, m), schema.DefaultMaxFrame)
		if err != nil || !bytes.Equal(again, frame) {
			t.Fatalf("%q: frame %x decodes to %s, which encodes to %x (%v)", line, frame, vtJSONLine(t, m), again, err)
		}
	})
}

// FuzzDecodeJSON feeds the frame → JSON path arbitrary payloads, seeded
// with every golden frame. Whatever the codec decodes must print as JSON
// that encodes to the codec's own encoding of the message.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range golden.Samples() {
		b, err := codec.Marshal(s.Msg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, err := codec.Decode(payload)
		if _, unknown := m.(*codec.UnknownKind); err != nil || unknown {
			return // undecodable, or decodes but has no encoding
		}
		want, err := codec.AppendFrame(nil, m, 1<<32-1)
		if err != nil {
			t.Fatalf("%x decodes to %#v, which does not encode: %v", payload, m, err)
		}
		if n, err := wirejson.PayloadLen(m); err != nil || n != len(want)-schema.HeaderLen {
			t.Fatalf("%x: PayloadLen %d (%v), encoded %d bytes", payload, n, err, len(want)-schema.HeaderLen)
		}
		line := vtJSONLine(t, m)
		got, err := encodeLine(nil, line, 1<<32-1)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%x: JSON %s encodes to %x (%v), want %x", payload, line, got, err, want)
		}
	})
}
