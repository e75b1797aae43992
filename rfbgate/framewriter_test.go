package rfbgate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// wsFrame is a WebSocket frame: a header for n payload bytes (masked or
// not), then the payload.
func wsFrame(rng *rand.Rand, n int, masked bool) []byte {
	b := []byte{0x82, 0}
	switch {
	case n < 126:
		b[1] = byte(n)
	case n < 1<<16:
		b[1] = 126
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b[1] = 127
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if masked {
		b[1] |= 0x80
		b = append(b, 1, 2, 3, 4)
	}
	for range n {
		b = append(b, byte(rng.Uint32()))
	}
	return b
}

// TestFrameWriter: frames of every length class written through
// coder/websocket's kind of buffered writer (header, payload, Flush) reach
// the connection unchanged and in order, each in one write when it is no
// larger than the hold (two writes without the frameWriter, once a frame
// outgrows the buffer), and nothing is held after a Flush.
func TestFrameWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 34))
	sizes := []int{0, 1, 125, 126, 127, 4000, 4082, 4083, 4096, 8000, 65535, 65536, 90000, 300000}
	for _, masked := range []bool{false, true} {
		var out bytes.Buffer
		fw := &frameWriter{w: &out}
		bw := bufio.NewWriterSize(fw, 4<<10)
		var want bytes.Buffer
		for i, n := range sizes {
			f := wsFrame(rng, n, masked)
			hl := len(f) - n
			before := fw.calls
			bw.Write(f[:hl]) // as coder/websocket: the header, the payload, a flush
			bw.Write(f[hl:])
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			want.Write(f)
			if !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Fatalf("masked=%v frame %d (%d bytes): the connection has %d bytes, not the %d written", masked, i, n, out.Len(), want.Len())
			}
			if len(fw.hold) != 0 || fw.pass != 0 {
				t.Fatalf("masked=%v frame %d (%d bytes): %d bytes held and %d to pass after Flush", masked, i, n, len(fw.hold), fw.pass)
			}
			if calls := fw.calls - before; calls != 1 {
				t.Errorf("masked=%v frame of %d bytes: %d writes, want 1", masked, len(f), calls)
			}
			var bare countWriter
			bb := bufio.NewWriterSize(&bare, 4<<10)
			bb.Write(f[:hl])
			bb.Write(f[hl:])
			bb.Flush()
			if len(f) > 4<<10 && bare.calls != 2 {
				t.Errorf("masked=%v frame of %d bytes: %d writes without the frameWriter; this test expects 2", masked, len(f), bare.calls)
			}
		}
	}
}

type countWriter struct{ calls int }

func (c *countWriter) Write(p []byte) (int, error) { c.calls++; return len(p), nil }

// TestFrameWriterSplits: a stream of frames written in pieces cut at
// every offset (in particular inside headers, and several frames in one
// write) reaches the connection unchanged; what is held at each point is
// exactly the start of a frame not yet complete.
func TestFrameWriterSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	var stream []byte
	var ends []int
	for _, n := range []int{3, 130, 0, 70000, 5000, 9, 126, 20000} {
		stream = append(stream, wsFrame(rng, n, n%2 == 1)...)
		ends = append(ends, len(stream))
	}
	for _, piece := range []int{1, 2, 3, 7, 13, 100, 4096, 5000, 65536} {
		var out bytes.Buffer
		fw := &frameWriter{w: &out}
		for off := 0; off < len(stream); off += piece {
			p := stream[off:min(off+piece, len(stream))]
			if n, err := fw.Write(p); n != len(p) || err != nil {
				t.Fatalf("piece %d at %d: Write = %d, %v", piece, off, n, err)
			}
			sent := off + len(p)
			if got := out.Len() + len(fw.hold); got != sent {
				t.Fatalf("piece %d at %d: %d bytes out and %d held, want %d in all", piece, off, out.Len(), len(fw.hold), sent)
			}
			if !bytes.Equal(out.Bytes(), stream[:out.Len()]) {
				t.Fatalf("piece %d at %d: the connection's bytes differ from the stream's", piece, off)
			}
			if len(fw.hold) > 0 {
				// what is held starts at a frame's start, and that frame has not ended
				start := out.Len()
				atStart := start == 0
				for _, e := range ends {
					if e == start {
						atStart = true
					}
					if e > start && e <= sent {
						t.Fatalf("piece %d at %d: holds %d bytes, but the frame ending at %d is complete", piece, off, len(fw.hold), e)
					}
				}
				if !atStart {
					t.Fatalf("piece %d at %d: holds bytes from %d, not a frame's start", piece, off, start)
				}
			}
		}
		if !bytes.Equal(out.Bytes(), stream) || len(fw.hold) != 0 || fw.pass != 0 {
			t.Fatalf("piece %d: %d of %d bytes out, %d held, %d to pass", piece, out.Len(), len(stream), len(fw.hold), fw.pass)
		}
	}
}

// FuzzFrameWriter: whatever bytes are written, in whatever pieces, they
// come out in order; at most frameHoldMax are held.
func FuzzFrameWriter(f *testing.F) {
	rng := rand.New(rand.NewPCG(37, 38))
	f.Add(append(wsFrame(rng, 200, false), wsFrame(rng, 5, true)...), uint16(7))
	f.Add([]byte{0x82, 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, uint16(3))
	f.Fuzz(func(t *testing.T, stream []byte, piece uint16) {
		p := int(piece%5000) + 1
		var out bytes.Buffer
		fw := &frameWriter{w: &out}
		for off := 0; off < len(stream); off += p {
			fw.Write(stream[off:min(off+p, len(stream))])
			if len(fw.hold) > frameHoldMax {
				t.Fatalf("holds %d bytes", len(fw.hold))
			}
			if !bytes.Equal(out.Bytes(), stream[:out.Len()]) {
				t.Fatal("the bytes out differ from those written")
			}
			if out.Len()+len(fw.hold) != min(off+p, len(stream)) {
				t.Fatalf("%d out and %d held of %d written", out.Len(), len(fw.hold), min(off+p, len(stream)))
			}
		}
	})
}
