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
