package bench

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"runtime"
	"testing"

	"github.com/wirebench/wirebench/bench/floor"
	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/bench/twins"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// The codec benchmarks: our codec against github.com/fxamacker/cbor/v2 and
// github.com/tinylib/msgp (through one set of twins, bench/twins) on the same
// messages, in the same run, beside the floor (bench/floor: a memmove of
// the encoding for Encode, a validating walk that builds nothing for
// Decode), named so that `benchstat -col /impl` puts them side by side:
//
//	BenchmarkEncode/impl=<codec|fxamacker|msgp|floor>/msg=<name>
//	BenchmarkDecode/impl=<codec|codec-reuse|codec-tree|codec-tree-reuse|fxamacker|msgp|floor|zerocopy>/msg=<name>
//	BenchmarkFrame/op=<write|read|memmove|oversized>/msg=<name>
//
// The two implementations of a message run one after the other (siblings
// under one b.Run level), so a change in the host's state between them is
// as short as it can be. Each benchmark checks once, before timing, that
// both implementations produce the same bytes (encode) or read the same
// message (decode), and fails otherwise. After each result an
// "allocations" line (support.CountAllocs) gives the allocations and bytes
// counted around the timed loop.

// benchMsgNames are the messages of BenchmarkEncode and BenchmarkDecode:
// the golden samples first, then the seeded ones of support.Seeded.
var benchMsgNames = []string{
	"request_tap", "request_snapshot", "hello_full", "event_content_changed",
	"response_bounds_64", "response_snapshot_500", "response_snapshot_5000", "response_screenshot_256k",
}

// benchMsg is one message of the benchmarks with its encoding by us.
type benchMsg struct {
	name string
	msg  codec.Message
	enc  []byte
}

// benchMessages returns the benchmarks' messages, encoded.
func benchMessages(tb testing.TB) []benchMsg {
	tb.Helper()
	out := make([]benchMsg, len(benchMsgNames))
	for i, name := range benchMsgNames {
		out[i] = benchMessage(tb, name)
	}
	return out
}

// benchMessage builds the benchmarks' message of that name, alone, and
// encodes it.
func benchMessage(tb testing.TB, name string) benchMsg {
	tb.Helper()
	m, ok := support.SeededMessage(name)
	if !ok {
		s, found := golden.Lookup(name)
		if !found {
			tb.Fatalf("no golden sample or seeded message %s", name)
		}
		m = s.Msg
	}
	enc, err := codec.Marshal(m)
	if err != nil {
		tb.Fatalf("%s: encode: %v", name, err)
	}
	return benchMsg{name, m, enc}
}

// eachMessage runs f for each of the benchmarks' messages, holding only
// that message: it is built alone, the sinks let go of what the rows
// before left in them, and a collection runs first. So the heap a row's
// allocations make the collector mark is the row's own message and its
// twins, not every message the list holds: an allocating row's time (and
// the count's collector charge, see bench/count) does not grow when a
// large message is listed beside it. With every message held, the fresh
// decode of response_snapshot_500 took 2.05× the floor's time instead
// of 1.5× (the 5000-node snapshot's tree, live, is marked again each
// time the 500-node decodes have allocated 3 MB).
func eachMessage(b *testing.B, f func(bm benchMsg)) {
	for _, name := range benchMsgNames {
		bm := benchMessage(b, name)
		sinkMsg, sinkAny, sinkBody, sinkBytes = nil, nil, nil, nil
		runtime.GC()
		f(bm)
	}
}

// allMessages returns every golden sample and every seeded message, for
// the allocation budgets.
func allMessages(tb testing.TB) []benchMsg {
	tb.Helper()
	var out []benchMsg
	add := func(name string, m codec.Message) {
		enc, err := codec.Marshal(m)
		if err != nil {
			tb.Fatalf("%s: encode: %v", name, err)
		}
		out = append(out, benchMsg{name, m, enc})
	}
	for _, s := range golden.Samples() {
		add(s.Name, s.Msg)
	}
	for _, s := range support.Seeded() {
		add(s.Name, s.Msg)
	}
	return out
}

// Sinks keep the compiler from dropping the work of a loop.
var (
	sinkMsg   codec.Message
	sinkAny   any
	sinkBody  any
	sinkBytes []byte
)

// BenchmarkEncode encodes each message with our codec and with fxamacker.
//
// Our codec appends into a reused buffer that has room: the hot path of a
// writer that keeps its buffer between messages, as codec.Writer does.
//
// fxamacker encodes the twin structs a user of it would have as their
// data model; they are built once, outside the timed loop, because such a
// user holds the data in them already. It encodes with MarshalToBuffer
// into reused bytes.Buffers, its counterpart of our reused buffer.
// Requests and responses are encoded as a user must with fxamacker: the
// params or result twin first, into a scratch buffer, then the envelope
// twin holding those bytes as a cbor.RawMessage; both steps are inside
// the loop. (Putting the pre-encoded params in the envelope once, outside
// the loop, would time half the work.) msgp encodes the same twins
// (bench/twins) the same way: params or result into a reused scratch
// slice, then the envelope holding it as msgp.Raw, with the generated
// MarshalMsg appending to reused bytes.
//
// The floor copies the encoded bytes into a buffer of their size: the
// least an encoder that produces them can do.
func BenchmarkEncode(b *testing.B) {
	eachMessage(b, func(bm benchMsg) {
		tc, err := twins.New(bm.msg)
		if err != nil {
			b.Fatalf("%s: %v", bm.name, err)
		}
		support.Run(b, "impl=codec/msg="+bm.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(bm.enc)+64)
			out, err := codec.Append(buf, bm.msg)
			if err != nil || !bytes.Equal(out, bm.enc) {
				b.Fatalf("encode into a buffer: %v, or other bytes than Marshal", err)
			}
			checkRefEncode(b, tc, bm.enc)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				buf, err = codec.Append(buf[:0], bm.msg)
				if err != nil {
					b.Fatal(err)
				}
			}
			c.Stop()
			sinkBytes = buf
		})
		support.Run(b, "impl=fxamacker/msg="+bm.name, func(b *testing.B) {
			checkRefEncode(b, tc, bm.enc)
			var buf, scratch bytes.Buffer
			buf.Grow(2*len(bm.enc) + 64)
			scratch.Grow(2*len(bm.enc) + 64)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				if err := tc.EncodeCBOR(&buf, &scratch); err != nil {
					b.Fatal(err)
				}
			}
			c.Stop()
			sinkBytes = buf.Bytes()
		})
		support.Run(b, "impl=msgp/msg="+bm.name, func(b *testing.B) {
			mb := checkMsgp(b, tc, bm.msg)
			buf, scratch := make([]byte, 0, 2*len(mb)+64), make([]byte, 0, 2*len(mb)+64)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				if buf, scratch, err = tc.EncodeMsgp(buf, scratch); err != nil {
					b.Fatal(err)
				}
			}
			c.Stop()
			sinkBytes = buf
		})
		support.Run(b, "impl=floor/msg="+bm.name, func(b *testing.B) {
			dst := make([]byte, len(bm.enc))
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				copy(dst, bm.enc)
			}
			c.Stop()
			sinkBytes = dst
		})
	})
}

// checkMsgp fails b unless the msgp twins of msg encode to bytes that the
// twins decode back to msg; it returns those bytes.
func checkMsgp(b *testing.B, tc *twins.Case, msg codec.Message) []byte {
	b.Helper()
	enc, _, err := tc.EncodeMsgp(nil, nil)
	if err != nil {
		b.Fatalf("msgp encode: %v", err)
	}
	env, body, err := tc.DecodeMsgp(enc)
	if err != nil {
		b.Fatalf("msgp decode: %v", err)
	}
	if got, err := twins.Message(env, body); err != nil || !reflect.DeepEqual(got, msg) {
		b.Fatalf("msgp's twins read another message (%v)", err)
	}
	return enc
}

// checkRefEncode fails b unless fxamacker's encoding of the twins is ours.
func checkRefEncode(b *testing.B, tc *twins.Case, want []byte) {
	b.Helper()
	var buf, scratch bytes.Buffer
	if err := tc.EncodeCBOR(&buf, &scratch); err != nil {
		b.Fatalf("fxamacker encode: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		b.Fatalf("fxamacker encodes %d bytes, our codec %d, and they differ:\n% x\n% x", buf.Len(), len(want), head(buf.Bytes()), head(want))
	}
}

func head(b []byte) []byte { return b[:min(len(b), 64)] }

// BenchmarkDecode decodes each message's encoding with our codec and with
// fxamacker.
//
// Our codec's Decode copies its input once and returns a message that owns
// its memory: what a caller gets who keeps the message after the frame
// buffer goes back to the pool. impl=codec-reuse decodes with one
// codec.Decoder, which reuses its memory and its message from call to
// call: what a daemon's read loop gets that handles each message before
// it reads the next. impl=codec-tree (snapshot responses only) decodes
// with codec.DecodeTree, a tree the collector does not scan that owns
// its memory.
//
// fxamacker decodes into the twin structs as a user of it must: the
// envelope twin first (params or result kept as a cbor.RawMessage), then
// the params or result twin chosen by the method; for an event, a generic
// array first for the head (fxamacker decodes a toarray struct only from
// an array of exactly its length, and the length depends on the type),
// then the event twin chosen by stream and type. Every step is inside the
// loop, into new values, as a receiver that hands each message on would.
// msgp decodes its own encoding of the message (MessagePack) the same way,
// with the generated UnmarshalMsg into new twins of the same set; b.SetBytes is the CBOR
// length for every impl, so that MB/s compares the same message.
//
// The floor (floor.Walk) checks the bytes as any validating decoder must
// (well-formed, definite lengths, nesting, UTF-8 of every text) and builds
// nothing.
func BenchmarkDecode(b *testing.B) {
	eachMessage(b, func(bm benchMsg) {
		tc, err := twins.New(bm.msg)
		if err != nil {
			b.Fatalf("%s: %v", bm.name, err)
		}
		support.Run(b, "impl=codec/msg="+bm.name, func(b *testing.B) {
			checkDecode(b, tc, bm)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				m, err := codec.Decode(bm.enc)
				if err != nil {
					b.Fatal(err)
				}
				sinkMsg = m
			}
			c.Stop()
		})
		support.Run(b, "impl=codec-reuse/msg="+bm.name, func(b *testing.B) {
			dec := codec.NewDecoder(0)
			if got, err := dec.Decode(bm.enc); err != nil || !reflect.DeepEqual(got, bm.msg) {
				b.Fatalf("the reusing decoder: %v, or another message", err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				m, err := dec.Decode(bm.enc)
				if err != nil {
					b.Fatal(err)
				}
				sinkMsg = m
			}
			c.Stop()
		})
		if snapshotOf(bm.msg) != nil {
			support.Run(b, "impl=codec-tree/msg="+bm.name, func(b *testing.B) {
				checkTree(b, bm)
				b.ReportAllocs()
				b.SetBytes(int64(len(bm.enc)))
				c := support.CountAllocs(b)
				for i := 0; i < b.N; i++ {
					t, err := codec.DecodeTree(bm.enc)
					if err != nil {
						b.Fatal(err)
					}
					sinkAny = t
				}
				c.Stop()
			})
		}
		support.Run(b, "impl=fxamacker/msg="+bm.name, func(b *testing.B) {
			checkDecode(b, tc, bm)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				env, body, err := tc.DecodeCBOR(bm.enc)
				if err != nil {
					b.Fatal(err)
				}
				sinkAny, sinkBody = env, body
			}
			c.Stop()
		})
		support.Run(b, "impl=msgp/msg="+bm.name, func(b *testing.B) {
			mb := checkMsgp(b, tc, bm.msg)
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				env, body, err := tc.DecodeMsgp(mb)
				if err != nil {
					b.Fatal(err)
				}
				sinkAny, sinkBody = env, body
			}
			c.Stop()
		})
		support.Run(b, "impl=floor/msg="+bm.name, func(b *testing.B) {
			if err := floor.Walk(bm.enc); err != nil {
				b.Fatalf("the floor's walk: %v", err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.enc)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				if err := floor.Walk(bm.enc); err != nil {
					b.Fatal(err)
				}
			}
			c.Stop()
		})
		if run := zerocopyDecoder(b, bm); run != nil {
			support.Run(b, "impl=zerocopy/msg="+bm.name, func(b *testing.B) { benchZerocopy(b, bm, run) })
		}
	})
}

// snapshotOf returns the snapshot m is the response of, or nil.
func snapshotOf(m codec.Message) *codec.Snapshot {
	if r, ok := m.(*codec.Response); ok {
		if s, ok := r.Result.(*codec.Snapshot); ok {
			return s
		}
	}
	return nil
}

// checkTree fails b unless DecodeTree reads bm's bytes as a tree of
// bm's id that encodes back to them.
func checkTree(b *testing.B, bm benchMsg) {
	b.Helper()
	t, err := codec.DecodeTree(bm.enc)
	if err != nil || t.ID != bm.msg.(*codec.Response).ID {
		b.Fatalf("the tree: %v, or another response", err)
	}
	if again, err := codec.Marshal(t.Response()); err != nil || !bytes.Equal(again, bm.enc) {
		b.Fatalf("the tree encodes to other bytes (%v)", err)
	}
}

// checkDecode fails b unless both decoders read bm's bytes as bm's
// message: ours decodes to the message itself, fxamacker's twins convert
// to it (twins.Unmarshal), and the twins the benchmark's own decode path
// fills encode back to the same bytes, so that path read everything.
func checkDecode(b *testing.B, tc *twins.Case, bm benchMsg) {
	b.Helper()
	got, err := codec.Decode(bm.enc)
	if err != nil || !reflect.DeepEqual(got, bm.msg) {
		b.Fatalf("our decode: %v, or another message", err)
	}
	refGot, err := twins.Unmarshal(bm.enc)
	if err != nil || !reflect.DeepEqual(refGot, bm.msg) {
		b.Fatalf("fxamacker decode through the twins: %v, or another message", err)
	}
	env, body, err := tc.DecodeCBOR(bm.enc)
	if err != nil {
		b.Fatalf("fxamacker decode: %v", err)
	}
	again, err := twins.MarshalTwins(env, body)
	if err != nil || !bytes.Equal(again, bm.enc) {
		b.Fatalf("fxamacker's decoded twins encode back to other bytes (%v)", err)
	}
}

// loopReader reads b over and over, never ending: a steady stream of the
// frames b holds, without allocating.
type loopReader struct {
	b   []byte
	off int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.b[l.off:])
	l.off += n
	if l.off == len(l.b) {
		l.off = 0
	}
	return n, nil
}

// steadyStream returns frame repeated to at least 256 KiB, so that reads
// of the read-ahead buffer's size come back full.
func steadyStream(frame []byte) []byte {
	return bytes.Repeat(frame, max(1, (256<<10+len(frame)-1)/len(frame)))
}

// frameMsgs are the messages of BenchmarkFrame's write and read, largest
// frame first.
var frameMsgs = []string{"response_screenshot_256k", "response_snapshot_5000", "response_snapshot_500", "request_tap", "event_content_changed"}

// BenchmarkFrame measures framing, named by the message framed
// (op=<op>/msg=<name>; b.SetBytes gives the frame's length, header and
// payload):
//   - op=write: Writer.WriteMessage to io.Discard, encoding into the
//     writer's kept buffer and writing the frame in one call;
//   - op=read: Reader.Next and Frame.Release over an in-memory stream of
//     the same frame repeated, a pooled buffer per frame: one copy of the
//     payload, from the stream into the pooled buffer;
//   - op=memmove (msg=response_screenshot_256k only): a copy of the screenshot frame's
//     bytes, the yardstick of issue 4's target for op=read of that frame
//     (at least half memmove's speed);
//   - op=oversized: a stream alternating a 256 KiB screenshot frame, over
//     a 64 KiB limit, and a request_tap frame; each iteration gets the
//     *OversizedError, discards the payload and reads the next frame
//     (msg=response_screenshot_256k+request_tap; its bytes are the two
//     frames').
//
// The reads run largest frame first. The frame pool (bytebufferpool)
// recalibrates after 42 000 releases of one size class and then keeps only
// the size classes of 95 % of its releases (see poolCalibration): after
// the millions of small frames of a small-frame benchmark, every 256 KiB
// frame would get a new buffer until 42 000 of them had passed, which is
// not the steady state of a stream of large frames. Large first, each
// read benchmark sees the pool as a steady stream of its size leaves it.
func BenchmarkFrame(b *testing.B) {
	msgs := map[string]codec.Message{}
	for _, bm := range benchMessages(b) {
		msgs[bm.name] = bm.msg
	}
	frameOf := func(name string) []byte {
		f, err := codec.AppendFrame(nil, msgs[name], schema.DefaultMaxFrame)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return f
	}
	for _, name := range frameMsgs {
		m, frame := msgs[name], frameOf(name)
		msg := "/msg=" + name
		support.Run(b, "op=write"+msg, func(b *testing.B) {
			var out bytes.Buffer
			if err := codec.NewWriter(&out, schema.DefaultMaxFrame).WriteMessage(m); err != nil || !bytes.Equal(out.Bytes(), frame) {
				b.Fatalf("WriteMessage: %v, or another frame", err)
			}
			w := codec.NewWriter(io.Discard, schema.DefaultMaxFrame)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				if err := w.WriteMessage(m); err != nil {
					b.Fatal(err)
				}
			}
			c.Stop()
		})
		support.Run(b, "op=read"+msg, func(b *testing.B) {
			r := codec.NewReader(&loopReader{b: steadyStream(frame)}, schema.DefaultMaxFrame)
			f, err := r.Next()
			if err != nil || !bytes.Equal(f.Payload, frame[schema.HeaderLen:]) {
				b.Fatalf("Next: %v, or another payload", err)
			}
			f.Release()
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			c := support.CountAllocs(b)
			for i := 0; i < b.N; i++ {
				f, err := r.Next()
				if err != nil {
					b.Fatal(err)
				}
				f.Release()
			}
			c.Stop()
		})
		if len(frame) == support.ScreenshotFrameLen {
			support.Run(b, "op=memmove"+msg, func(b *testing.B) {
				dst := make([]byte, len(frame))
				b.ReportAllocs()
				b.SetBytes(int64(len(frame)))
				c := support.CountAllocs(b)
				for i := 0; i < b.N; i++ {
					copy(dst, frame)
				}
				c.Stop()
				sinkBytes = dst
			})
		}
	}
	big, next := frameOf("response_screenshot_256k"), frameOf("request_tap")
	const limit = 64 << 10
	pair := append(append([]byte(nil), big...), next...)
	support.Run(b, "op=oversized/msg=response_screenshot_256k+request_tap", func(b *testing.B) {
		r := codec.NewReader(&loopReader{b: pair}, limit)
		var oe *codec.FrameTooLargeError
		if _, err := r.Next(); !errors.As(err, &oe) || oe.Size != uint64(len(big)-schema.HeaderLen) {
			b.Fatalf("first Next: %v, want a *FrameTooLargeError for %d bytes", err, len(big)-schema.HeaderLen)
		}
		f, err := r.Next()
		if err != nil || !bytes.Equal(f.Payload, next[schema.HeaderLen:]) {
			b.Fatalf("Next after the oversized frame: %v, or another payload", err)
		}
		f.Release()
		b.ReportAllocs()
		b.SetBytes(int64(len(pair)))
		c := support.CountAllocs(b)
		for i := 0; i < b.N; i++ {
			if _, err := r.Next(); err == nil {
				b.Fatal("Next read the oversized frame")
			} else if _, ok := err.(*codec.FrameTooLargeError); !ok {
				b.Fatalf("Next: %v, want a *FrameTooLargeError", err)
			}
			f, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			f.Release()
		}
		c.Stop()
	})
}
