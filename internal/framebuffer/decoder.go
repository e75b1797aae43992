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
	Kind       Kind  // how it was sent, within its encoding
	Start, End int64 // its bytes in the stream, from its 12-byte header on (a hub can forward them as they are)
}

// Kind says how a rectangle's pixels were sent.
type Kind uint8

// Kinds of rectangle.
const (
	KindRaw Kind = iota
	KindCopyRect
	KindZRLE
	KindTightFill
	KindTightJPEG
	KindTightCopy
	KindTightPalette
	KindTightGradient
)

// TightBasic is a Tight basic rectangle's filtered pixels as its sender
// meant them, inflated: a hub that passes the rectangle on can compress
// them again as they are, without filtering the framebuffer again.
type TightBasic struct {
	Filter  byte   // 0 copy, 1 palette, 2 gradient
	Palette []byte // the palette filter's colours, 3 bytes each
	Data    []byte // the filtered pixels (palette indices, or 3 bytes a pixel)
}

// NumKinds is the number of Kinds (for arrays indexed by Kind).
const NumKinds = int(KindTightGradient) + 1

// Message describes the last message Next decoded.
type Message struct {
	Type   uint8
	Offset int64 // of its first byte, after ServerInit
	Rects  int   // rectangles decoded, for a FramebufferUpdate
}

// Decoder applies a server-to-client RFB stream (everything after
// ServerInit) to a Framebuffer. It reads from its io.Reader in whatever
// pieces that gives; a message split across reads is simply waited for.
// After an error, every call returns it.
type Decoder struct {
	rd    *reader
	fb    *Framebuffer
	lim   Limits
	zrle  zstream
	tight [4]zstream
	buf   []byte // scratch for the largest rectangle so far
	tile  [64 * 64 * BytesPerPixel]byte
	pal   [256 * 3]byte // a ZRLE or Tight palette
	stats Stats
	err   error
	kind  Kind
	basic TightBasic // the Tight basic rectangle just decoded (for OnRect)

	// Skip, if set, makes the Decoder read past every pixel rectangle
	// without decoding or applying it (the same framing and limits as
	// decoding, none of the work): the framebuffer keeps only the
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
	return &Decoder{rd: newReader(src), fb: fb, lim: lim.withDefaults(), ri: -1}
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
	var err error
	switch d.typ {
	case rfb.MsgFramebufferUpdate:
		m.Rects, err = d.update()
	case rfb.MsgSetColourMapEntries: // pad, u16 first, u16 count, 6 bytes a colour
		var b []byte
		if b, err = d.rd.next(6); err == nil {
			err = d.rd.discard(6 * int64(binary.BigEndian.Uint16(b[4:])))
		}
	case rfb.MsgBell, rfb.MsgEndOfContinuousUpdates:
		_, err = d.rd.next(1)
	case rfb.MsgServerCutText: // 3 pad, s32 length (negative: extended clipboard, |length| bytes)
		var b []byte
		if b, err = d.rd.next(8); err == nil {
			n := int64(int32(binary.BigEndian.Uint32(b[4:])))
			if n < 0 {
				n = -n
			}
			err = d.rd.discard(n)
		}
	case rfb.MsgServerFence: // 3 pad, u32 flags, u8 length, payload
		var b []byte
		if b, err = d.rd.next(9); err == nil {
			if b[8] > rfb.MaxFencePayload {
				return m, d.failf("fence payload of %d bytes, RFB allows %d", b[8], rfb.MaxFencePayload)
			}
			err = d.rd.discard(int64(b[8]))
		}
	case rfb.MsgXvp: // pad, version, code
		_, err = d.rd.next(4)
	default:
		return m, d.failf("unknown server message type %d", d.typ)
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

// update applies a FramebufferUpdate: pad, u16 count, then rectangles.
func (d *Decoder) update() (int, error) {
	b, err := d.rd.next(4)
	if err != nil {
		return 0, err
	}
	n := int(binary.BigEndian.Uint16(b[2:]))
	d.stats.Updates++
	for i := range n {
		d.ri = i
		start := d.rd.off
		last, err := d.rect()
		if err != nil {
			return i, err
		}
		if d.enc.Pixel() {
			if d.OnRect != nil {
				d.OnRect(Rect{X: d.rx, Y: d.ry, W: d.rw, H: d.rh, Encoding: d.enc, Kind: d.kind, Start: start, End: d.rd.off})
			}
		} else if d.OnPseudo != nil {
			d.OnPseudo(Rect{X: d.rx, Y: d.ry, W: d.rw, H: d.rh, Encoding: d.enc, Start: start, End: d.rd.off})
		}
		d.stats.Rects++
		if last {
			return i + 1, nil
		}
	}
	d.ri = -1
	return n, nil
}

// rect applies one rectangle; last reports a LastRect.
func (d *Decoder) rect() (last bool, err error) {
	b, err := d.rd.next(12)
	if err != nil {
		return false, err
	}
	d.rx, d.ry = int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:]))
	d.rw, d.rh = int(binary.BigEndian.Uint16(b[4:])), int(binary.BigEndian.Uint16(b[6:]))
	d.enc = rfb.Encoding(binary.BigEndian.Uint32(b[8:]))
	x, y, w, h := d.rx, d.ry, d.rw, d.rh
	if d.enc.Pixel() && !d.fb.inside(x, y, w, h) {
		return false, d.failf("rectangle outside the %dx%d framebuffer", d.fb.w, d.fb.h)
	}
	switch d.enc {
	case rfb.EncodingRaw:
		d.stats.Raw++
		d.kind = KindRaw
		if d.Skip {
			return false, d.rd.discard(int64(w) * int64(h) * BytesPerPixel)
		}
		for r := y; r < y+h; r++ {
			if err := d.rd.readFull(d.fb.row(x, r, w)); err != nil {
				return false, err
			}
		}
		return false, nil
	case rfb.EncodingCopyRect:
		d.stats.CopyRect++
		d.kind = KindCopyRect
		b, err := d.rd.next(4)
		if err != nil {
			return false, err
		}
		sx, sy := int(binary.BigEndian.Uint16(b)), int(binary.BigEndian.Uint16(b[2:]))
		if !d.fb.inside(sx, sy, w, h) {
			return false, d.failf("CopyRect source at (%d,%d) outside the %dx%d framebuffer", sx, sy, d.fb.w, d.fb.h)
		}
		if !d.Skip {
			d.fb.copyRect(x, y, sx, sy, w, h)
		}
		return false, nil
	case rfb.EncodingZRLE:
		d.stats.ZRLE++
		d.kind = KindZRLE
		return false, d.zrleRect()
	case rfb.EncodingTight:
		d.stats.Tight++
		return false, d.tightRect()
	case rfb.EncodingDesktopSize:
		return false, d.resize(w, h)
	case rfb.EncodingExtendedDesktop: // x reason, y status; u8 screens, 3 pad, 16 bytes a screen
		b, err := d.rd.next(4)
		if err != nil {
			return false, err
		}
		if err := d.rd.discard(16 * int64(b[0])); err != nil {
			return false, err
		}
		if x == 1 && y != 0 { // the server refused this client's own request: nothing changes
			d.stats.Pseudo++
			return false, nil
		}
		return false, d.resize(w, h)
	case rfb.EncodingLastRect:
		d.stats.Pseudo++
		return true, nil
	case rfb.EncodingCursor: // pixels, then a bitmask with rows padded to bytes
		d.stats.Pseudo++
		return false, d.rd.discard(int64(w)*int64(h)*BytesPerPixel + int64((w+7)/8)*int64(h))
	case rfb.EncodingVMwareCursor: // u8 type, pad
		d.stats.Pseudo++
		b, err := d.rd.next(2)
		if err != nil {
			return false, err
		}
		switch b[0] {
		case 0: // AND and XOR masks in the pixel format
			return false, d.rd.discard(2 * int64(w) * int64(h) * BytesPerPixel)
		case 1: // RGBA
			return false, d.rd.discard(4 * int64(w) * int64(h))
		}
		return false, d.failf("VMware cursor type %d (0 and 1 exist)", b[0])
	case rfb.EncodingQEMULEDState:
		d.stats.Pseudo++
		_, err := d.rd.next(1)
		return false, err
	case rfb.EncodingDesktopName: // u32 length, UTF-8
		d.stats.Pseudo++
		b, err := d.rd.next(4)
		if err != nil {
			return false, err
		}
		return false, d.rd.discard(int64(binary.BigEndian.Uint32(b)))
	case rfb.EncodingQEMUExtendedKey:
		d.stats.Pseudo++
		return false, nil
	}
	return false, d.failf("encoding %d is not one this decoder knows", d.enc)
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
// kind KindTightCopy, KindTightPalette or KindTightGradient; its slices
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
