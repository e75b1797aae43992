package codec

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"
)

// OversizedError is returned by Reader.Next for a frame over the limit.
// Nothing of its payload is delivered; the next call to Next discards
// what is left of it and reads the following frame normally.
type OversizedError struct {
	Oversized
	Offset int64 // stream offset of the frame's header
}

// Error describes the frame and what its peek told.
func (e *OversizedError) Error() string {
	s := "codec: frame at stream offset " + strconv.FormatInt(e.Offset, 10) + " of " + strconv.FormatUint(uint64(e.Length), 10) +
		" bytes exceeds the limit of " + strconv.FormatUint(uint64(e.Limit), 10)
	if e.Kind.Ok {
		s += " (kind " + e.Kind.Val.String()
		if e.ID.Ok {
			s += ", id " + strconv.FormatUint(e.ID.Val, 10)
		}
		if e.Method.Ok {
			s += ", method " + e.Method.Val.String()
		}
		s += ")"
	}
	return s
}

// Unwrap returns ErrFrameTooLarge.
func (e *OversizedError) Unwrap() error { return ErrFrameTooLarge }

// Reader reads frames from an io.Reader. Small frames come through a
// read-ahead buffer; a large payload is read straight into its pooled
// buffer, so it is copied once.
type Reader struct {
	r     io.Reader
	limit uint32
	rbuf  []byte
	rpos  int
	rend  int
	off   int64  // stream offset of rbuf[rpos]
	skip  uint64 // bytes of an oversized payload still to discard
	live  int64  // bytes that belonged to delivered frames
}

// readAhead is the size of a Reader's read-ahead buffer.
const readAhead = 32 << 10

// NewReader returns a Reader of frames from r with the given limit.
func NewReader(r io.Reader, limit uint32) *Reader {
	return &Reader{r: r, limit: limit, rbuf: make([]byte, readAhead)}
}

// SetLimit changes the limit from the next frame on.
func (r *Reader) SetLimit(limit uint32) { r.limit = limit }

// Offset is the number of stream bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// Live is the number of stream bytes that delivered frames: the stream
// offset less everything that fed an oversized frame's discard.
func (r *Reader) Live() int64 { return r.live }

// fill reads more bytes into the read-ahead buffer; it needs at least one.
func (r *Reader) fill() error {
	if r.rpos == r.rend {
		r.rpos, r.rend = 0, 0
	} else if r.rpos > 0 {
		n := copy(r.rbuf, r.rbuf[r.rpos:r.rend])
		r.rpos, r.rend = 0, n
	}
	// A Read may return no bytes and no error: try again, a bounded number
	// of times, as bufio does.
	for range maxEmptyReads {
		n, err := r.r.Read(r.rbuf[r.rend:])
		r.rend += n
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// maxEmptyReads is how many empty reads in a row fill accepts.
const maxEmptyReads = 100

// need makes n bytes (n <= readAhead) available in the read-ahead buffer.
func (r *Reader) need(n int, what string) error {
	for r.rend-r.rpos < n {
		if err := r.fill(); err != nil {
			if err == io.EOF && r.rend-r.rpos > 0 {
				return r.truncated(what)
			}
			return err
		}
	}
	return nil
}

func (r *Reader) truncated(what string) error {
	return &TruncatedFrameError{Offset: r.off + int64(r.rend-r.rpos), What: what}
}

// TruncatedFrameError is a stream that ended inside a frame.
type TruncatedFrameError struct {
	Offset int64  // stream offset where the input ended
	What   string // what was being read
}

// Error reports where the stream ended.
func (e *TruncatedFrameError) Error() string {
	return "codec: stream ends inside " + e.What + " at offset " + strconv.FormatInt(e.Offset, 10)
}

// Unwrap returns io.ErrUnexpectedEOF.
func (e *TruncatedFrameError) Unwrap() error { return io.ErrUnexpectedEOF }

func (r *Reader) consume(n int) {
	r.rpos += n
	r.off += int64(n)
}

// Next reads the next frame. It returns io.EOF at a clean end of stream,
// a *TruncatedFrameError when the stream ends inside a frame, and an
// *OversizedError for a frame over the limit (then call Next again).
// The caller releases the frame.
func (r *Reader) Next() (Frame, error) {
	for r.skip > 0 {
		if r.rpos == r.rend {
			if err := r.fill(); err != nil {
				if err == io.EOF {
					return Frame{}, r.truncated("an oversized frame's payload")
				}
				return Frame{}, err
			}
		}
		c := min(uint64(r.rend-r.rpos), r.skip)
		r.consume(int(c))
		r.skip -= c
	}
	if err := r.need(HeaderLen, "a frame header"); err != nil {
		return Frame{}, err
	}
	start := r.off
	length := binary.BigEndian.Uint32(r.rbuf[r.rpos:])
	if length > r.limit {
		r.consume(HeaderLen)
		peek := min(int(length), PeekLen)
		if err := r.need(peek, "an oversized frame's payload"); err != nil {
			if errors.Is(err, io.EOF) {
				return Frame{}, r.truncated("an oversized frame's payload")
			}
			return Frame{}, err
		}
		e := &OversizedError{Oversized: Oversized{Length: length, Limit: r.limit}, Offset: start}
		e.Kind, e.ID, e.Method = PeekOversized(r.rbuf[r.rpos : r.rpos+peek])
		r.consume(peek)
		r.skip = uint64(length) - uint64(peek)
		return Frame{}, e
	}
	r.consume(HeaderLen)
	buf := getBuffer(int(length))
	n := int(length)
	c := min(n, r.rend-r.rpos)
	buf.B = append(buf.B, r.rbuf[r.rpos:r.rpos+c]...)
	r.consume(c)
	if rest := n - c; rest > 0 {
		if rest < readAhead/2 {
			// Small remainder: refill the read-ahead buffer, which may
			// also bring the next frames.
			for len(buf.B) < n {
				if err := r.fill(); err != nil {
					putBuffer(buf)
					if err == io.EOF {
						return Frame{}, r.truncated("a frame's payload")
					}
					return Frame{}, err
				}
				c := min(n-len(buf.B), r.rend-r.rpos)
				buf.B = append(buf.B, r.rbuf[r.rpos:r.rpos+c]...)
				r.consume(c)
			}
		} else {
			// Large remainder: read it straight into the frame's buffer.
			buf.B = buf.B[:n]
			got, err := io.ReadFull(r.r, buf.B[c:])
			r.off += int64(got)
			if err != nil {
				putBuffer(buf)
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					return Frame{}, &TruncatedFrameError{Offset: r.off, What: "a frame's payload"}
				}
				return Frame{}, err
			}
		}
	}
	r.live += int64(HeaderLen + n)
	return Frame{Payload: buf.B, buf: buf}, nil
}

// ReadMessage reads the next frame and decodes it into a message that
// owns its memory. An oversized frame is returned as *OversizedError.
func (r *Reader) ReadMessage() (Message, error) {
	f, err := r.Next()
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return f.Decode()
}

// Writer writes messages as frames to an io.Writer, one Write call each.
type Writer struct {
	w     io.Writer
	limit uint32
	buf   []byte
}

// NewWriter returns a Writer of frames to w with the given limit.
func NewWriter(w io.Writer, limit uint32) *Writer { return &Writer{w: w, limit: limit} }

// SetLimit changes the limit from the next message on.
func (w *Writer) SetLimit(limit uint32) { w.limit = limit }

// WriteMessage encodes m and writes it as one frame. A message over the
// limit is refused with a *FrameTooLargeError and nothing is written.
func (w *Writer) WriteMessage(m Message) error {
	out, err := AppendFrame(w.buf[:0], m, w.limit)
	if cap(out) <= 1<<20 {
		w.buf = out[:0] // keep buffers up to 1 MiB for the next message
	}
	if err != nil {
		return err
	}
	_, err = w.w.Write(out)
	return err
}
