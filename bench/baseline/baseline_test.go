package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func readSample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func toText(t testing.TB, d *Doc) []byte { return written(t, d, WriteText) }

func toJSON(t testing.TB, d *Doc) []byte { return written(t, d, WriteJSON) }

// written is what write writes of d.
func written(t testing.TB, d *Doc, write func(io.Writer, *Doc) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func fromText(t testing.TB, data []byte) *Doc {
	t.Helper()
	d, err := ReadText(bytes.NewReader(data), "test.txt")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func fromJSON(t testing.TB, data []byte) *Doc {
	t.Helper()
	d, err := ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return d
}

func TestReadSample(t *testing.T) {
	d := fromText(t, readSample(t))
	var keys []string
	for _, c := range d.Config {
		keys = append(keys, c.Key)
	}
	if got, want := strings.Join(keys, " "), "quiet quiet-busy quiet-steal go-version commit goos goarch pkg cpu"; got != want {
		t.Errorf("config order %q, want %q", got, want)
	}
	if len(d.Units) != 2 || d.Units[0] != (UnitMeta{"allocs/op", "assume", "exact"}) || d.Units[1] != (UnitMeta{"B/op", "assume", "exact"}) {
		t.Errorf("units %+v", d.Units)
	}
	if len(d.Runs) != 7 {
		t.Fatalf("%d runs, want 7", len(d.Runs))
	}
	r0 := d.Runs[0]
	wantVals := []Value{{95.1, "ns/op"}, {368.04, "MB/s"}, {0, "B/op"}, {0, "allocs/op"}}
	if r0.Name != "Encode/impl=codec/msg=request_tap-2" || r0.Iters != 12582910 || !reflect.DeepEqual(r0.Values, wantVals) {
		t.Errorf("run 0: %+v", r0)
	}
	if want := []Allocation{{"Encode/impl=codec/msg=request_tap", "0", "0"}}; !reflect.DeepEqual(r0.Allocations, want) {
		t.Errorf("run 0 allocations %+v", r0.Allocations)
	}
	// The allocations text is kept as written.
	if a := d.Runs[2].Allocations; len(a) != 1 || a[0].Allocs != "0.00" || a[0].Bytes != "0.50" {
		t.Errorf("run 2 allocations %+v", a)
	}
	if d.Runs[1].Config != nil || d.Runs[2].Config != nil {
		t.Errorf("runs 1-2 changed config: %+v %+v", d.Runs[1].Config, d.Runs[2].Config)
	}
	if want := []KV{{"pkg", "github.com/wirebench/wirebench/codec"}}; !reflect.DeepEqual(d.Runs[3].Config, want) {
		t.Errorf("run 3 config change %+v, want %+v", d.Runs[3].Config, want)
	}
	if want := []KV{{"note", "config deleted and added midway"}, {"quiet-steal", ""}}; !reflect.DeepEqual(d.Runs[5].Config, want) {
		t.Errorf("run 5 config change %+v, want %+v", d.Runs[5].Config, want)
	}
	if v := d.Runs[4].Values[0]; v != (Value{0.3342, "ns/op"}) {
		t.Errorf("sub-ns value %+v", v)
	}
}

// records is what benchfmt makes of a text: every result with its full
// configuration, and the unit metadata.
func records(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	r := benchfmt.NewReader(bytes.NewReader(data), "x")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			cfg := map[string]string{}
			for _, c := range rec.Config {
				cfg[c.Key] = string(c.Value)
			}
			fmt.Fprintf(&b, "%v %s %d %v\n", cfg, rec.Name, rec.Iters, rec.Values)
		case *benchfmt.UnitMetadata:
			fmt.Fprintf(&b, "unit %s %s %s\n", rec.Unit, rec.Key, rec.Value)
		default:
			t.Fatalf("%v", rec)
		}
	}
	return b.String()
}

func allocationLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "allocations ") {
			out = append(out, l)
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	raw := readSample(t)
	d1 := fromText(t, raw)
	canon := toText(t, d1)

	// Raw go test text and its canonical form mean the same to benchfmt,
	// and keep the same allocations lines.
	if a, b := records(t, raw), records(t, canon); a != b {
		t.Errorf("canonical text reads differently\nraw:\n%s\ncanonical:\n%s", a, b)
	}
	if a, b := allocationLines(raw), allocationLines(canon); !reflect.DeepEqual(a, b) {
		t.Errorf("allocations lines %q became %q", a, b)
	}

	// text → json → text is identical (for canonical text).
	j1 := toJSON(t, d1)
	d2 := fromJSON(t, j1)
	if !reflect.DeepEqual(d1, d2) {
		t.Errorf("JSON changed the doc:\n%+v\n%+v", d1, d2)
	}
	canon2 := toText(t, d2)
	if !bytes.Equal(canon, canon2) {
		t.Errorf("text → json → text differs:\n%s\n---\n%s", canon, canon2)
	}
	if !bytes.Equal(toText(t, fromText(t, canon)), canon) {
		t.Errorf("canonical text is not a fixed point")
	}
	// json → text → json is identical.
	j2 := toJSON(t, fromText(t, canon2))
	if !bytes.Equal(j1, j2) {
		t.Errorf("json → text → json differs:\n%s\n---\n%s", j1, j2)
	}
	if !json.Valid(j1) {
		t.Errorf("invalid JSON:\n%s", j1)
	}
	if !bytes.Contains(j1, []byte(`"schema": "wirebench.micro/v1"`)) || !bytes.Contains(j1, []byte(`{"unit":"allocs/op","key":"assume","value":"exact"}`)) {
		t.Errorf("JSON lacks schema or units:\n%s", j1)
	}
}

func TestCanonicalText(t *testing.T) {
	d := &Doc{Schema: Schema,
		Config: []KV{{"goos", "linux"}, {"pkg", "a"}},
		Units:  []UnitMeta{{"allocs/op", "assume", "exact"}},
		Runs: []Run{
			{Name: "A-2", Iters: 10, Values: []Value{{1e6, "ns/op"}, {2.5e-7, "x/op"}}, Allocations: []Allocation{{"A", "1", "16"}}},
			{Config: []KV{{"goos", ""}, {"pkg", "b"}}, Name: "B-2", Iters: 1, Values: []Value{{3, "ns/op"}}},
		},
	}
	want := "goos: linux\npkg: a\nUnit allocs/op assume=exact\n\n" +
		"BenchmarkA-2\t10\t1000000 ns/op\t2.5e-07 x/op\nallocations A 1 16\n" +
		"\ngoos:\npkg: b\n\nBenchmarkB-2\t1\t3 ns/op\n"
	if got := string(toText(t, d)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := fromText(t, []byte(want)); !reflect.DeepEqual(got, d) {
		t.Errorf("read back %+v\nwant %+v", got, d)
	}
}

func TestReadTextErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"BenchmarkA 10 x ns/op\n", "parsing measurement"},
		{"BenchmarkA 10 5 ns/op\nallocations A 1\n", "malformed allocations line"},
		{"BenchmarkA 10 5 ns/op\nallocations A 1 0x10\n", "malformed allocations line"},
		{"allocations A 1 2\nBenchmarkA 10 5 ns/op\n", "before any benchmark result"},
		{"BenchmarkA 10 NaN ns/op\n", "cannot be stored in JSON"},
		{"Unit ns/op assume=exact\nUnit ns/op assume=nothing\n", "already set"},
	} {
		_, err := ReadText(strings.NewReader(tc.text), "t.txt")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.text, err, tc.want)
		}
	}
	d := fromText(t, []byte("PASS\nok x 1s\n"))
	if len(d.Runs) != 0 || len(d.Config) != 0 {
		t.Errorf("no results: %+v", d)
	}
}

func TestReadJSONRejects(t *testing.T) {
	good := `{"schema":"wirebench.micro/v1","config":[{"key":"goos","value":"linux"}],"units":[],"runs":[{"name":"A-2","iters":1,"values":[{"value":1,"unit":"ns/op"}]}]}`
	fromJSON(t, []byte(good))
	for _, tc := range []struct{ old, new, want string }{
		{`"wirebench.micro/v1"`, `"wirebench.micro/v0"`, "schema"},
		{`"iters":1`, `"iters":1,"extra":2`, "unknown field"},
		{`"key":"goos"`, `"key":"GOOS"`, "not a configuration key"},
		{`"key":"goos"`, `"key":"go os"`, "not a configuration key"},
		{`"value":"linux"`, `"value":""`, "empty value"},
		{`"value":"linux"`, `"value":"a\nb"`, "one line"},
		{`"value":"linux"`, `"value":" linux"`, "white space"},
		{`"name":"A-2"`, `"name":"A 2"`, "name"},
		{`"name":"A-2"`, `"name":""`, "name"},
		{`"values":[{"value":1,"unit":"ns/op"}]`, `"values":[]`, "no values"},
		{`"unit":"ns/op"`, `"unit":""`, "unit"},
		{`"units":[]`, `"units":[{"unit":"B/op","key":"assume","value":"exact"},{"unit":"B/op","key":"assume","value":"exact"}]`, "twice"},
		{`"iters":1`, `"iters":1,"config":[{"key":"goos","value":"linux"}]`, "already has"},
		{`"iters":1`, `"iters":1,"config":[{"key":"pkg","value":""}]`, "not set"},
		{`"iters":1`, `"iters":1,"config":[{"key":"z","value":"1"},{"key":"a","value":"1"}]`, "sorted"},
		{`"iters":1`, `"iters":1,"allocations":[{"benchmark":"A","allocs":1,"bytes":1e}]`, "decoding"},
		{`"ns/op"}]}]}`, `"ns/op"}]}]} {}`, "after the document"},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good {
			t.Fatalf("replacement %q not applied", tc.old)
		}
		_, err := ReadJSON(strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\nerr %v, want %q", bad, err, tc.want)
		}
	}
}

func TestIsConfigKey(t *testing.T) {
	for k, want := range map[string]bool{"goos": true, "quiet-psi-cpu-some-avg10": true, "é": true,
		"": false, "Goos": false, "go os": false, "goOS": false, "a:b": false, "1x": false, "\xff": false} {
		if IsConfigKey(k) != want {
			t.Errorf("IsConfigKey(%q) = %v", k, !want)
		}
	}
}

// FuzzRoundTrip checks, for any text ReadText accepts, that its canonical
// form and its JSON form convert back to the same Doc and the same bytes.
func FuzzRoundTrip(f *testing.F) {
	f.Add(readSampleF(f))
	f.Add([]byte("a: 1\nBenchmarkA 1 2 ns/op\na:\nb: 2\nBenchmarkB 1 3 MB/s\nallocations B 0 0\n"))
	f.Add([]byte("c: 1\nb: 2\na: 3\nb:\nBenchmarkA 1 2 ns/op\nd: 4\nc:\nBenchmarkA 1 2 ns/op\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d1, err := ReadText(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		canon := toText(t, d1)
		d2 := fromText(t, canon)
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("canonical text reads back differently\n%q\n%+v\n%+v", canon, d1, d2)
		}
		if got := toText(t, d2); !bytes.Equal(got, canon) {
			t.Fatalf("canonical text not a fixed point\n%q\n%q", canon, got)
		}
		j := toJSON(t, d1)
		if d3 := fromJSON(t, j); !reflect.DeepEqual(d1, d3) {
			t.Fatalf("JSON reads back differently\n%s", j)
		}
	})
}

func readSampleF(f *testing.F) []byte {
	data, err := os.ReadFile("testdata/sample.txt")
	if err != nil {
		f.Fatal(err)
	}
	return data
}
