package framebuffer

import (
	"errors"
	"io"
)

// ReadBufferSize is the size of the Decoder's own read buffer.
const ReadBufferSize = 16 << 10

// reader is the Decoder's buffered view of the server stream: a fixed
// buffer, refilled from src in whatever pieces src gives, and the count of
// bytes consumed (the stream offset in errors).
type reader struct {
	src  io.Reader
	buf  []byte
	r, w int
	off  int64 // bytes consumed since the first byte after ServerInit
}

func newReader(src io.Reader) *reader {
	return &reader{src: src, buf: make([]byte, ReadBufferSize)}
}

// fill reads at least one more byte into the buffer (after compacting it).
// A stream that ends is io.ErrUnexpectedEOF, or io.EOF when nothing is
// buffered (the caller decides whether that is a message boundary).
func (r *reader) fill() error {
	if r.r > 0 {
		copy(r.buf, r.buf[r.r:r.w])
		r.w -= r.r
		r.r = 0
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if n > 0 {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) && r.w > 0 {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return io.ErrNoProgress
}

// peek returns the next n bytes (n ≤ ReadBufferSize) without consuming them.
func (r *reader) peek(n int) ([]byte, error) {
	for r.w-r.r < n {
		if err := r.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return r.buf[r.r : r.r+n], nil
}

// next consumes and returns the next n bytes (n ≤ ReadBufferSize); the
// slice is valid until the next read.
func (r *reader) next(n int) ([]byte, error) {
	b, err := r.peek(n)
	if err != nil {
		return nil, err
	}
	r.r += n
	r.off += int64(n)
	return b, nil
}

// ReadByte consumes one byte.
func (r *reader) ReadByte() (byte, error) {
	if r.r == r.w {
		if err := r.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	c := r.buf[r.r]
	r.r++
	r.off++
	return c, nil
}

// readFull fills p from the stream.
func (r *reader) readFull(p []byte) error {
	for len(p) > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
		}
		n := copy(p, r.buf[r.r:r.w])
		r.r += n
		r.off += int64(n)
		p = p[n:]
	}
	return nil
}

// discard consumes n bytes without keeping them.
func (r *reader) discard(n int64) error {
	for n > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
		}
		k := int64(r.w - r.r)
		if k > n {
			k = n
		}
		r.r += int(k)
		r.off += k
		n -= k
	}
	return nil
}
