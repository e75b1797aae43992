package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/testio"
)

// screenshotFrame is the frame of a screenshot response whose payload is
// exactly size bytes.
func screenshotFrame(t testing.TB, size int) []byte {
	t.Helper()
	for img := size; img >= 0; img-- {
		r := &codec.Response{ID: 9, Method: codec.MethodScreenshot, Result: &codec.ScreenshotResult{Width: 1, Height: 1, Image: make([]byte, img)}}
		f := vtFrame(t, r)
		if len(f)-schema.HeaderLen == size {
			return f
		}
		if len(f)-schema.HeaderLen < size {
			break
		}
	}
	t.Fatalf("no screenshot response of exactly %d bytes", size)
	return nil
}

// TestDecodeResync: -resync skips to the first frame head followed by a
// decodable message, says how many bytes it skipped, and decodes from
// there as -in raw would; stream offsets after it count the skipped bytes.
func TestDecodeResync(t *testing.T) {
	stream := goldenStream(t)
	_, want, _ := vtRun(t, stream, "decode")
	noise := make([]byte, 3000)
	rng := rand.New(rand.NewPCG(26, 6))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	// A header that claims a plausible payload which does not decode.
	fake := append([]byte{0, 0, 0, 6, 0xa2, 0x00, 0x04, 0x01}, 0xff, 0xff)
	tail := vtSample(t, "hello_full")
	tail = tail[len(tail)-40:]
	for name, prefix := range map[string][]byte{
		"none":                 nil,
		"a frame's tail":       tail,
		"noise":                noise,
		"a fake header":        fake,
		"all of them":          bytes.Join([][]byte{tail, fake, noise}, nil),
		"a frame's tail x 100": bytes.Repeat(tail, 100),
	} {
		in := append(append([]byte{}, prefix...), stream...)
		code, out, errs := vtRun(t, in, "decode", "-resync")
		note := fmt.Sprintf("wire decode: stdin: resync: skipped %d bytes: the first frame is at stream offset %d\n", len(prefix), len(prefix))
		if code != 0 || !bytes.Equal(out, want) || errs != note {
			t.Errorf("%s: exit %d, stderr %q (want %q), output equal %v", name, code, errs, note, bytes.Equal(out, want))
		}
	}
	// Garbage a byte a read is no stuck stream.
	var o, e bytes.Buffer
	slow := iotest.OneByteReader(bytes.NewReader(append(append([]byte{}, noise[:500]...), stream...)))
	if code := run([]string{"decode", "-resync"}, slow, &o, &e); code != 0 || !bytes.Equal(o.Bytes(), want) {
		t.Errorf("a byte a read: exit %d, %q", code, e.String())
	}
	// Stream offsets count what was skipped.
	bad := vtFrameOf([]byte{0xa2, 0x00, 0x04, 0x01, 0x01, 0x00}) // a ping whose nonce is in the wrong key
	in := bytes.Join([][]byte{tail, vtSample(t, "ping"), bad}, nil)
	code, _, errs := vtRun(t, in, "decode", "-resync")
	if wantErr := fmt.Sprintf("frame 1 at stream offset %d", len(tail)+9); code != 1 || !strings.Contains(errs, wantErr) {
		t.Errorf("offsets after resync: exit %d, %q (want %q)", code, errs, wantErr)
	}
	// With hex in.
	code, out, errs := vtRun(t, []byte(xxdOf(append(append([]byte{}, tail...), stream...))), "decode", "-in", "hex", "-resync")
	if code != 0 || !bytes.Equal(out, want) || !strings.Contains(errs, "skipped 40 bytes") {
		t.Errorf("-in hex -resync: exit %d, %q", code, errs)
	}
	// Nothing to sync to.
	code, out, errs = vtRun(t, noise, "decode", "-resync")
	if code != 1 || len(out) != 0 || !strings.Contains(errs, "resync: no frame head followed by a decodable message in the 3000 bytes from stream offset 0") {
		t.Errorf("noise alone: exit %d, %q", code, errs)
	}
}

// TestDecodeResyncLimit: a frame at -max-frame is a sync point, one byte
// over it is not.
func TestDecodeResyncLimit(t *testing.T) {
	const size = 5000
	big := screenshotFrame(t, size)
	ping := vtSample(t, "ping")
	in := bytes.Join([][]byte{{1, 2, 3}, big, ping}, nil)
	code, out, errs := vtRun(t, in, "decode", "-resync", "-max-frame", fmt.Sprint(size))
	if code != 0 || bytes.Count(out, []byte("\n")) != 2 || !strings.Contains(errs, "skipped 3 bytes") {
		t.Errorf("at the limit: exit %d, %d lines, %q", code, bytes.Count(out, []byte("\n")), errs)
	}
	code, out, errs = vtRun(t, in, "decode", "-resync", "-max-frame", fmt.Sprint(size-1))
	if skipped := fmt.Sprintf("skipped %d bytes", 3+len(big)); code != 0 || string(out) != `{"kind":"ping","nonce":1}`+"\n" || !strings.Contains(errs, skipped) {
		t.Errorf("past the limit: exit %d, %q, %q (want %s)", code, out, errs, skipped)
	}
}

// TestResyncMemory: whatever the candidate headers claim, a resyncReader
// holds at most twice a header, the limit and a read.
func TestResyncMemory(t *testing.T) {
	const limit = 64 << 10
	// Every offset a header claiming the limit, followed by a map head:
	// each candidate is read in full and fails to decode.
	var in []byte
	for range 20_000 {
		in = binary.BigEndian.AppendUint32(in, limit)
		in = append(in, 0xa1)
	}
	rs := newResyncReader(bytes.NewReader(in), limit)
	n, err := io.Copy(io.Discard, rs)
	if err != nil || n != 0 || rs.synced || rs.skipped != int64(len(in)) {
		t.Fatalf("%d bytes out, %v, synced %v, %d skipped of %d", n, err, rs.synced, rs.skipped, len(in))
	}
	if bound := 2 * (schema.HeaderLen + limit + resyncChunk); cap(rs.buf) > bound {
		t.Errorf("buffer of %d bytes, over %d", cap(rs.buf), bound)
	}
}

// TestDecodeResyncStuck: empty reads while looking for the sync point
// are counted by codec.Reader, the one retry: 100, then a clear error.
func TestDecodeResyncStuck(t *testing.T) {
	s := &testio.Stuck{R: bytes.NewReader([]byte{1, 2, 3})}
	var out, errb bytes.Buffer
	code := run([]string{"decode", "-resync"}, s, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "the input is stuck at stream offset") || s.Empty != 100 {
		t.Errorf("exit %d, %d empty reads, %q", code, s.Empty, errb.String())
	}
}

// FuzzResync: on any stream, a resyncReader passes on exactly the stream
// from the offset it skipped to, where a frame head and a decodable
// message begin; before frames it finds a sync point no later than their
// start; its buffer stays bounded.
func FuzzResync(f *testing.F) {
	f.Add([]byte{0, 0, 0, 9}, uint16(0))
	f.Add(vtSample(f, "hello_minimal")[3:], uint16(2))
	f.Fuzz(func(t *testing.T, garbage []byte, limit uint16) {
		frames := bytes.Join([][]byte{vtSample(t, "ping"), vtSample(t, "pong")}, nil)
		in := append(append([]byte{}, garbage...), frames...)
		lim := uint32(limit) + 9 // the ping fits
		rs := newResyncReader(bytes.NewReader(in), lim)
		out, err := io.ReadAll(rs)
		if err != nil {
			t.Fatal(err)
		}
		if !rs.synced || rs.skipped > int64(len(garbage)) {
			t.Fatalf("synced %v after %d bytes, the frames are at %d", rs.synced, rs.skipped, len(garbage))
		}
		if !bytes.Equal(out, in[rs.skipped:]) {
			t.Fatal("the output is not the stream from the sync point")
		}
		n := binary.BigEndian.Uint32(out)
		if n == 0 || n > lim || !decodes(out[schema.HeaderLen:schema.HeaderLen+n]) {
			t.Fatalf("no frame with a message at the sync point: % x", out[:min(len(out), 16)])
		}
		if bound := 2 * (schema.HeaderLen + int(lim) + resyncChunk); cap(rs.buf) > bound {
			t.Fatalf("buffer of %d bytes, over %d", cap(rs.buf), bound)
		}
		// The same on the garbage alone: never a sync point that does
		// not hold.
		rs = newResyncReader(bytes.NewReader(garbage), lim)
		out, _ = io.ReadAll(rs)
		if rs.synced {
			n := binary.BigEndian.Uint32(out)
			if !decodes(out[schema.HeaderLen : schema.HeaderLen+n]) {
				t.Fatal("a sync point whose message does not decode")
			}
		}
	})
}
