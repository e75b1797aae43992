package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Decode returns a message that owns its memory: it stays valid whatever
// happens to the input.
func ExampleDecode() {
	b, err := codec.Marshal(&codec.Request{ID: 7, Method: codec.MethodTap, Params: &codec.TapParams{X: 120, Y: -4}})
	if err != nil {
		panic(err)
	}
	m, err := codec.Decode(b)
	if err != nil {
		panic(err)
	}
	clear(b) // the message does not point into b
	req := m.(*codec.Request)
	tap := req.Params.(*codec.TapParams)
	fmt.Printf("request %d: %s at (%d, %d)\n", req.ID, req.Method, tap.X, tap.Y)
	// Output: request 7: tap at (120, -4)
}

// ExampleDecoder is a daemon's read loop: frames come from a
// connection, each is decoded into the Decoder's memory and released at
// once, and each message is handled before the next is read.
func ExampleDecoder() {
	var conn bytes.Buffer // stands in for a net.Conn
	w := codec.NewWriter(&conn, schema.DefaultMaxFrame)
	for i := range 3 {
		if err := w.WriteMessage(&codec.Event{Stream: codec.StreamTree, Seq: uint64(i + 1), Type: codec.TypeContentChanged,
			Body: &codec.ContentChanged{Window: 1, Node: uint32(10 + i), Change: schema.ContentText}}); err != nil {
			panic(err)
		}
	}
	r := codec.NewReader(&conn, schema.DefaultMaxFrame)
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

// DecodeTree reads a snapshot response into a Tree: one copy of the
// payload and tables without pointers, for a daemon that keeps or queues
// snapshots. Its accessors take a node's NodeRef; Walk visits every node
// depth first.
func ExampleDecodeTree() {
	b, err := codec.Marshal(&codec.Response{ID: 4, Method: codec.MethodSnapshot, Result: &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.Button"},
		Windows: []codec.Window{{ID: 3, Type: 1, Title: codec.Some("Checkout"), Root: &codec.Node{
			ID: 1, Class: 0, Bounds: codec.Bounds{Right: 1080, Bottom: 2400},
			Children: []codec.Node{
				{ID: 2, Class: 1, Text: "Pay", Flags: schema.NodeClickable},
				{ID: 3, Class: 1, Empty: codec.NodeText}, // a text present but empty
			},
		}}},
	}})
	if err != nil {
		panic(err)
	}
	t, err := codec.DecodeTree(b)
	if err != nil {
		panic(err)
	}
	clear(b) // the tree does not point into b
	w := t.Window(0)
	fmt.Printf("response %d, window %d %q, %d nodes\n", t.ID, w.ID, w.Title.Val, t.NumNodes())
	for n, level := range t.Walk() {
		fmt.Printf("%*s%d %s text=%q present=%v\n", 2*level, "", t.NodeID(n), t.String(int(t.Class(n))),
			t.Text(n, schema.KeyNodeText), t.Has(n, codec.NodeText))
	}
	// Output:
	// response 4, window 3 "Checkout", 3 nodes
	//   1 android.widget.FrameLayout text="" present=false
	//     2 android.widget.Button text="Pay" present=true
	//     3 android.widget.Button text="" present=true
}

// A decoding error says what went wrong, at which byte and in which field;
// errors.Is matches its kind.
func ExampleDecode_error() {
	b, _ := codec.Marshal(&codec.Request{ID: 7, Method: codec.MethodTap, Params: &codec.TapParams{X: 120, Y: 4}})
	b[len(b)-1] = 0x60 // y, the last item, becomes the text "": not an integer
	_, err := codec.Decode(b)
	var de *codec.DecodeError
	if errors.As(err, &de) {
		fmt.Printf("%v at byte %d in %s\n", de.Kind, de.Offset, de.Path())
	}
	fmt.Println(errors.Is(err, cbor.ErrType))
	// Output:
	// wrong type at byte 13 in request.params.y
	// true
}

// A Reader cuts a stream into frames. A frame over the limit is not
// buffered: Next reports it, with what its first bytes tell, discards its
// payload and reads on.
func ExampleReader() {
	var stream bytes.Buffer
	w := codec.NewWriter(&stream, schema.DefaultMaxFrame)
	for _, m := range []codec.Message{
		&codec.Ping{Nonce: 1},
		&codec.Response{ID: 2, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{Width: 64, Height: 64, Image: make([]byte, 8000)}},
		&codec.Pong{Nonce: 1},
	} {
		if err := w.WriteMessage(m); err != nil {
			panic(err)
		}
	}

	r := codec.NewReader(&stream, schema.MinMaxFrame) // a 4 KiB limit
	for {
		f, err := r.Next()
		var big *codec.FrameTooLargeError
		switch {
		case err == io.EOF:
			return
		case errors.As(err, &big):
			fmt.Printf("skipped %d bytes: %v\n", big.Size, big.Envelope)
			continue
		case err != nil:
			fmt.Println("read:", err)
			return
		}
		m, err := codec.Decode(f.Payload)
		f.Release() // m owns its memory
		if err != nil {
			fmt.Println("decode:", err)
			continue
		}
		fmt.Printf("%T\n", m)
	}
	// Output:
	// *codec.Ping
	// skipped 8021 bytes: kind response, id 2, method screenshot
	// *codec.Pong
}
