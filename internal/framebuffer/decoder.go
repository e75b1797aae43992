package framebuffer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/wirebench/wirebench/internal/rfb"
)

// Limits bound what a Decoder accepts. The zero value of a field means its
// default.
type Limits struct {
	MaxWidth, MaxHeight int // largest framebuffer a resize may ask for (default 8192×8192)
	MaxJPEG             int // largest Tight JPEG rectangle in bytes (default and at most 4 MiB, Tight's compact length limit)
}

func (l Limits) withDefaults() Limits {
	if l.MaxWidth <= 0 || l.MaxWidth > 65535 {
		l.MaxWidth = 8192
	}
	if l.MaxHeight <= 0 || l.MaxHeight > 65535 {
		l.MaxHeight = 8192
	}
	if l.MaxJPEG <= 0 || l.MaxJPEG > rfb.TightMaxCompactLen {
		l.MaxJPEG = rfb.TightMaxCompactLen
	}
	return l
}

// Stats counts what a Decoder decoded: messages, and rectangles by
// encoding and sub-encoding. ZRLE counts tiles by sub-encoding.
type Stats struct {
	Messages, Updates, Rects uint64

	Raw, CopyRect uint64

	ZRLE                                                    uint64 // rectangles
	ZRLERaw, ZRLESolid, ZRLEPacked, ZRLERLE, ZRLEPaletteRLE uint64 // tiles

	Tight                                                        uint64 // rectangles
	TightFill, TightJPEG, TightCopy, TightPalette, TightGradient uint64
	TightResets                                                  uint64 // zlib streams reset
	TightUncompressed                                            uint64 // basic rectangles with under 12 bytes, sent as they are

	Resizes, Pseudo, Skipped uint64 // resizes applied; other pseudo-rectangles; non-update messages skipped
}

// Rect describes a rectangle the Decoder applied to the framebuffer (not
// the pseudo-rectangles), for the caller's damage tracking.
type Rect struct {
	X, Y, W, H int
	Encoding   rfb.Encoding
	Kind       rfb.Kind // how it was sent, within its encoding
	Start, End int64    // its bytes in the stream, from its 12-byte header on (a hub can forward them as they are)
}

// TightBasic is a Tight basic rectangle's filtered pixels as its sender
// meant them, inflated: a hub that passes the rectangle on can compress
// them again as they are, without filtering the framebuffer again.
type TightBasic struct {
	Filter  byte   // 0 copy, 1 palette, 2 gradient
	Palette []byte // the palette filter's colours, 3 bytes each
	Data    []byte // the filtered pixels (palette indices, or 3 bytes a pixel)
}

// Message describes the last message Next decoded.
type Message struct {
	Type   uint8
	Offset int64 // of its first byte, after ServerInit
	Rects  int   // rectangles decoded, for a FramebufferUpdate
}

// Decoder applies a server-to-client RFB stream (everything after
// ServerInit) to a Framebuffer. It reads from its io.Reader in whatever
// pieces that gives; a message split across reads is simply waited for.
// rfb.ServerFramer splits the stream into headers and payloads (the relay's
// server filter uses the same framer); the Decoder decodes the payloads.
// After an error, every call returns it.
type Decoder struct {
	rd    *reader
	fr    rfb.ServerFramer // frames the stream: the Decoder decodes what it frames
	fb    *Framebuffer
	lim   Limits
	zrle  zstream
	tight [4]zstream
	buf   []byte // scratch for the largest rectangle so far
	tile  [64 * 64 * BytesPerPixel]byte
	pal   [256 * 3]byte // a ZRLE or Tight palette
	stats Stats
	err   error
	kind  rfb.Kind
	basic TightBasic // the Tight basic rectangle just decoded (for OnRect)

	// Skip, if set, makes the Decoder read past every pixel rectangle
	// without decoding or applying it (the same framing, by the same
	// framer, and limits as decoding, none of the work): the framebuffer keeps only the
	// screen's size, which pseudo-rectangles still change. Its zlib
	// streams are not followed, so it must be set before the first
	// rectangle and never cleared.
	Skip bool

	// OnRect, if set, is called after each rectangle is applied, with
	// where it is and how it was sent.
	OnRect func(Rect)

	// OnPseudo, if set, is called after each pseudo-rectangle (desktop
	// size, cursor, last rect, ...) is read or applied, with its bytes'
	// place in the stream (Kind is meaningless).
	OnPseudo func(Rect)

	// the current message and rectangle, for errors
	typ   uint8
	start int64
	ri    int
	rx    int
	ry    int
	rw    int
	rh    int
	enc   rfb.Encoding
}

// NewDecoder returns a Decoder that reads the server stream from src and
// applies it to fb, within lim.
func NewDecoder(src io.Reader, fb *Framebuffer, lim Limits) *Decoder {
	d := &Decoder{rd: newReader(src), fb: fb, lim: lim.withDefaults(), ri: -1}
	pf := NoVNCFormat.Bytes()
	if err := d.fr.SetPixelFormat(pf[:]); err != nil {
		panic("framebuffer: the framer refuses NoVNCFormat: " + err.Error())
	}
	d.fr.MaxCompactLen = rfb.TightMaxCompactLen // the Decoder's own bounds are finer (JPEG, zlib)
	return d
}

// Framebuffer is the framebuffer the Decoder applies updates to.
func (d *Decoder) Framebuffer() *Framebuffer { return d.fb }

// Stats returns the counters so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Offset is the number of stream bytes consumed.
func (d *Decoder) Offset() int64 { return d.rd.off }

// NextUpdate reads and applies messages up to and including the next
// FramebufferUpdate, and describes it (a viewer's read loop: other
// messages are decoded and skipped as Next does).
func (d *Decoder) NextUpdate() (Message, error) {
	for {
		m, err := d.Next()
		if err != nil || m.Type == rfb.MsgFramebufferUpdate {
			return m, err
		}
	}
}

// Buffered is the number of stream bytes read from src but not yet
// consumed: a caller that waits for src to be readable before calling
// Next must not wait while a message may already be buffered.
func (d *Decoder) Buffered() int { return d.rd.w - d.rd.r }

// Err is the error that stopped the Decoder, if any.
func (d *Decoder) Err() error { return d.err }

// fail wraps err with where it happened and stops the Decoder.
func (d *Decoder) fail(err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		d.err = err
		return err
	}
	d.err = &DecodeError{Type: d.typ, Message: d.start, Rect: d.ri, X: d.rx, Y: d.ry, W: d.rw, H: d.rh,
		Encoding: d.enc, Offset: d.rd.off, Err: err}
	return d.err
}

func (d *Decoder) failf(format string, a ...any) error { return d.fail(fmt.Errorf(format, a...)) }

// header frames the next header (rfb.ServerFramer), reading until it is
// whole, and consumes it; the caller then consumes its payload. A
// framing error is the Decoder's, with the framer's account of what.
func (d *Decoder) header() (*rfb.Header, error) {
	for {
		n, h, err := d.fr.Next(d.rd.buf[d.rd.r:d.rd.w])
		if err != nil {
			var se *rfb.ServerStreamError
			if errors.As(err, &se) {
				err = errors.New(se.Detail)
			}
			return nil, d.fail(err)
		}
		if n > 0 {
			d.rd.r += n
			d.rd.off += int64(n)
			return h, nil
		}
		if err := d.rd.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// Next reads and applies one server message. At the end of the stream,
// between messages, it returns io.EOF.
func (d *Decoder) Next() (Message, error) {
	if d.err != nil {
		return Message{}, d.err
	}
	d.start, d.ri = d.rd.off, -1
	if d.rd.r == d.rd.w {
		if err := d.rd.fill(); err != nil {
			if err == io.EOF {
				return Message{}, io.EOF // a clean end, between messages; not sticky
			}
			return Message{}, d.fail(err)
		}
	}
	d.typ = d.rd.buf[d.rd.r]
	m := Message{Type: d.typ, Offset: d.start}
	h, err := d.header()
	if err == nil {
		if d.typ == rfb.MsgFramebufferUpdate {
			m.Rects, err = d.update()
		} else { // colour map entries, cut text, a fence's payload: skipped
			err = d.rd.discard(h.Payload)
		}
	}
	if err != nil {
		return m, d.fail(err)
	}
	d.stats.Messages++
	if d.typ != rfb.MsgFramebufferUpdate {
		d.stats.Skipped++
	}
	return m, nil
}

// update applies a FramebufferUpdate's rectangles, up to the count its
// header gave or a LastRect.
func (d *Decoder) update() (int, error) {
	d.stats.Updates++
	n := 0
	for ; !d.fr.AtMessage(); n++ {
		d.ri = n
		start := d.rd.off
		if err := d.rect(); err != nil {
			return n, err
		}
		if d.enc.Pixel() {
			if d.OnRect != nil {
				d.OnRect(Rect{X: d.rx, Y: d.ry, W: d.rw, H: d.rh, Encoding: d.enc, Kind: d.kind, Start: start, End: d.rd.off})
			}
		} else if d.OnPseudo != nil {
			d.OnPseudo(Rect{X: d.rx, Y: d.ry, W: d.rw, H: d.rh, Encoding: d.enc, Start: start, End: d.rd.off})
		}
		d.stats.Rects++
	}
	d.ri = -1
	return n, nil
}

// rect applies one rectangle, its header framed and its payload read here.
func (d *Decoder) rect() error {
	h, err := d.header()
	if err != nil {
		return err
	}
	d.rx, d.ry, d.rw, d.rh, d.enc = h.X, h.Y, h.W, h.H, h.Encoding
	x, y, w, ht := d.rx, d.ry, d.rw, d.rh
	if d.enc.Pixel() && !d.fb.inside(x, y, w, ht) {
		return d.failf("rectangle outside the %dx%d framebuffer", d.fb.w, d.fb.h)
	}
	switch d.enc {
	case rfb.EncodingRaw:
		d.stats.Raw++
		d.kind = rfb.KindRaw
		if d.Skip {
			return d.rd.discard(h.Payload)
		}
		for r := y; r < y+ht; r++ {
			if err := d.rd.readFull(d.fb.row(x, r, w)); err != nil {
				return err
			}
		}
		return nil
	case rfb.EncodingCopyRect:
		d.stats.CopyRect++
		d.kind = rfb.KindCopyRect
		b, err := d.rd.next(4)
		if err != nil {
			return err
		}
		sx, sy := int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:]))
		if !d.fb.inside(sx, sy, w, ht) {
			return d.failf("CopyRect source at (%d,%d) outside the %dx%d framebuffer", sx, sy, d.fb.w, d.fb.h)
		}
		if !d.Skip {
			d.fb.copyRect(x, y, sx, sy, w, ht)
		}
		return nil
	case rfb.EncodingZRLE:
		d.stats.ZRLE++
		d.kind = rfb.KindZRLE
		return d.zrleRect(h.Payload)
	case rfb.EncodingTight:
		d.stats.Tight++
		return d.tightRect()
	case rfb.EncodingDesktopSize:
		return d.resize(w, ht)
	case rfb.EncodingExtendedDesktop: // x reason, y status; the screens (payload) are skipped
		if err := d.rd.discard(h.Payload); err != nil {
			return err
		}
		if x == 1 && y != 0 { // the server refused this client's own request: nothing changes
			d.stats.Pseudo++
			return nil
		}
		return d.resize(w, ht)
	}
	// The other pseudo-rectangles (last rect, the cursors, LED state, the
	// desktop name, QEMU key events): read past.
	d.stats.Pseudo++
	return d.rd.discard(h.Payload)
}

// resize applies a DesktopSize or ExtendedDesktopSize within the limits.
func (d *Decoder) resize(w, h int) error {
	if w > d.lim.MaxWidth || h > d.lim.MaxHeight {
		return d.failf("desktop size %dx%d beyond the limit %dx%d", w, h, d.lim.MaxWidth, d.lim.MaxHeight)
	}
	d.stats.Resizes++
	return d.fb.resize(w, h, d.lim.MaxWidth*d.lim.MaxHeight*BytesPerPixel)
}

// TightBasic returns the Tight basic rectangle just decoded, as its
// sender filtered it. It is valid only within OnRect, for a rectangle of
// kind rfb.KindTightCopy, rfb.KindTightPalette or rfb.KindTightGradient; its slices
// are the Decoder's and are reused by the next rectangle.
func (d *Decoder) TightBasic() TightBasic { return d.basic }

// scratch returns a buffer of n bytes, reused across rectangles.
func (d *Decoder) scratch(n int) []byte {
	if cap(d.buf) < n { // grow by doubling, up to the largest a rectangle may need
		most := max(3*d.lim.MaxWidth*d.lim.MaxHeight, d.lim.MaxJPEG)
		d.buf = make([]byte, n, max(n, min(2*cap(d.buf), most)))
	}
	return d.buf[:n]
}
