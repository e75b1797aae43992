package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
	"github.com/wirebench/wirebench/internal/testio"
)

// vtRun runs the command in process and returns its exit status, stdout
// and stderr.
func vtRun(t *testing.T, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errb)
	if strings.Contains(errb.String(), "panic") {
		t.Errorf("wire %v: stderr mentions a panic: %s", args, errb.String())
	}
	return code, out.Bytes(), errb.String()
}

// vtFrame is the frame of a golden sample.
func vtFrame(t testing.TB, m codec.Message) []byte {
	t.Helper()
	f, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func vtSample(t testing.TB, name string) []byte {
	t.Helper()
	s, ok := golden.Lookup(name)
	if !ok {
		t.Fatalf("no golden sample %s", name)
	}
	return vtFrame(t, s.Msg)
}

// vtFrameOf wraps a raw payload in a length header.
func vtFrameOf(payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, payload...)
}

// goldenFiles returns the frames of golden/*.bin by sample name.
func goldenFiles(t *testing.T) map[string][]byte {
	t.Helper()
	return testio.ReadFiles(t, "../../golden", ".bin")
}

// TestRoundTripEverySample: decode then encode gives back every golden
// frame byte for byte, one sample at a time and all of them as one stream.
func TestRoundTripEverySample(t *testing.T) {
	files := goldenFiles(t)
	var all []byte
	samples := golden.Samples()
	for _, s := range samples {
		frame := vtFrame(t, s.Msg)
		if f, ok := files[s.Name]; ok && !bytes.Equal(f, frame) {
			t.Errorf("%s: golden/%s.bin differs from the encoder's frame", s.Name, s.Name)
		}
		all = append(all, frame...)
		code, js, errs := vtRun(t, frame, "decode")
		if code != 0 {
			t.Fatalf("%s: decode exit %d: %s", s.Name, code, errs)
		}
		if bytes.Count(js, []byte("\n")) != 1 || !bytes.HasSuffix(js, []byte("\n")) {
			t.Fatalf("%s: decode printed %q, want one line", s.Name, js)
		}
		var obj map[string]any
		if err := json.Unmarshal(js, &obj); err != nil {
			t.Fatalf("%s: decode printed invalid JSON %s: %v", s.Name, js, err)
		}
		if obj["kind"] != s.Msg.Kind().String() {
			t.Errorf("%s: kind %v, want %s", s.Name, obj["kind"], s.Msg.Kind())
		}
		code, back, errs := vtRun(t, js, "encode")
		if code != 0 {
			t.Fatalf("%s: encode exit %d: %s\nJSON: %s", s.Name, code, errs, js)
		}
		if !bytes.Equal(back, frame) {
			t.Errorf("%s: decode|encode changed the frame\n got %x\nwant %x\nJSON: %s", s.Name, back, frame, js)
		}
	}
	// The golden directory's own files, as one stream of frames.
	var fromFiles []byte
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		fromFiles = append(fromFiles, files[name]...)
	}
	for _, stream := range [][]byte{all, fromFiles} {
		code, js, errs := vtRun(t, stream, "decode")
		if code != 0 {
			t.Fatalf("stream decode exit %d: %s", code, errs)
		}
		code, back, errs := vtRun(t, js, "encode")
		if code != 0 || !bytes.Equal(back, stream) {
			t.Fatalf("stream decode|encode: exit %d, %d bytes back of %d: %s", code, len(back), len(stream), errs)
		}
	}
	if len(files) < len(samples) {
		t.Logf("golden/ holds %d of %d sample files", len(files), len(samples))
	}
}

// TestDecodeJSONShape pins the JSON form of representative samples.
func TestDecodeJSONShape(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(goldenPNG(t))
	for _, c := range []struct {
		sample string
		want   string // the whole line, or a fragment when frag is set
		frag   bool
	}{
		{"request_tap", `{"kind":"request","id":6,"method":"tap","params":{"x":540,"y":1200}}`, false},
		{"event_content_changed", `{"kind":"event","stream":"tree","seq":2,"type":"content_changed","window":3,"node":17,"change":2}`, false},
		{"event_window_changed", `{"kind":"event","stream":"tree","seq":1,"type":"window_changed","window":3,"change":17}`, false},
		{"event_frame", `{"kind":"event","stream":"frames","seq":1,"type":"frame","width":4,"height":2,"format":0,"uptime_ms":86400123,"image":"` + png + `"}`, false},
		{"ping", `{"kind":"ping","nonce":1}`, false},
		{"pong", `{"kind":"pong","nonce":1}`, false},
		{"welcome_ok", `{"kind":"welcome","version":1,"max_frame":1048576,"session":24301}`, false},
		{"welcome_bad_token", `{"kind":"welcome","error":{"code":"bad_token","message":"the per-launch token does not match","retryable":false}}`, false},
		{"hello_minimal", `{"kind":"hello","versions":[1],"max_frame":4096,"capabilities":0,"capability_names":[],"agent":"a"}`, false},
		{"hello_full", `"capabilities":1073741951,"capability_names":["tree","input","screenshot","frames","events","text_set","bounds","bit 30"],"token":"3f9c1a7e-launch-token"`, true},
		{"request_snapshot", `{"kind":"request","id":1,"method":"snapshot","params":{"evict":[]}}`, false},
		{"request_snapshot_evict", `"params":{"evict_event_less":true,"evict":[]}`, true},
		{"request_snapshot_evict_windows", `"evict":[3,7,4294967295]`, true},
		{"request_unknown_method", `{"kind":"request","id":21,"method":99,"params":{}}`, false},
		{"request_deadline", `"deadline_ms":2500}`, true},
		{"request_resync", `"params":{"stream":"tree"}`, true},
		{"response_tap", `{"kind":"response","id":6,"method":"tap","result":{}}`, false},
		{"response_frames_start", `"result":{"stream":"frames"}`, true},
		{"response_resync", `"result":{"seq":1234}`, true},
		{"response_bounds", `"result":{"nodes":[{"node":4,"bounds":[0,63,1080,210]},{"node":12,"bounds":[42,900,1038,1044]}]}`, true},
		{"response_screenshot", `"result":{"width":4,"height":2,"format":0,"image":"` + png + `"}`, true},
		{"response_device_info", `"result":{"model":"Pixel 7","sdk":34,"abi":"arm64-v8a","display":{"width":1080,"height":2400,"density_dpi":420,"rotation":0}}`, true},
		{"response_error_busy", `"error":{"code":"busy","message":"another snapshot is in progress","retryable":true}}`, true},
		{"response_error_unknown_code", `"error":{"code":"quota_exceeded","message":"a code from a later version","retryable":true}`, true},
		{"response_snapshot_window_meta", `"emits_events":false`, true},
		{"response_snapshot_window_meta", `"owner":2,"modal":true}`, true},
		{"response_snapshot_scroll", `"scroll":{"axis":1,"flags":3,"range":{"unit":0,"lo":0,"hi":199},"position":{"lo":0,"hi":15}}`, true},
		{"response_snapshot_scroll", `"scroll":{"axis":7,"flags":512}`, true},
		{"response_snapshot", `"text":"Check out","desc":"Check out your cart","hint":"double-tap to pay","state":"3 items"`, true},
		{"int_request_id_18446744073709551615", `"id":18446744073709551615,`, true},
		{"int_request_id_9223372036854775808", `"id":9223372036854775808,`, true},
		{"int_scroll_ranges", `"position":{"lo":-9223372036854775808,"hi":9223372036854775807}`, true},
		{"int_swipe_wide", `"duration_ms":4294967295,"rest_ms":0}`, true},
		{"int_tap_extremes", `"params":{"x":-2147483648,"y":2147483647}`, true},
		{"int_flags_high", `"truncated":2147483655,"seq":18446744073709551615`, true},
		{"utf8", `"text":"héllo wörld · 日本語 · 😀🚀"`, true},
	} {
		code, js, errs := vtRun(t, vtSample(t, c.sample), "decode")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.sample, code, errs)
		}
		line := strings.TrimSuffix(string(js), "\n")
		if c.frag && !strings.Contains(line, c.want) || !c.frag && line != c.want {
			t.Errorf("%s:\n got %s\nwant %s%s", c.sample, line, map[bool]string{true: "…", false: ""}[c.frag], c.want)
		}
	}
	// Children are omitted when empty and present otherwise; the deep
	// chain comes out 256 levels deep.
	_, js, _ := vtRun(t, vtSample(t, "response_snapshot_deep"), "decode")
	if got := strings.Count(string(js), `"children":[`); got != schema.MaxNodeDepth-1 {
		t.Errorf("deep snapshot: %d children arrays, want %d", got, schema.MaxNodeDepth-1)
	}
	if strings.Contains(string(js), `"children":[]`) || strings.Contains(string(js), "null") {
		t.Errorf("deep snapshot: empty children or null printed")
	}
}

func goldenPNG(t *testing.T) []byte {
	s, _ := golden.Lookup("response_screenshot")
	return s.Msg.(*codec.Response).Result.(*codec.ScreenshotResult).Image
}

// TestDecodeUnknownKind: an unknown kind decodes and is shown by number.
func TestDecodeUnknownKind(t *testing.T) {
	code, js, errs := vtRun(t, vtFrameOf([]byte{0xa2, 0x00, 0x09, 0x01, 0x01}), "decode")
	if code != 0 || string(js) != `{"kind":9}`+"\n" {
		t.Errorf("exit %d, %q, %s", code, js, errs)
	}
	// An unknown stream and event type: numbers, and the fields skipped.
	code, js, errs = vtRun(t, vtFrameOf([]byte{0x86, 0x06, 0x05, 0x01, 0x07, 0x01, 0x02}), "decode")
	if code != 0 || string(js) != `{"kind":"event","stream":5,"seq":1,"type":7}`+"\n" {
		t.Errorf("exit %d, %q, %s", code, js, errs)
	}
}

// TestDecodeFiles: several files, one stream each; "-" is stdin.
func TestDecodeFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.bin")
	b := filepath.Join(dir, "b.bin")
	os.WriteFile(a, append(vtSample(t, "ping"), vtSample(t, "pong")...), 0o644)
	os.WriteFile(b, append(vtSample(t, "request_tap"), 0, 0, 0, 2, 0xa0), 0o644) // the second frame is cut short
	code, js, errs := vtRun(t, vtSample(t, "welcome_ok"), "decode", a, "-", b)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(string(js)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], `"welcome"`) || !strings.Contains(lines[3], `"tap"`) {
		t.Errorf("output %q", js)
	}
	if want := fmt.Sprintf("b.bin: frame 1 at stream offset %d:", len(vtSample(t, "request_tap"))); !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	code, _, errs = vtRun(t, nil, "decode", filepath.Join(dir, "missing.bin"))
	if code != 1 || !strings.Contains(errs, "missing.bin") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// TestDiag: one line of diagnostic notation per frame.
func TestDiag(t *testing.T) {
	in := append(vtSample(t, "ping"), vtSample(t, "request_tap")...)
	in = append(in, vtFrameOf([]byte{0x9f, 0x01, 0x62, 'h', 'i', 0xf5, 0xff})...) // [_ 1, "hi", true]: CBOR, not a message
	in = append(in, vtSample(t, "event_frame")...)
	code, out, errs := vtRun(t, in, "diag")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{
		`{0: 4, 1: 1}`,
		`{0: 2, 1: 6, 2: 3, 3: {0: 540, 1: 1200}}`,
		`[_ 1, "hi", true]`,
		`[6, 1, 1, 0, 4, 2, 0, 86400123, h'89504e470d0a1a0a`,
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %q", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || (i < 3 && lines[i] != w) {
			t.Errorf("line %d: %s, want %s", i, lines[i], w)
		}
	}
	// Every golden sample gives one line.
	var all []byte
	for _, s := range golden.Samples() {
		all = append(all, vtFrame(t, s.Msg)...)
	}
	code, out, errs = vtRun(t, all, "diag")
	if n := bytes.Count(out, []byte("\n")); code != 0 || n != len(golden.Samples()) {
		t.Errorf("diag of every sample: exit %d, %d lines: %s", code, n, errs)
	}
}

// TestSamples: the list, one sample as a frame, several, -o, and errors.
func TestSamples(t *testing.T) {
	code, out, _ := vtRun(t, nil, "samples")
	if code != 0 || !slices.Equal(strings.Fields(string(out)), golden.Names()) {
		t.Errorf("list: exit %d, %q", code, out)
	}
	if len(golden.Names()) < 41 {
		t.Errorf("only %d samples", len(golden.Names()))
	}
	code, out, _ = vtRun(t, nil, "samples", "request_tap")
	if code != 0 || !bytes.Equal(out, vtSample(t, "request_tap")) {
		t.Errorf("request_tap: exit %d, %x", code, out)
	}
	code, out, _ = vtRun(t, nil, "samples", "ping", "pong")
	if code != 0 || !bytes.Equal(out, append(vtSample(t, "ping"), vtSample(t, "pong")...)) {
		t.Errorf("ping pong: exit %d, %x", code, out)
	}
	f := filepath.Join(t.TempDir(), "tap.bin")
	code, out, errs := vtRun(t, nil, "samples", "request_tap", "-o", f) // flags may follow the name
	got, _ := os.ReadFile(f)
	if code != 0 || len(out) != 0 || !bytes.Equal(got, vtSample(t, "request_tap")) {
		t.Errorf("-o: exit %d, stdout %x, file %x, %s", code, out, got, errs)
	}
	code, _, errs = vtRun(t, nil, "samples", "no_such_sample")
	if code != 1 || !strings.Contains(errs, "no_such_sample") {
		t.Errorf("unknown sample: exit %d, %q", code, errs)
	}
	code, _, errs = vtRun(t, nil, "samples", "-max-frame", "16", "response_snapshot")
	if code != 1 || !strings.Contains(errs, "exceeds the frame limit of 16") {
		t.Errorf("over the limit: exit %d, %q", code, errs)
	}
	// A sample written by `samples` decodes and encodes back.
	_, frame, _ := vtRun(t, nil, "samples", "response_snapshot_deep")
	_, js, _ := vtRun(t, frame, "decode")
	code, back, errs := vtRun(t, js, "encode")
	if code != 0 || !bytes.Equal(back, frame) {
		t.Errorf("deep sample round trip: exit %d: %s", code, errs)
	}
}

// TestUsage: usage errors exit 2, help exits 0.
func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: wire"},
		{[]string{"frobnicate"}, 2, `unknown verb "frobnicate"`},
		{[]string{"decode", "-bogus"}, 2, "-bogus"},
		{[]string{"decode", "-max-frame", "lots"}, 2, "max-frame"},
		{[]string{"encode", "-max-frame", "4294967296"}, 2, "max-frame"},
		{[]string{"diag", "-max-frame"}, 2, "max-frame"},
		{[]string{"samples", "-o", "x.bin"}, 2, "-o needs a sample NAME"},
		{[]string{"decode", "-h"}, 0, "usage: wire decode"},
		// The session verbs share the other verbs' -max-frame and add
		// the protocol's least limit.
		{[]string{"agent-sim", "-listen", "127.0.0.1:0", "-max-frame", "4095"}, 2, "-max-frame 4095: want 4096 to 4294967295"},
		{[]string{"host", "-connect", "127.0.0.1:1", "-max-frame", "4294967296", "tap", "1", "2"}, 2, "max-frame"},
		{[]string{"host", "-h"}, 0, "usage: wire host -connect ADDR"},
		{[]string{"agent-sim", "-h"}, 0, "K, KiB, M or MiB suffixes"},
		{[]string{"help"}, 0, ""},
	} {
		code, out, errs := vtRun(t, nil, c.args...)
		if code != c.code || !strings.Contains(errs+string(out), c.want) {
			t.Errorf("wire %q: exit %d (want %d), stderr %q", c.args, code, c.code, errs)
		}
	}
	// -max-frame takes suffixes.
	var f maxFrameFlag
	for s, want := range map[string]uint32{"4096": 4096, "4K": 4096, "16MiB": 16 << 20, "0": 0} {
		if err := f.Set(s); err != nil || f.limit != want {
			t.Errorf("-max-frame %s: %d, %v", s, f.limit, err)
		}
	}
	// "--" ends the flags.
	code, _, errs := vtRun(t, nil, "decode", "--", "-max-frame")
	if code != 1 || !strings.Contains(errs, "-max-frame") {
		t.Errorf("decode -- -max-frame: exit %d, %q (want the file -max-frame not found)", code, errs)
	}
}

// TestDecodeShortReads: frames split over reads of any size, data coming
// with io.EOF, and empty reads decode the same.
func TestDecodeShortReads(t *testing.T) {
	var in []byte
	for _, s := range golden.Samples() {
		in = append(in, vtFrame(t, s.Msg)...)
	}
	_, want, _ := vtRun(t, in, "decode")
	for name, r := range map[string]io.Reader{
		"one byte":   iotest.OneByteReader(bytes.NewReader(in)),
		"half":       iotest.HalfReader(bytes.NewReader(in)),
		"data+EOF":   iotest.DataErrReader(bytes.NewReader(in)),
		"zero reads": testio.EmptyReads(bytes.NewReader(in)),
	} {
		var out, errb bytes.Buffer
		if code := run([]string{"decode"}, r, &out, &errb); code != 0 || !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: exit %d, %s", name, code, errb.String())
		}
	}
	// An I/O error is reported and exits 1.
	var out, errb bytes.Buffer
	r := io.MultiReader(bytes.NewReader(vtSample(t, "ping")), iotest.ErrReader(errors.New("link down")))
	if code := run([]string{"decode"}, r, &out, &errb); code != 1 || !strings.Contains(errb.String(), "link down") || out.String() != `{"kind":"ping","nonce":1}`+"\n" {
		t.Errorf("I/O error: exit %d, %q, %q", code, out.String(), errb.String())
	}
}
