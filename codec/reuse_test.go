package codec_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// reuseInputs are the payloads the Decoder tests read: every golden
// frame, the densest snapshots, a snapshot of more windows than a
// response holds in line, and some that fail.
func reuseInputs(t *testing.T) [][]byte {
	t.Helper()
	in := codec.GoldenPayloads(t)
	many := &codec.Snapshot{Strings: []string{"a", "b"}}
	for i := range 7 {
		many.Windows = append(many.Windows, codec.Window{ID: uint32(i), Title: codec.Some("w"), Root: &codec.Node{ID: 1, Text: "t"}})
	}
	for _, s := range []*codec.Snapshot{denseSnapshot(3000, true), denseSnapshot(10, false), many} {
		in = append(in, mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: s}))
	}
	dense := in[len(in)-3]
	// A response whose result key comes twice (the last wins): a
	// snapshot with texts, then one of bare nodes, which must not find
	// the first one's texts in its nodes.
	s, _ := golden.Lookup("response_snapshot")
	b := mustMarshal(t, s.Msg)
	bare := mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(10, false)})
	if b[0] != 0xa4 || b[7] != 0x03 || bare[0] != 0xa4 || bare[7] != 0x03 {
		t.Fatalf("the responses begin % x and % x", b[:8], bare[:8])
	}
	twice := append(append([]byte{0xa5}, b[1:]...), bare[7:]...)
	return append(in, b, twice, dense, twice, []byte{0xa1}, chain(schema.MaxNodeDepth+1), snapshotResponse([]byte{0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0, 8, 0x82, 0xa0}))
}

// TestDecoderReadsAsDecode: a Decoder reads every input as Decode does,
// the same message or the same error, whatever it read before: the
// inputs in order, in reverse, and each twice in a row.
func TestDecoderReadsAsDecode(t *testing.T) {
	in := reuseInputs(t)
	var order []int
	for i := range in {
		order = append(order, i)
	}
	for i := range in {
		order = append(order, len(in)-1-i, len(in)-1-i)
	}
	dec := codec.NewDecoder(0)
	for _, i := range order {
		want, wantErr := codec.Decode(in[i])
		got, err := dec.Decode(in[i])
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("input %d: Decoder %v, Decode %v", i, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %d: Decoder read %+v, Decode %+v", i, got, want)
		}
	}
}

// TestDecoderNeverPointsIntoInput: what a Decoder returns is its own
// copy: the caller's buffer may be overwritten at once.
func TestDecoderNeverPointsIntoInput(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot")
	b := mustMarshal(t, s.Msg)
	dec := codec.NewDecoder(0)
	if _, err := dec.Decode(bytes.Clone(b)); err != nil {
		t.Fatal(err)
	}
	buf := bytes.Clone(b)
	m, err := dec.Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	clear(buf)
	if !reflect.DeepEqual(m, s.Msg) {
		t.Errorf("the message changed with the caller's buffer")
	}
}

// TestDecoderRetainedBound: a Decoder keeps what a message took while it
// stays within the bound, at the bound too, and lets go of all of it
// once it passes, one byte past.
func TestDecoderRetainedBound(t *testing.T) {
	big := mustMarshal(t, &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: denseSnapshot(3000, true)})
	small, _ := golden.Lookup("response_snapshot")
	smallB := mustMarshal(t, small.Msg)
	probe := codec.NewDecoder(1 << 30)
	for range 2 {
		if _, err := probe.Decode(big); err != nil {
			t.Fatal(err)
		}
	}
	limit := probe.Retained()
	if limit < 3000*int(unsafe.Sizeof(codec.Node{})) {
		t.Fatalf("a Decoder keeps %d bytes after a snapshot of 3000 nodes", limit)
	}
	at := codec.NewDecoder(limit)
	past := codec.NewDecoder(limit - 1)
	for range 2 {
		if _, err := at.Decode(big); err != nil {
			t.Fatal(err)
		}
		if _, err := past.Decode(big); err != nil {
			t.Fatal(err)
		}
	}
	if got := at.Retained(); got != limit {
		t.Errorf("at the bound of %d bytes: %d kept", limit, got)
	}
	if got := past.Retained(); got != 0 {
		t.Errorf("past the bound of %d bytes: %d kept, want 0", limit-1, got)
	}
	// After a small message, the Decoder past the bound keeps what that
	// took: it is bounded, not disabled.
	if _, err := past.Decode(smallB); err != nil {
		t.Fatal(err)
	}
	if got := past.Retained(); got == 0 || got > limit-1 {
		t.Errorf("after a small snapshot: %d kept, want some, at most %d", got, limit-1)
	}
}

// requestsOffTheFastPath are requests the general decoder reads, not the
// canonical fast path: keys out of order, params before the method, an
// unknown method, an evict list longer than a one-byte head holds, a
// repeated params key and a repeated evict key.
func requestsOffTheFastPath(t *testing.T) [][]byte {
	t.Helper()
	long := make([]uint32, 30)
	for i := range long {
		long[i] = uint32(1000 + i)
	}
	return [][]byte{
		{0xa4, 0x00, 0x02, 0x02, 0x03, 0x01, 0x07, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06},                                           // tap, method before id
		{0xa4, 0x00, 0x02, 0x01, 0x08, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06, 0x02, 0x03},                                           // tap, params before method
		{0xa4, 0x00, 0x02, 0x01, 0x09, 0x02, 0x18, 0x63, 0x03, 0xa1, 0x00, 0x01},                                                 // method 99
		mustMarshal(t, &codec.Request{ID: 10, Method: codec.MethodSnapshot, Params: &codec.SnapshotParams{Evict: long}}),         // evict of 30
		{0xa5, 0x00, 0x02, 0x01, 0x0b, 0x02, 0x01, 0x03, 0xa1, 0x04, 0x82, 0x01, 0x02, 0x03, 0xa1, 0x04, 0x83, 0x03, 0x04, 0x05}, // params twice
		{0xa4, 0x00, 0x02, 0x01, 0x0c, 0x02, 0x02, 0x03, 0xa2, 0x00, 0x82, 0x01, 0x02, 0x00, 0x81, 0x03},                         // bounds, nodes twice
	}
}

// TestDecoderReadsRequestsAsDecode: a Decoder reads each request as
// Decode does after any other request, of its method or another, with
// the fast path and the general decoder: no field of the last request
// (its deadline, an optional param, an evict list) leaks into the next.
func TestDecoderReadsRequestsAsDecode(t *testing.T) {
	var in [][]byte
	for _, b := range codec.GoldenPayloads(t) {
		if m, err := codec.Decode(b); err == nil {
			if _, ok := m.(*codec.Request); ok {
				in = append(in, b)
			}
		}
	}
	in = append(in, requestsOffTheFastPath(t)...)
	if len(in) < 30 {
		t.Fatalf("%d requests", len(in))
	}
	dec := codec.NewDecoder(0)
	for _, a := range in {
		for _, b := range in {
			for _, x := range [][]byte{a, b} {
				want, wantErr := codec.Decode(x)
				got, err := dec.Decode(x)
				if err != nil || wantErr != nil {
					t.Fatalf("% x: Decoder %v, Decode %v", x, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("% x after % x: Decoder read %+v (%+v), Decode %+v (%+v)", x, a, got, got.(*codec.Request).Params, want, want.(*codec.Request).Params)
				}
			}
		}
	}
}

// TestDecoderRequestSurvivesCaller: what a caller does to the request a
// Decoder returned (it sets every field, drops the params) does not
// reach the next request of that method.
func TestDecoderRequestSurvivesCaller(t *testing.T) {
	for _, name := range []string{"request_tap", "request_snapshot_evict_windows", "request_swipe_rest", "request_deadline"} {
		s, _ := golden.Lookup(name)
		b := mustMarshal(t, s.Msg)
		dec := codec.NewDecoder(0)
		for _, spoil := range []func(r *codec.Request){
			func(r *codec.Request) { r.Params = nil },
			func(r *codec.Request) { r.Params = &codec.KeyParams{Keycode: 5} },
			func(r *codec.Request) {
				r.ID, r.Method, r.DeadlineMS = 99, codec.MethodKey, codec.Some[uint32](1)
				switch p := r.Params.(type) {
				case *codec.TapParams:
					p.X = -1
				case *codec.SnapshotParams:
					p.Evict, p.MaxDepth = append(p.Evict, 1), codec.Some[uint32](2)
					p.Evict[0] = 2
				case *codec.SwipeParams:
					p.RestMS = codec.Opt[uint32]{}
				}
			},
		} {
			m, err := dec.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			spoil(m.(*codec.Request))
			if m, err = dec.Decode(b); err != nil || !reflect.DeepEqual(m, s.Msg) {
				t.Fatalf("%s after the caller changed the last one: %+v, %v", name, m, err)
			}
		}
	}
}
