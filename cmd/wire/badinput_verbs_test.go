package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// vtNested returns n nested definite arrays of one element around 0.
func vtNested(n int) []byte {
	return append(bytes.Repeat([]byte{0x81}, n), 0x00)
}

// vtDeepNodes returns a snapshot response whose window root heads a chain
// of depth nodes, written by hand so that it can exceed MaxNodeDepth.
func vtDeepNodes(depth int) []byte {
	p := []byte{0xa4, 0x00, 0x03, 0x01, 0x01, 0x02, 0x01, 0x03, // response id 1 method snapshot, result:
		0xa4, 0x00, 0x81, 0x61, 'v', // strings ["v"]
		0x01, 0x81, 0xa6, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00, 0x03, 0x84, 0, 0, 1, 1, 0x04, 0x00, 0x07} // windows [{0:1,1:1,2:0,3:[0,0,1,1],4:0,7:
	node := []byte{0xa5, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0, 0, 1, 1, 0x03, 0x00, 0x08, 0x81} // {0:1,1:0,2:[0,0,1,1],3:0,8:[
	leaf := []byte{0xa4, 0x00, 0x01, 0x01, 0x00, 0x02, 0x84, 0, 0, 1, 1, 0x03, 0x00}
	for i := 1; i < depth; i++ {
		p = append(p, node...)
	}
	p = append(p, leaf...)
	return append(p, 0x02, 0x00, 0x03, 0x01) // truncated 0, seq 1
}

// vtPingOut is how decode and diag print the ping sample.
var vtPingOut = map[string]string{"decode": `{"kind":"ping","nonce":1}`, "diag": `{0: 4, 1: 1}`}

// TestBadFrames is the hostile-input table of decode and diag: each case
// exits 1, and stderr names the frame index, its stream offset, the
// offset of the problem and the field.
func TestBadFrames(t *testing.T) {
	ping := vtSample(t, "ping") // 9 bytes: 00000005 a2 00 04 01 01
	pong := vtSample(t, "pong")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, c := range []struct {
		name  string
		verbs []string // decode and/or diag
		flags []string
		in    []byte
		err   []string          // fragments of stderr
		out   map[string]string // by verb, a fragment of stdout
	}{
		{"truncated header", []string{"decode", "diag"}, nil, cat(ping, []byte{0, 0}),
			[]string{"frame 1 at stream offset 9", "field length header", "truncated", "offset 11"}, vtPingOut},
		{"truncated payload", []string{"decode", "diag"}, nil, cat(ping, []byte{0, 0, 0, 5, 0xa2, 0x00}),
			[]string{"frame 1 at stream offset 9", "field payload", "truncated", "offset 15"}, vtPingOut},
		{"over-limit header", []string{"decode", "diag"}, []string{"-max-frame", "4096"},
			cat(ping, []byte{0, 0, 0x10, 0x01, 0xa4, 0x00, 0x02, 0x01, 0x05}, make([]byte, 4092), pong),
			[]string{"frame 1 at stream offset 9", "field length header", "4097 bytes", "over -max-frame 4096", "skipped"}, nil},
		{"over-limit header, next frame read", []string{"decode"}, []string{"-max-frame", "4K"},
			cat([]byte{0, 0, 0x10, 0x01, 0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x03, 0x03, 0xa0}, make([]byte, 4088), pong),
			[]string{"frame 0 at stream offset 0", "(kind request, id 5, method tap)"}, map[string]string{"decode": `{"kind":"pong","nonce":1}`}},
		{"over-limit header, stream cut", []string{"decode"}, nil, cat(ping, []byte{0xff, 0xff, 0xff, 0xff}, make([]byte, 100)),
			[]string{"frame 1 at stream offset 9", "field payload", "truncated", "oversized"}, nil},
		{"corrupt length header", []string{"decode", "diag"}, nil, cat(ping, []byte{0x00, 0x01, 0x00, 0x00}, pong),
			[]string{"frame 1 at stream offset 9", "field payload", "truncated", "offset 22"}, nil},
		{"bad UTF-8", []string{"decode"}, nil, cat(ping, vtFrameOf([]byte{0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x07, 0x03, 0xa1, 0x00, 0x62, 0xc3, 0x28})),
			[]string{"frame 1 at stream offset 9", "field request.params.text", "stream offset 23 (payload offset 10)", "invalid UTF-8"}, nil},
		{"bad UTF-8 (diag)", []string{"diag"}, nil, vtFrameOf([]byte{0x82, 0x01, 0x62, 0xc3, 0x28}),
			[]string{"frame 0 at stream offset 0", "payload offset 2", "invalid UTF-8"}, nil},
		{"trailing bytes inside a frame", []string{"decode", "diag"}, nil, cat(pong, vtFrameOf([]byte{0xa2, 0x00, 0x04, 0x01, 0x01, 0x00}), ping),
			[]string{"frame 1 at stream offset 9", "payload offset 5", "stream offset 18", "trailing bytes"}, vtPingOut},
		{"truncated item", []string{"decode", "diag"}, nil, vtFrameOf([]byte{0xa2, 0x00, 0x04, 0x01}),
			[]string{"frame 0 at stream offset 0", "truncated"}, nil},
		{"2^32-element array head with 10 bytes left", []string{"decode", "diag"}, nil,
			vtFrameOf([]byte{0x9b, 0, 0, 0, 1, 0, 0, 0, 0, 6, 0, 1, 0, 0, 0, 0, 0, 0, 0}),
			[]string{"frame 0 at stream offset 0", "payload offset 0", "truncated", "4294967296 elements"}, nil},
		{"u64-element map head", []string{"decode", "diag"}, nil,
			vtFrameOf([]byte{0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 2}),
			[]string{"frame 0", "payload offset 0", "truncated"}, nil},
		{"float in a typed field", []string{"decode"}, nil, vtFrameOf([]byte{0xa4, 0x00, 0x02, 0x01, 0x05, 0x02, 0x03, 0x03, 0xa2, 0x00, 0xf9, 0x3c, 0x00, 0x01, 0x01}),
			[]string{"frame 0", "field request.params.x", "payload offset 10", "float"}, nil},
		{"tag in a typed field", []string{"decode"}, nil, vtFrameOf([]byte{0xa2, 0x00, 0x04, 0x01, 0xc1, 0x01}),
			[]string{"frame 0", "field ping.nonce", "payload offset 4", "tag"}, nil},
		{"wrong major type", []string{"decode"}, nil, vtFrameOf([]byte{0xa2, 0x00, 0x04, 0x01, 0x61, 'x'}),
			[]string{"frame 0", "field ping.nonce", "payload offset 4", "wrong type"}, nil},
		{"missing required key", []string{"decode"}, nil, cat(ping, vtFrameOf([]byte{0xa1, 0x00, 0x04})),
			[]string{"frame 1 at stream offset 9", "field ping.nonce", "missing"}, nil},
		{"not a message", []string{"decode"}, nil, vtFrameOf([]byte{0x01}),
			[]string{"frame 0", "field message", "payload offset 0"}, nil},
		{"empty payload", []string{"decode", "diag"}, nil, vtFrameOf(nil),
			[]string{"frame 0", "truncated"}, nil},
		{"node tree 257 deep", []string{"decode"}, nil, vtFrameOf(vtDeepNodes(257)),
			[]string{"frame 0", "field response.result.windows[0].root.children[0]", "nesting too deep", "256"}, nil},
		{"node tree 100000 deep", []string{"decode"}, nil, vtFrameOf(vtDeepNodes(100000)),
			[]string{"frame 0", "nesting too deep"}, nil},
		{"CBOR nested 100000 deep", []string{"diag", "decode"}, nil, vtFrameOf(vtNested(100000)),
			[]string{"frame 0", "payload offset"}, nil},
	} {
		for _, verb := range c.verbs {
			t.Run(c.name+"/"+verb, func(t *testing.T) {
				code, out, errs := vtRun(t, c.in, append([]string{verb}, c.flags...)...)
				if code != 1 {
					t.Errorf("exit %d, want 1; stderr %q", code, errs)
				}
				for _, want := range c.err {
					if !strings.Contains(errs, want) {
						t.Errorf("stderr %q lacks %q", errs, want)
					}
				}
				if want := c.out[verb]; !strings.Contains(string(out), want) {
					t.Errorf("stdout %q lacks %q: the good frames were not all printed", out, want)
				}
			})
		}
	}
}

// TestDeepChainDecodes: a 256-level chain written by hand decodes.
func TestDeepChainDecodes(t *testing.T) {
	code, out, errs := vtRun(t, vtFrameOf(vtDeepNodes(256)), "decode")
	if code != 0 || strings.Count(string(out), `"children"`) != 255 {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestOversizedHeaderMemory: a header claiming 4 GiB costs no buffer of
// that size; the limit bounds memory whatever the header says.
func TestOversizedHeaderMemory(t *testing.T) {
	in := append([]byte{0xff, 0xff, 0xff, 0xfe}, make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, errs := vtRun(t, in, "decode")
	runtime.ReadMemStats(&after)
	if code != 1 || !strings.Contains(errs, "4294967294 bytes, over -max-frame 16777216") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
		t.Errorf("decoding a 4 GiB header allocated %d bytes", d)
	}
	// With a small limit, a header at the default limit is refused too.
	in = append([]byte{0x01, 0x00, 0x00, 0x00}, make([]byte, 1000)...)
	runtime.ReadMemStats(&before)
	code, _, _ = vtRun(t, in, "diag", "-max-frame", "64K")
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; code != 1 || d > 4<<20 {
		t.Errorf("exit %d, allocated %d bytes", code, d)
	}
}

// TestBadJSON is the encode side: exit 1, stderr names the line and the
// field, and good lines around a bad one are still encoded.
func TestBadJSON(t *testing.T) {
	tap := `{"kind":"request","id":6,"method":"tap","params":{"x":540,"y":1200}}`
	for _, c := range []struct {
		name  string
		flags []string
		line  string
		err   []string
	}{
		{"syntax", nil, `{"kind":"request","id":6,`, []string{"line 2", "column", "ends inside"}},
		{"not JSON", nil, `hello`, []string{"line 2", "column 1", "invalid character"}},
		{"two values", nil, tap + " " + tap, []string{"line 2", "more than one JSON value"}},
		{"unknown method name", nil, `{"kind":"request","id":6,"method":"tapp","params":{}}`, []string{"line 2", "field /method", `unknown method "tapp"`, "long_press"}},
		{"unknown kind name", nil, `{"kind":"reqest"}`, []string{"line 2", "field /kind", `unknown kind "reqest"`}},
		{"unknown kind number", nil, `{"kind":9}`, []string{"line 2", "field /kind", "cannot be encoded"}},
		{"missing kind", nil, `{"id":1}`, []string{"line 2", "field /kind", "missing"}},
		{"not an object", nil, `[1,2]`, []string{"line 2", "want an object"}},
		{"missing field", nil, `{"kind":"request","id":6,"method":"tap","params":{"x":1}}`, []string{"line 2", "field /params/y", "missing"}},
		{"unknown field", nil, `{"kind":"request","id":6,"method":"tap","params":{"x":1,"y":2,"z":3}}`, []string{"line 2", "field /params/z", "unknown field: want one of x, y"}},
		{"unknown top field", nil, `{"kind":"ping","nonce":1,"extra":true}`, []string{"line 2", "field /extra", "unknown field: want one of kind, nonce"}},
		{"duplicate field", nil, `{"kind":"ping","nonce":1,"nonce":2}`, []string{"line 2", "field /nonce", "duplicate"}},
		{"i32 overflow", nil, `{"kind":"request","id":6,"method":"tap","params":{"x":2147483648,"y":0}}`, []string{"line 2", "field /params/x", "does not fit in i32", "want an integer from -2147483648 to 2147483647"}},
		{"u64 overflow", nil, `{"kind":"ping","nonce":18446744073709551616}`, []string{"line 2", "field /nonce", "does not fit in u64"}},
		{"negative u64", nil, `{"kind":"ping","nonce":-1}`, []string{"line 2", "field /nonce", "does not fit in u64"}},
		{"float", nil, `{"kind":"ping","nonce":1.0}`, []string{"line 2", "field /nonce", "want an unsigned integer"}},
		{"exponent", nil, `{"kind":"ping","nonce":1e3}`, []string{"line 2", "field /nonce", "want an unsigned integer"}},
		{"string for a number", nil, `{"kind":"ping","nonce":"1"}`, []string{"line 2", "field /nonce", `the string "1"`}},
		{"bad base64", nil, `{"kind":"event","stream":"frames","seq":1,"type":"frame","width":1,"height":1,"format":0,"uptime_ms":0,"image":"***"}`, []string{"line 2", "field /image", "base64"}},
		{"bad UTF-8", nil, "{\"kind\":\"request\",\"id\":6,\"method\":\"type_text\",\"params\":{\"text\":\"\xc3\x28\"}}", []string{"line 2", "column 65", "field /params/text", "invalid UTF-8", "want text in UTF-8"}},
		{"lone surrogate", nil, `{"kind":"request","id":6,"method":"type_text","params":{"text":"a\udc00"}}`, []string{"line 2", "unpaired", `\udc00`}},
		{"params of unknown method", nil, `{"kind":"request","id":6,"method":99,"params":{"x":1}}`, []string{"line 2", "field /params", "unknown method 99"}},
		{"result and error", nil, `{"kind":"response","id":6,"method":"tap","result":{},"error":{"code":"busy","message":"","retryable":true}}`, []string{"line 2: a response", "not both"}},
		{"neither result nor error", nil, `{"kind":"response","id":6,"method":"tap"}`, []string{"line 2: a response", "neither"}},
		{"bounds of 3", nil, `{"kind":"response","id":5,"method":"bounds","result":{"nodes":[{"node":1,"bounds":[1,2,3]}]}}`, []string{"line 2", "field /result/nodes/0/bounds", "want [left, top, right, bottom], not 3"}},
		{"deep field", nil, `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"type":1,"layer":0,"bounds":[0,0,1,1],"flags":0,"root":{"id":1,"class":0,"bounds":[0,0,1,1],"flags":0,"children":[{"id":2,"class":0,"bounds":[0,0,1,1],"flags":-3}]}}],"truncated":0,"seq":1}}`,
			[]string{"line 2", "field /result/windows/0/root/children/0/flags", "does not fit in u32"}},
		{"position without range", nil, `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"type":1,"layer":0,"bounds":[0,0,1,1],"flags":0,"root":{"id":1,"class":0,"bounds":[0,0,1,1],"flags":0,"scroll":{"axis":1,"flags":0,"position":{"lo":0,"hi":1}}}}],"truncated":0,"seq":1}}`,
			[]string{"line 2", "field /result/windows/0/root/scroll/position", "needs a range"}},
		{"capability names disagree", nil, `{"kind":"hello","versions":[1],"max_frame":4096,"capabilities":3,"capability_names":["tree"],"agent":"a"}`, []string{"line 2", "field /capability_names", "disagree"}},
		{"unknown capability name", nil, `{"kind":"hello","versions":[1],"max_frame":4096,"capability_names":["teleport"],"agent":"a"}`, []string{"line 2", "field /capability_names/0", "teleport"}},
		{"event type of the wrong stream", nil, `{"kind":"event","stream":"tree","seq":1,"type":"frame","window":1,"change":1}`, []string{"line 2", "field /type", `"frame"`}},
		{"event field of another type", nil, `{"kind":"event","stream":"tree","seq":1,"type":"window_changed","window":1,"change":1,"node":3}`, []string{"line 2", "field /node", "unknown field: want one of kind, stream, seq, type, window, change"}},
		{"over -max-frame", []string{"-max-frame", "64"}, `{"kind":"request","id":6,"method":"type_text","params":{"text":"` + strings.Repeat("x", 100) + `"}}`, []string{"line 2", "over -max-frame 64"}},
		{"line too long", []string{"-max-frame", "64"}, `{"kind":"request","id":6,"method":"type_text","params":{"text":"` + strings.Repeat("x", 1<<20+1000) + `"}}`, []string{"line 2", "longer than"}},
		{"JSON too deep", nil, strings.Repeat("[", 1000) + strings.Repeat("]", 1000), []string{"line 2", "field /0/0/0/", "nested deeper", "want at most 528"}},
		{"node tree too deep", nil, vtDeepJSON(257), []string{"line 2", "deeper than 256 levels"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := tap + "\n" + c.line + "\n\n" + tap + "\n"
			code, out, errs := vtRun(t, []byte(in), append([]string{"encode"}, c.flags...)...)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr %q", code, errs)
			}
			for _, want := range c.err {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr %q lacks %q", errs, want)
				}
			}
			if strings.Count(errs, "\n") != 1 {
				t.Errorf("want one error line, got %q", errs)
			}
			frame := vtSample(t, "request_tap")
			if !bytes.Equal(out, append(frame, frame...)) {
				t.Errorf("the good lines were not both encoded: %x", out)
			}
		})
	}
	// A 256-level tree is fine.
	code, _, errs := vtRun(t, []byte(vtDeepJSON(256)), "encode")
	if code != 0 {
		t.Errorf("256 levels: exit %d: %s", code, errs)
	}
}

// vtDeepJSON is a snapshot response whose root heads a chain of depth nodes.
func vtDeepJSON(depth int) string {
	node := `{"id":1,"class":0,"bounds":[0,0,1,1],"flags":0`
	tree := strings.Repeat(node+`,"children":[`, depth-1) + node + "}" + strings.Repeat("]}", depth-1)
	return `{"kind":"response","id":1,"method":"snapshot","result":{"strings":[],"windows":[{"id":1,"type":1,"layer":0,"bounds":[0,0,1,1],"flags":0,"root":` +
		tree + `}],"truncated":0,"seq":1}}`
}
