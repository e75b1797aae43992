package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
	"github.com/wirebench/wirebench/internal/testio"
)

func frameOf(t *testing.T, m codec.Message) []byte {
	t.Helper()
	f, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bigResponse returns a screenshot response whose payload is exactly size
// bytes.
func bigResponse(t *testing.T, id uint64, size int) *codec.Response {
	t.Helper()
	r := &codec.Response{ID: id, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{Width: 1, Height: 1}}
	for img := size; img >= 0; img-- {
		r.Result.(*codec.ScreenshotResult).Image = make([]byte, img)
		if n := len(mustMarshal(t, r)); n == size {
			return r
		} else if n < size {
			break
		}
	}
	t.Fatalf("no response of exactly %d bytes", size)
	return nil
}

func TestWriterLimit(t *testing.T) {
	const limit = schema.MinMaxFrame
	var out bytes.Buffer
	w := codec.NewWriter(&out, limit)
	if err := w.WriteMessage(bigResponse(t, 1, limit)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if out.Len() != limit+4 {
		t.Fatalf("wrote %d bytes", out.Len())
	}
	err := w.WriteMessage(bigResponse(t, 2, limit+1))
	var tl *codec.FrameTooLargeError
	if !errors.As(err, &tl) || tl.Size != limit+1 || tl.Limit != limit || tl.Offset != -1 || tl.Kind.Val != codec.KindResponse || tl.ID.Val != 2 {
		t.Fatalf("past the limit: %v", err)
	}
	if out.Len() != limit+4 {
		t.Fatalf("a refused message wrote %d bytes", out.Len()-limit-4)
	}
	dst := []byte{9}
	if out, err := codec.AppendFrame(dst, bigResponse(t, 3, limit+1), limit); err == nil || len(out) != 1 {
		t.Fatalf("AppendFrame past the limit: %d bytes, %v", len(out), err)
	}
}

// stream is three frames: a ping, an oversized response and a pong.
func stream(t *testing.T, limit int) ([]byte, *codec.Response) {
	big := bigResponse(t, 77, limit+1)
	var b []byte
	b = append(b, frameOf(t, &codec.Ping{Nonce: 1})...)
	b = append(b, frameOf(t, big)...)
	b = append(b, frameOf(t, &codec.Pong{Nonce: 2})...)
	return b, big
}

func TestReaderOversized(t *testing.T) {
	const limit = schema.MinMaxFrame
	b, _ := stream(t, limit)
	for name, src := range map[string]io.Reader{
		"whole":      bytes.NewReader(b),
		"one byte":   iotest.OneByteReader(bytes.NewReader(b)),
		"half reads": iotest.HalfReader(bytes.NewReader(b)),
	} {
		r := codec.NewReader(src, limit)
		m, err := readMessage(r)
		if err != nil || m.(*codec.Ping).Nonce != 1 {
			t.Fatalf("%s: first frame %v %v", name, m, err)
		}
		live := r.Live()
		_, err = r.Next()
		var oe *codec.FrameTooLargeError
		if !errors.As(err, &oe) {
			t.Fatalf("%s: %v", name, err)
		}
		if oe.Size != limit+1 || oe.Kind.Val != codec.KindResponse || oe.ID.Val != 77 || oe.Method.Val != codec.MethodScreenshot || !oe.ID.Ok {
			t.Errorf("%s: %+v", name, *oe)
		}
		if want := int64(len(frameOf(t, &codec.Ping{Nonce: 1}))); oe.Offset != want {
			t.Errorf("%s: oversized frame at offset %d, want %d", name, oe.Offset, want)
		}
		m, err = readMessage(r)
		if err != nil || m.(*codec.Pong).Nonce != 2 {
			t.Fatalf("%s: frame after the oversized one: %v %v", name, m, err)
		}
		if got := r.Live() - live; got != int64(len(frameOf(t, &codec.Pong{Nonce: 2}))) {
			t.Errorf("%s: %d live bytes across the discard", name, got)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("%s: end: %v", name, err)
		}
	}
}

func TestReaderLimitAtAndPast(t *testing.T) {
	const limit = schema.MinMaxFrame
	at := frameOf(t, bigResponse(t, 1, limit))
	r := codec.NewReader(bytes.NewReader(at), limit)
	if _, err := readMessage(r); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	past := frameOf(t, bigResponse(t, 1, limit+1))
	r = codec.NewReader(bytes.NewReader(past), limit)
	if _, err := r.Next(); !tooLarge(err) {
		t.Fatalf("past the limit: %v", err)
	}
	// SetLimit after the handshake applies to the next frame.
	r = codec.NewReader(bytes.NewReader(append(append([]byte{}, past...), past...)), schema.DefaultMaxFrame)
	if _, err := readMessage(r); err != nil {
		t.Fatal(err)
	}
	r.SetLimit(limit)
	if _, err := r.Next(); !tooLarge(err) {
		t.Fatalf("after SetLimit: %v", err)
	}
}

func TestReaderCorruptAndTruncated(t *testing.T) {
	ping := frameOf(t, &codec.Ping{Nonce: 1})
	cases := map[string][]byte{
		"truncated header":  ping[:2],
		"truncated payload": ping[:len(ping)-1],
		"corrupt header":    {0xff, 0xff, 0xff, 0xff, 0xa2, 0x00, 0x04},
	}
	for name, b := range cases {
		r := codec.NewReader(bytes.NewReader(b), schema.DefaultMaxFrame)
		_, err := r.Next()
		if tooLarge(err) {
			// A corrupt length reads as an oversized frame; its discard then
			// meets the end of the stream.
			_, err = r.Next()
		}
		var te *codec.TruncatedFrameError
		if !errors.As(err, &te) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A frame whose payload is not one item decodes to a clean error.
	bad := append(binary.BigEndian.AppendUint32(nil, 2), 0xa2, 0x00)
	r := codec.NewReader(bytes.NewReader(bad), schema.DefaultMaxFrame)
	if _, err := readMessage(r); !errors.Is(err, cbor.ErrTruncated) {
		t.Errorf("bad payload: %v", err)
	}
}

func TestSplitter(t *testing.T) {
	const limit = schema.MinMaxFrame
	b, _ := stream(t, limit)
	for _, chunk := range []int{1, 3, 7, 64, 1000, len(b)} {
		s := codec.NewSplitter(limit)
		var msgs []codec.Message
		var overs []codec.FrameTooLargeError
		discarded := 0
		for off := 0; off < len(b); {
			in := b[off:min(off+chunk, len(b))]
			for len(in) > 0 {
				st := s.Feed(in)
				in = in[st.N:]
				off += st.N
				discarded += st.Discarded
				switch st.Kind {
				case codec.GotFrame:
					m, err := codec.Decode(st.Frame.Payload)
					st.Frame.Release()
					if err != nil {
						t.Fatal(err)
					}
					msgs = append(msgs, m)
				case codec.GotOversized:
					overs = append(overs, *st.Oversized)
				}
			}
		}
		if len(msgs) != 2 || msgs[0].(*codec.Ping).Nonce != 1 || msgs[1].(*codec.Pong).Nonce != 2 {
			t.Fatalf("chunk %d: %v", chunk, msgs)
		}
		if len(overs) != 1 || overs[0].ID.Val != 77 || overs[0].Size != limit+1 || overs[0].Offset != -1 {
			t.Fatalf("chunk %d: %+v", chunk, overs)
		}
		// Every byte of the oversized frame was discarded: its header may
		// have been split, in which case the header bytes before the split
		// counted as live.
		if want := limit + 1 + 4; discarded > want || discarded < want-3 {
			t.Errorf("chunk %d: %d discarded, want %d", chunk, discarded, want)
		}
		if s.Mid() {
			t.Errorf("chunk %d: splitter mid-frame at the end", chunk)
		}
	}
}

// TestPeekEnvelope reads the envelope of every golden sample from its
// first PeekLen bytes (an oversized frame's peek) and from the whole
// payload cut short or made undecodable past its envelope.
func TestPeekEnvelope(t *testing.T) {
	for _, s := range golden.Samples() {
		b := mustMarshal(t, s.Msg)
		for _, in := range [][]byte{b[:min(len(b), schema.PeekLen)], append(bytes.Clone(b), 0xff)} {
			e := codec.PeekEnvelope(in)
			if !e.Kind.Ok || e.Kind.Val != s.Msg.Kind() {
				t.Errorf("%s: kind %+v", s.Name, e.Kind)
			}
			switch m := s.Msg.(type) {
			case *codec.Request:
				if e.ID.Val != m.ID || e.Method.Val != m.Method || !e.ID.Ok || !e.Method.Ok {
					t.Errorf("%s: %s", s.Name, e)
				}
			case *codec.Response:
				if e.ID.Val != m.ID || e.Method.Val != m.Method || !e.ID.Ok || !e.Method.Ok {
					t.Errorf("%s: %s", s.Name, e)
				}
			}
		}
	}
	if e := codec.PeekEnvelope(nil); e.Kind.Ok || e.String() != "kind unknown" {
		t.Errorf("empty peek: %s", e)
	}
	e := codec.Envelope{Kind: codec.Some(codec.KindRequest), ID: codec.Some[uint64](7), Method: codec.Some(codec.MethodTap)}
	if e.String() != "kind request, id 7, method tap" {
		t.Errorf("String: %q", e)
	}
}

// TestDecodedOutlivesRelease checks the lifetime rule: a message decoded
// from a frame stays whole after the frame is released and its buffer
// serves the next frames.
func TestDecodedOutlivesRelease(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot")
	f1 := frameOf(t, s.Msg)
	r := codec.NewReader(bytes.NewReader(bytes.Repeat(f1, 3)), schema.DefaultMaxFrame)
	f, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	m, err := codec.Decode(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	f.Release()
	for range 2 {
		g, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		clear(g.Payload)
		g.Release()
	}
	if !reflect.DeepEqual(m, s.Msg) {
		t.Fatal("the message changed with the frame's buffer")
	}
}

func TestReaderEmptyReads(t *testing.T) {
	b, _ := stream(t, schema.MinMaxFrame)
	r := codec.NewReader(testio.EmptyReads(iotest.OneByteReader(bytes.NewReader(b))), schema.MinMaxFrame)
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !tooLarge(err) {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d frames", n)
	}
}

// readMessage reads the next frame and decodes it.
func readMessage(r *codec.Reader) (codec.Message, error) {
	f, err := r.Next()
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return codec.Decode(f.Payload)
}

// tooLarge reports whether err is a *FrameTooLargeError.
func tooLarge(err error) bool {
	var e *codec.FrameTooLargeError
	return errors.As(err, &e)
}
