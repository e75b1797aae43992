package xpaint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// X11 request opcodes this client sends.
const (
	opCreateGC          = 55
	opChangeGC          = 56
	opCopyArea          = 62
	opPolyFillRectangle = 70
	opPutImage          = 72
	opGetInputFocus     = 43
)

// GC value-mask bits used.
const (
	gcForeground        = 1 << 2
	gcGraphicsExposures = 1 << 16
)

// Conn is one X11 connection to a display, drawing on its root window
// through one graphics context of its own. Its methods are not safe for
// concurrent use.
type Conn struct {
	c       net.Conn
	root    uint32
	gc      uint32
	maxReq  int // bytes in one request
	width   int
	height  int
	fg      int64 // the GC's foreground, -1 before the first set
	req     []byte
	timeout time.Duration
}

// ErrX11 is the kind of every error the X server reports (errors.Is).
var ErrX11 = errors.New("xpaint: X11 error")

// Error is an X11 error the server sent for a request.
type Error struct {
	Code   uint8  // the X error code (e.g. 2 BadValue, 8 BadMatch)
	Major  uint8  // the major opcode of the failed request
	Value  uint32 // the bad resource id or value
	Serial uint16 // the sequence number of the failed request
}

// Error says which request failed and why.
func (e *Error) Error() string {
	return fmt.Sprintf("xpaint: X11 error %d for request opcode %d (sequence %d, value 0x%x)", e.Code, e.Major, e.Serial, e.Value)
}

// Is matches ErrX11.
func (e *Error) Is(target error) bool { return target == ErrX11 }

// DefaultTimeout bounds the connection setup and each Sync.
const DefaultTimeout = 60 * time.Second

// Dial connects to X display display (its number, as "46", or ":46") over
// its unix socket, with no authorization, and creates the graphics context
// it draws with (graphics exposures off, so CopyArea sends no events).
func Dial(display string) (*Conn, error) {
	if len(display) > 0 && display[0] == ':' {
		display = display[1:]
	}
	path := "/tmp/.X11-unix/X" + display
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, fmt.Errorf("xpaint: display :%s: %w", display, err)
	}
	x, err := setup(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("xpaint: display :%s: %w", display, err)
	}
	return x, nil
}

// setup runs the connection setup on c and creates the GC.
func setup(c net.Conn) (*Conn, error) {
	c.SetDeadline(time.Now().Add(DefaultTimeout))
	defer c.SetDeadline(time.Time{})
	// little-endian ('l'), protocol 11.0, no authorization
	if _, err := c.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	var hdr [8]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, fmt.Errorf("setup reply: %w", err)
	}
	body := make([]byte, 4*int(binary.LittleEndian.Uint16(hdr[6:])))
	if _, err := io.ReadFull(c, body); err != nil {
		return nil, fmt.Errorf("setup reply: %w", err)
	}
	x, err := parseSetup(hdr, body)
	if err != nil {
		return nil, err
	}
	x.c = c
	return x, x.Sync() // the GC exists, or its error is returned
}

// parseSetup reads the server's setup reply (its 8-byte header and body):
// the resource id base, the largest request, the root window of the first
// screen and its pixmap format, and queues the GC's creation.
func parseSetup(hdr [8]byte, body []byte) (*Conn, error) {
	if hdr[0] != 1 {
		n := min(int(hdr[1]), len(body))
		return nil, fmt.Errorf("setup refused (status %d): %q", hdr[0], body[:n])
	}
	le := binary.LittleEndian
	if len(body) < 32 {
		return nil, fmt.Errorf("setup reply of %d bytes, want at least 32", len(body))
	}
	vendor, nscreens, nformats := int(le.Uint16(body[16:])), int(body[20]), int(body[21])
	lsb := body[22] == 0
	off := 32 + (vendor+3)&^3
	if nscreens < 1 || len(body) < off+8*nformats+40 {
		return nil, fmt.Errorf("setup reply of %d bytes too short for %d formats and %d screens", len(body), nformats, nscreens)
	}
	formats, screen := body[off:off+8*nformats], body[off+8*nformats:]
	x := &Conn{
		root:    le.Uint32(screen),
		gc:      le.Uint32(body[4:]) | 1, // the first id of ours
		maxReq:  4 * int(le.Uint16(body[18:])),
		width:   int(le.Uint16(screen[20:])),
		height:  int(le.Uint16(screen[22:])),
		fg:      -1,
		timeout: DefaultTimeout,
	}
	depth, bpp := screen[38], 0
	for i := range nformats {
		if f := formats[8*i:]; f[0] == depth {
			bpp = int(f[1])
		}
	}
	if depth != 24 || bpp != 32 || !lsb {
		return nil, fmt.Errorf("root of depth %d, %d bits a pixel, LSB first %v: xpaint draws 24/32 LSB", depth, bpp, lsb)
	}
	if x.maxReq < 4096 {
		return nil, fmt.Errorf("largest request %d bytes, xpaint needs 4096", x.maxReq)
	}
	x.req = le.AppendUint16([]byte{opCreateGC, 0}, 5)
	x.req = le.AppendUint32(x.req, x.gc)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint32(x.req, gcGraphicsExposures)
	x.req = le.AppendUint32(x.req, 0)
	return x, nil
}

// Width is the root window's width in pixels.
func (x *Conn) Width() int { return x.width }

// Height is the root window's height in pixels.
func (x *Conn) Height() int { return x.height }

// Close ends the connection; queued requests are dropped.
func (x *Conn) Close() error { return x.c.Close() }

// Fill queues a fill of the w×h rectangle at (x0, y0) in colour rgb
// (0xRRGGBB).
func (x *Conn) Fill(x0, y0, w, h int, rgb uint32) {
	le := binary.LittleEndian
	if int64(rgb) != x.fg {
		x.req = le.AppendUint16(append(x.req, opChangeGC, 0), 4)
		x.req = le.AppendUint32(x.req, x.gc)
		x.req = le.AppendUint32(x.req, gcForeground)
		x.req = le.AppendUint32(x.req, rgb)
		x.fg = int64(rgb)
	}
	x.req = le.AppendUint16(append(x.req, opPolyFillRectangle, 0), 5)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint32(x.req, x.gc)
	x.req = appendRect(x.req, x0, y0, w, h)
}

func appendRect(b []byte, x0, y0, w, h int) []byte {
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(int16(x0)))
	b = le.AppendUint16(b, uint16(int16(y0)))
	b = le.AppendUint16(b, uint16(w))
	return le.AppendUint16(b, uint16(h))
}

// CopyArea queues a copy of the w×h pixels at (sx, sy) of the root window
// to (dx, dy) (overlapping or not).
func (x *Conn) CopyArea(sx, sy, dx, dy, w, h int) {
	le := binary.LittleEndian
	x.req = le.AppendUint16(append(x.req, opCopyArea, 0), 7)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint32(x.req, x.gc)
	for _, v := range []int{sx, sy, dx, dy} {
		x.req = le.AppendUint16(x.req, uint16(int16(v)))
	}
	x.req = le.AppendUint16(x.req, uint16(w))
	x.req = le.AppendUint16(x.req, uint16(h))
}

// PutImage queues the picture rgb (w×h pixels, 3 bytes a pixel: red,
// green, blue) at (x0, y0), in strips of rows that fit the server's
// largest request. rgb must hold 3·w·h bytes.
func (x *Conn) PutImage(rgb []byte, x0, y0, w, h int) error {
	if w <= 0 || h <= 0 {
		return nil
	}
	if len(rgb) < 3*w*h {
		return fmt.Errorf("xpaint: PutImage of %dx%d from %d bytes, want %d", w, h, len(rgb), 3*w*h)
	}
	rows := (x.maxReq - 24) / (4 * w)
	if rows < 1 {
		return fmt.Errorf("xpaint: PutImage %d pixels wide: a row is beyond the server's largest request (%d bytes)", w, x.maxReq)
	}
	le := binary.LittleEndian
	for r0 := 0; r0 < h; r0 += rows {
		n := min(rows, h-r0)
		x.req = append(x.req, opPutImage, 2) // ZPixmap
		x.req = le.AppendUint16(x.req, uint16(6+w*n))
		x.req = le.AppendUint32(x.req, x.root)
		x.req = le.AppendUint32(x.req, x.gc)
		x.req = le.AppendUint16(x.req, uint16(w))
		x.req = le.AppendUint16(x.req, uint16(n))
		x.req = le.AppendUint16(x.req, uint16(int16(x0)))
		x.req = le.AppendUint16(x.req, uint16(int16(y0+r0)))
		x.req = append(x.req, 0, 24, 0, 0) // left pad, depth
		for i := 3 * r0 * w; i < 3*(r0+n)*w; i += 3 {
			x.req = append(x.req, rgb[i+2], rgb[i+1], rgb[i], 0) // pixel 0x00RRGGBB, LSB first
		}
	}
	return nil
}

// Queued is the number of request bytes waiting for Sync.
func (x *Conn) Queued() int { return len(x.req) }

// Sync sends the queued requests and a GetInputFocus, and waits for its
// reply: the server has then executed them all. It returns the first X
// error the server reported for them, if any (events are skipped).
func (x *Conn) Sync() error {
	x.req = append(x.req, opGetInputFocus, 0, 1, 0)
	req := x.req
	x.req = x.req[:0]
	x.c.SetDeadline(time.Now().Add(x.timeout))
	defer x.c.SetDeadline(time.Time{})
	if _, err := x.c.Write(req); err != nil {
		return fmt.Errorf("xpaint: send: %w", err)
	}
	var first error
	var ev [32]byte
	for {
		if _, err := io.ReadFull(x.c, ev[:]); err != nil {
			return fmt.Errorf("xpaint: waiting for the server: %w", err)
		}
		switch ev[0] {
		case 0:
			if first == nil {
				le := binary.LittleEndian
				first = &Error{Code: ev[1], Serial: le.Uint16(ev[2:]), Value: le.Uint32(ev[4:]), Major: ev[10]}
				x.fg = -1 // a failed ChangeGC leaves the foreground unknown
			}
		case 1: // a reply: GetInputFocus's is the only request with one, 32 bytes
			return first
		}
	}
}

// opGetImage is GetImage's opcode.
const opGetImage = 73

// Screen is the whole root window as GetImage reads it, 4 bytes a pixel
// (R, G, B, 0: noVNC's pixel format, as an RFB viewer of the display
// holds it), for a test to compare a viewer's pixels with.
func (x *Conn) Screen() ([]byte, error) {
	rgb, err := x.GetImage(0, 0, x.Width(), x.Height())
	if err != nil {
		return nil, err
	}
	pix := make([]byte, 0, len(rgb)/3*4)
	for i := 0; i < len(rgb); i += 3 {
		pix = append(pix, rgb[i], rgb[i+1], rgb[i+2], 0)
	}
	return pix, nil
}

// GetImage sends the queued requests, then reads back the w×h pixels at
// (x0, y0) of the root window as RGB (3 bytes a pixel): what the server
// has drawn there, for a test to compare with.
func (x *Conn) GetImage(x0, y0, w, h int) ([]byte, error) {
	if w <= 0 || h <= 0 || x0 < 0 || y0 < 0 || x0+w > x.width || y0+h > x.height {
		return nil, fmt.Errorf("xpaint: GetImage %dx%d at (%d,%d) outside the %dx%d root", w, h, x0, y0, x.width, x.height)
	}
	le := binary.LittleEndian
	x.req = le.AppendUint16(append(x.req, opGetImage, 2), 5) // ZPixmap
	x.req = le.AppendUint32(x.req, x.root)
	x.req = appendRect(x.req, x0, y0, w, h)
	x.req = le.AppendUint32(x.req, 0xffffffff) // all planes
	req := x.req
	x.req = x.req[:0]
	x.c.SetDeadline(time.Now().Add(x.timeout))
	defer x.c.SetDeadline(time.Time{})
	if _, err := x.c.Write(req); err != nil {
		return nil, fmt.Errorf("xpaint: send: %w", err)
	}
	var first error
	var ev [32]byte
	for {
		if _, err := io.ReadFull(x.c, ev[:]); err != nil {
			return nil, fmt.Errorf("xpaint: waiting for GetImage: %w", err)
		}
		switch ev[0] {
		case 0:
			e := &Error{Code: ev[1], Serial: le.Uint16(ev[2:]), Value: le.Uint32(ev[4:]), Major: ev[10]}
			x.fg = -1
			if e.Major == opGetImage {
				return nil, e
			}
			if first == nil {
				first = e
			}
		case 1:
			n := 4 * int64(le.Uint32(ev[4:]))
			if n != 4*int64(w)*int64(h) {
				return nil, fmt.Errorf("xpaint: GetImage reply of %d bytes for %dx%d pixels, want %d", n, w, h, 4*w*h)
			}
			data := make([]byte, n)
			if _, err := io.ReadFull(x.c, data); err != nil {
				return nil, fmt.Errorf("xpaint: GetImage reply: %w", err)
			}
			rgb := make([]byte, 0, 3*w*h)
			for i := 0; i < len(data); i += 4 {
				rgb = append(rgb, data[i+2], data[i+1], data[i]) // 0x00RRGGBB, LSB first
			}
			return rgb, first
		}
	}
}

// Opcodes and ids HideCursor uses.
const (
	opChangeWindowAttributes = 2
	opCreatePixmap           = 53
	opCreateCursor           = 93
	cwCursor                 = 1 << 14
)

// HideCursor queues the root window's cursor set to an invisible one (a
// 1×1 cursor whose mask is empty): Xvnc then draws no cursor into the
// framebuffer it sends a viewer that does not take the cursor apart, and
// the viewer's pixels can equal what GetImage reads.
func (x *Conn) HideCursor() {
	le := binary.LittleEndian
	base := x.gc &^ 1
	pix, gc, cur := base|2, base|3, base|4
	x.req = append(x.req, opCreatePixmap, 1) // depth 1
	x.req = le.AppendUint16(x.req, 4)
	x.req = le.AppendUint32(x.req, pix)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint16(x.req, 1)
	x.req = le.AppendUint16(x.req, 1)
	// a GC of depth 1, foreground 0, to clear it (a new pixmap's content is undefined)
	x.req = le.AppendUint16(append(x.req, opCreateGC, 0), 5)
	x.req = le.AppendUint32(x.req, gc)
	x.req = le.AppendUint32(x.req, pix)
	x.req = le.AppendUint32(x.req, gcForeground)
	x.req = le.AppendUint32(x.req, 0)
	x.req = le.AppendUint16(append(x.req, opPolyFillRectangle, 0), 5)
	x.req = le.AppendUint32(x.req, pix)
	x.req = le.AppendUint32(x.req, gc)
	x.req = appendRect(x.req, 0, 0, 1, 1)
	x.req = le.AppendUint16(append(x.req, opCreateCursor, 0), 8)
	x.req = le.AppendUint32(x.req, cur)
	x.req = le.AppendUint32(x.req, pix) // source
	x.req = le.AppendUint32(x.req, pix) // mask: all clear
	for range 6 {                       // foreground and background RGB
		x.req = le.AppendUint16(x.req, 0)
	}
	x.req = le.AppendUint16(x.req, 0) // hot spot
	x.req = le.AppendUint16(x.req, 0)
	x.req = le.AppendUint16(append(x.req, opChangeWindowAttributes, 0), 4)
	x.req = le.AppendUint32(x.req, x.root)
	x.req = le.AppendUint32(x.req, cwCursor)
	x.req = le.AppendUint32(x.req, cur)
}
