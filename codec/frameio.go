package codec

import (
	"io"
	"strconv"

	"github.com/wirebench/wirebench/codec/schema"
)

// Reader reads frames from an io.Reader: a loop over a Splitter, fed
// from a read-ahead buffer. A large payload is read straight into its
// pooled buffer, so it is copied once.
type Reader struct {
	r     io.Reader
	split Splitter
	rbuf  []byte
	rpos  int
	rend  int
	off   int64 // stream offset of rbuf[rpos]
	start int64 // stream offset of the current frame's header
	live  int64 // bytes that belonged to delivered frames
}

// readAhead is the size of a Reader's read-ahead buffer.
const readAhead = 32 << 10

// NewReader returns a Reader of frames from r with the given limit.
func NewReader(r io.Reader, limit uint32) *Reader {
	return &Reader{r: r, split: Splitter{limit: limit}, rbuf: make([]byte, readAhead)}
}

// SetLimit changes the limit from the next frame on.
func (r *Reader) SetLimit(limit uint32) { r.split.SetLimit(limit) }

// Offset is the number of stream bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// Live is the number of stream bytes that delivered frames: the stream
// offset less everything that fed an oversized frame's discard.
func (r *Reader) Live() int64 { return r.live }

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

// maxEmptyReads is how many empty reads in a row (no bytes, no error)
// Next accepts before it gives up with io.ErrNoProgress, as bufio does.
// It is the one retry of empty reads between a stream and its frames:
// callers need not add their own.
const maxEmptyReads = 100

// Next reads the next frame; the caller releases it (see Frame for how
// long its payload is valid). It returns io.EOF at a clean end of stream,
// a *TruncatedFrameError when the stream ends inside a frame, and a
// *FrameTooLargeError for a frame over the limit, whose payload it
// discards as it reads on at the next call.
func (r *Reader) Next() (Frame, error) {
	for empty := 0; ; {
		if r.rpos == r.rend {
			var n int
			var err error
			if room := r.split.payloadRoom(); len(room) >= readAhead/2 {
				// A large remainder: read it straight into the frame's
				// buffer, one Read at a time so that empty reads are
				// counted here as for the read-ahead (io.ReadFull would
				// spin on them for ever).
				n, err = r.r.Read(room)
				r.off += int64(n)
				if n > 0 {
					if st := r.split.filled(n); st.Kind == GotFrame {
						return r.deliver(st.Frame), nil
					}
				}
			} else {
				n, err = r.r.Read(r.rbuf)
				r.rpos, r.rend = 0, n
			}
			if n == 0 {
				if err == nil {
					if empty++; empty < maxEmptyReads {
						continue
					}
					err = io.ErrNoProgress
				}
				if err == io.EOF && r.split.Mid() {
					err = &TruncatedFrameError{Offset: r.off, What: r.split.inside()}
				}
				return Frame{}, err
			}
			empty = 0
			continue
		}
		if f, n, ok := r.split.whole(r.rbuf[r.rpos:r.rend]); ok {
			r.rpos += n
			r.off += int64(n)
			return r.deliver(f), nil
		}
		if !r.split.Mid() {
			r.start = r.off
		}
		st := r.split.feed(r.rbuf[r.rpos:r.rend])
		r.rpos += st.N
		r.off += int64(st.N)
		switch st.Kind {
		case GotFrame:
			return r.deliver(st.Frame), nil
		case GotOversized:
			e := *st.Oversized
			e.Offset = r.start
			return Frame{}, &e
		}
	}
}

func (r *Reader) deliver(f Frame) Frame {
	r.live += int64(schema.HeaderLen + len(f.Payload))
	return f
}

// Writer writes messages as frames to an io.Writer, one Write call each.
type Writer struct {
	w     io.Writer
	limit uint32
	buf   []byte
}

// NewWriter returns a Writer of frames to w with the given limit.
func NewWriter(w io.Writer, limit uint32) *Writer { return &Writer{w: w, limit: limit} }

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
