package codec_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/allocbound"
)

// Decode's bound for any input (package doc): k·n + C.
const (
	decodeK = 24
	decodeC = 64 << 10
)

// decodeBound is the most Decode may allocate for n bytes of any input:
// its own bound, or allocbound.Hostile when that is more.
func decodeBound(n int) uint64 { return max(allocbound.Hostile(n), decodeK*uint64(n)+decodeC) }

// seedHostile adds the hostile frames' payloads, cut to their first
// 4 KiB, to f's seed corpus: the shapes, at a size a fuzzer can mutate.
func seedHostile(f *testing.F, dir string) {
	for _, frame := range allocbound.Frames(f, dir) {
		f.Add(frame[schema.HeaderLen:min(len(frame), 4<<10)])
	}
}

// FuzzDecode: any input decodes or fails with a *DecodeError inside the
// input, never panics, and allocates at most decodeBound of its size.
func FuzzDecode(f *testing.F) {
	codec.SeedGolden(f)
	seedHostile(f, "testdata/hostile")
	f.Fuzz(func(t *testing.T, b []byte) {
		var m codec.Message
		var err error
		allocbound.Check(t, "Decode", len(b), decodeBound(len(b)), func() { m, err = codec.Decode(b) })
		if err != nil {
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a DecodeError", err, err)
			}
			if de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("offset %d outside %d bytes", de.Offset, len(b))
			}
			if m != nil {
				t.Fatal("message with an error")
			}
			return
		}
		if m == nil {
			t.Fatal("nil message without an error")
		}
	})
}

// fuzzDecoder is FuzzDecoder's Decoder, shared by its inputs: each
// input is read after whatever the ones before left in it.
var fuzzDecoder = codec.NewDecoder(1 << 20)

// FuzzDecoder: a Decoder that read other inputs before reads any input
// as Decode does (the same message, or an error of the same words),
// allocates at most decodeBound of its size, and keeps at most its bound.
func FuzzDecoder(f *testing.F) {
	codec.SeedGolden(f)
	seedHostile(f, "testdata/hostile")
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := codec.Decode(b)
		var got codec.Message
		var err error
		allocbound.Check(t, "Decoder", len(b), decodeBound(len(b)), func() { got, err = fuzzDecoder.Decode(b) })
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("Decoder: %v, Decode: %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decoder read %+v, Decode %+v", got, want)
		}
		if r := fuzzDecoder.Retained(); r > 1<<20 {
			t.Fatalf("the Decoder keeps %d bytes, over its bound of 1 MiB", r)
		}
	})
}

// FuzzRoundTrip: decode → encode → decode is stable, and the second
// encoding equals the first.
func FuzzRoundTrip(f *testing.F) {
	codec.SeedGolden(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := codec.Decode(b)
		if err != nil {
			return
		}
		if _, ok := m.(*codec.UnknownKind); ok {
			return // never encoded
		}
		enc, err := codec.Marshal(m)
		if err != nil {
			// Only the encoder's own checks may refuse what decoded:
			// a result type that does not fit a repeated method, say.
			var ee *codec.EncodeError
			if !errors.As(err, &ee) {
				t.Fatalf("encode: %v", err)
			}
			return
		}
		m2, err := codec.Decode(enc)
		if err != nil {
			t.Fatalf("re-decode of %x: %v", enc, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("unstable:\n%#v\n%#v", m, m2)
		}
		enc2, err := codec.Marshal(m2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("second encoding differs: %v", err)
		}
	})
}

// chunkReader returns the stream in chunks whose sizes the fuzzer picks.
type chunkReader struct {
	b     []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// FuzzFrameReader: the Reader with random short reads and the Splitter fed
// the same stream in the same chunks deliver the same frames and oversized
// reports, and memory stays bounded by the limit.
func FuzzFrameReader(f *testing.F) {
	for _, p := range codec.GoldenPayloads(f) {
		frame := append([]byte{byte(len(p) >> 24), byte(len(p) >> 16), byte(len(p) >> 8), byte(len(p))}, p...)
		f.Add(append(frame, frame...), []byte{0, 3, 200})
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xa1}, []byte{1})
	const limit = schema.MinMaxFrame
	f.Fuzz(func(t *testing.T, stream, sizes []byte) {
		type event struct {
			payload []byte
			over    uint64
		}
		var viaReader, viaSplitter []event
		// The Reader's memory follows the bytes that came, whatever a
		// header claims (the payloads kept here are clones, one byte a
		// byte, within the bound).
		allocbound.Check(t, "Reader", len(stream), allocbound.Hostile(len(stream)), func() {
			r := codec.NewReader(&chunkReader{b: stream, sizes: sizes}, limit)
			for {
				fr, err := r.Next()
				var oe *codec.FrameTooLargeError
				if errors.As(err, &oe) {
					viaReader = append(viaReader, event{over: oe.Size})
					continue
				}
				if err != nil {
					break
				}
				if len(fr.Payload) > limit {
					t.Fatalf("payload of %d bytes over the limit", len(fr.Payload))
				}
				viaReader = append(viaReader, event{payload: bytes.Clone(fr.Payload)})
				fr.Release()
			}
		})
		s := codec.NewSplitter(limit)
		cr := &chunkReader{b: stream, sizes: sizes}
		buf := make([]byte, 300)
		for {
			n, err := cr.Read(buf)
			in := buf[:n]
			for len(in) > 0 {
				st := s.Feed(in)
				in = in[st.N:]
				switch st.Kind {
				case codec.GotFrame:
					viaSplitter = append(viaSplitter, event{payload: bytes.Clone(st.Frame.Payload)})
					st.Frame.Release()
				case codec.GotOversized:
					viaSplitter = append(viaSplitter, event{over: st.Oversized.Size})
				}
			}
			if err != nil {
				break
			}
		}
		// The Reader reports an oversized frame once its peek is in; the
		// Splitter likewise. Both agree on everything delivered.
		if len(viaReader) != len(viaSplitter) {
			t.Fatalf("reader %d events, splitter %d", len(viaReader), len(viaSplitter))
		}
		for i := range viaReader {
			if viaReader[i].over != viaSplitter[i].over || !bytes.Equal(viaReader[i].payload, viaSplitter[i].payload) {
				t.Fatalf("event %d differs", i)
			}
		}
	})
}
