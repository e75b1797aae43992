package rfbgate

import "io"

// captureReader sits between a computer's connection and the hub's
// framebuffer.Decoder and keeps the stream bytes the decoder has not yet
// been told to let go of (release), so that the hub can forward a
// rectangle or message as Xvnc sent it (CopyRect, Tight fill and JPEG,
// cut text) instead of re-encoding it. It keeps at most captureMax bytes:
// older bytes are dropped, and bytes asks for them in vain (the hub then
// re-encodes from the framebuffer, or drops an oversized cut text).
type captureReader struct {
	src  io.Reader
	buf  []byte
	base int64 // stream offset of buf[0]
}

// captureMax bounds what a hub keeps of its stream: a Tight JPEG
// rectangle (4 MiB at most) plus the decoder's read-ahead.
const captureMax = 4<<20 + 64<<10

// Read reads from src and keeps what it read.
func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.src.Read(p)
	if n > 0 {
		if over := len(c.buf) + n - captureMax; over > 0 {
			c.drop(min(over, len(c.buf)))
		}
		c.buf = append(c.buf, p[:n]...)
		if over := len(c.buf) - captureMax; over > 0 { // one read larger than the cap
			c.drop(over)
		}
	}
	return n, err
}

// drop lets go of the first n kept bytes.
func (c *captureReader) drop(n int) {
	k := copy(c.buf, c.buf[n:])
	c.buf = c.buf[:k]
	c.base += int64(n)
}

// bytes returns the stream bytes [start, end), if all are still kept; the
// slice is valid until the next Read or release.
func (c *captureReader) bytes(start, end int64) ([]byte, bool) {
	if start < c.base || end > c.base+int64(len(c.buf)) || start > end {
		return nil, false
	}
	return c.buf[start-c.base : end-c.base], true
}

// release lets go of every byte before offset off. The buffer's memory
// is kept for the next bytes while it is small, and given back when a
// large rectangle made it grow.
func (c *captureReader) release(off int64) {
	n := off - c.base
	if n <= 0 {
		return
	}
	if n >= int64(len(c.buf)) {
		c.base += int64(len(c.buf))
		c.buf = c.buf[:0]
	} else {
		c.drop(int(n))
	}
	if cap(c.buf) > 256<<10 && len(c.buf) < 16<<10 {
		c.buf = append(make([]byte, 0, 64<<10), c.buf...)
	}
}
