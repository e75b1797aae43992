package main

// `-resync`: a stream taken up mid-way (a capture started late, a dump of
// the middle of a buffer) is read from the first offset where a frame
// head and a decodable message begin.

import (
	"encoding/binary"
	"io"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// resyncReader passes on a stream from its first sync point: an offset
// where a frame header claims a payload of 1 to limit bytes, the payload
// is all there, and it decodes as a message. The bytes before it are
// skipped. It holds at most one candidate frame (header and limit bytes)
// and a read's worth more.
type resyncReader struct {
	r       io.Reader
	limit   uint32
	buf     []byte // bytes read and not passed on: buf[start:] is from stream offset skipped
	start   int
	skipped int64 // bytes dropped before buf[start]
	synced  bool
	eof     error // the error that ended r, once met while syncing
}

// newResyncReader returns a resyncReader of r for frames up to limit.
func newResyncReader(r io.Reader, limit uint32) *resyncReader {
	return &resyncReader{r: r, limit: limit}
}

// resyncChunk is how much a resyncReader reads at a time.
const resyncChunk = 32 << 10

// Read syncs first, then passes the stream on. While it looks for the
// sync point, an empty read of r is returned as one, for codec.Reader to
// count (it holds the one retry of empty reads).
func (s *resyncReader) Read(p []byte) (int, error) {
	for !s.synced {
		got, err := s.seek()
		if err != nil {
			return 0, err
		}
		if !s.synced && got == 0 {
			return 0, nil
		}
	}
	if s.start < len(s.buf) {
		n := copy(p, s.buf[s.start:])
		s.start += n
		if s.start == len(s.buf) {
			s.buf, s.start = nil, 0 // the candidate frame's memory goes
		}
		return n, nil
	}
	if s.eof != nil {
		return 0, s.eof
	}
	return s.r.Read(p)
}

// seek drops bytes until buf starts with a sync point, or reads once when
// it needs more, and says how many bytes that read got. It returns io.EOF
// (or r's error) when the stream ends before a sync point.
func (s *resyncReader) seek() (int, error) {
	for {
		b := s.buf[s.start:]
		need := schema.HeaderLen + 1
		if len(b) >= schema.HeaderLen {
			n := binary.BigEndian.Uint32(b)
			switch {
			case n == 0 || n > s.limit,
				len(b) > schema.HeaderLen && !startsMessage(b[schema.HeaderLen]):
				s.drop()
				continue
			}
			need = schema.HeaderLen + int(n)
			if len(b) >= need {
				if decodes(b[schema.HeaderLen:need]) {
					s.synced = true
					return 0, nil
				}
				s.drop()
				continue
			}
		}
		if s.eof != nil {
			if len(b) == 0 {
				return 0, s.eof
			}
			s.drop() // the candidate cannot be checked: the stream ends inside it
			continue
		}
		return s.read(need), nil
	}
}

// read reads once, with room for at least need bytes from buf[start],
// and returns the count.
func (s *resyncReader) read(need int) int {
	if s.start > 0 {
		s.buf = s.buf[:copy(s.buf, s.buf[s.start:])]
		s.start = 0
	}
	if want := need + resyncChunk; cap(s.buf) < want {
		// Grow to what the candidate needs, never more: need is at most
		// a header and limit bytes.
		nb := make([]byte, len(s.buf), max(want, 2*cap(s.buf)))
		copy(nb, s.buf)
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err != nil {
		s.eof = err
	}
	return n
}

func (s *resyncReader) drop() {
	s.start++
	s.skipped++
}

// startsMessage reports whether a payload's first byte can start a
// message: a map (requests, responses, hello, ping, pong) or an array
// (events).
func startsMessage(b byte) bool {
	major := cbor.Major(b >> 5)
	return major == cbor.MajorMap || major == cbor.MajorArray
}

// decodes reports whether payload is a whole message.
func decodes(payload []byte) bool {
	_, err := codec.Decode(payload)
	return err == nil
}
