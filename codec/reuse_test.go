package codec_test

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"
	"unsafe"

	"github.com/wirebench/wirebench/codec"
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
	return append(in, b, twice, dense, twice, []byte{0xa1}, chain(codec.MaxNodeDepth+1), snapshotResponse([]byte{0xa5, 0, 1, 1, 0, 2, 0x84, 0, 0, 0, 0, 3, 0, 8, 0x82, 0xa0}))
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
	m, err := dec.Decode(bytes.Clone(b))
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.Clone(b)
	m, err = dec.Decode(buf)
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

// ExampleDecoder is a daemon's read loop: frames come from a
// connection, each is decoded into the Decoder's memory and released at
// once, and each message is handled before the next is read.
func ExampleDecoder() {
	var conn bytes.Buffer // stands in for a net.Conn
	w := codec.NewWriter(&conn, codec.DefaultMaxFrame)
	for i := range 3 {
		if err := w.WriteMessage(&codec.Event{Stream: codec.StreamTree, Seq: uint64(i + 1), Type: codec.TypeContentChanged,
			Body: &codec.ContentChanged{Window: 1, Node: uint32(10 + i), Change: codec.ContentText}}); err != nil {
			panic(err)
		}
	}
	r := codec.NewReader(&conn, codec.DefaultMaxFrame)
	dec := codec.NewDecoder(0)
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("read:", err)
			return
		}
		m, err := dec.Decode(f.Payload)
		f.Release() // m does not point into the frame
		if err != nil {
			fmt.Println("decode:", err)
			continue
		}
		// m is valid until the next dec.Decode: handle it here, or copy
		// what must outlive the loop's turn.
		if e, ok := m.(*codec.Event); ok {
			c := e.Body.(*codec.ContentChanged)
			fmt.Printf("event %d: node %d of window %d changed\n", e.Seq, c.Node, c.Window)
		}
	}
	// Output:
	// event 1: node 10 of window 1 changed
	// event 2: node 11 of window 1 changed
	// event 3: node 12 of window 1 changed
}
