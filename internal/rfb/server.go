package rfb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
)

// The server-to-client stream after ServerInit, framed: split into message
// headers, rectangle headers and the headers inside a Tight rectangle, each
// followed by a payload whose length the header gives. ServerFramer does
// the splitting once for glass: the relay's server filter passes or drops
// the bytes it frames, framebuffer.Decoder decodes them.

// MaxServerHeader is the longest header ServerFramer.Next reads: a caller
// that holds fewer bytes than this may have to wait for more.
const MaxServerHeader = 16

// DefaultMaxCompactLen is the most bytes a Tight compact length may claim
// (JPEG or zlib data of one rectangle) unless ServerFramer.MaxCompactLen
// says otherwise. Xvnc, like every Tight encoder, splits what is not a
// solid fill into rectangles of at most 65,536 pixels, at most 256 KiB
// before compression; 1 MiB leaves four times that for JPEG's and zlib's
// worst cases. A compact length can say up to 4 MiB - 1; more than the
// limit is taken for a stream out of step.
const DefaultMaxCompactLen = 1 << 20

// Part is what a header ServerFramer.Next framed is.
type Part uint8

// Parts of the server stream.
const (
	PartMessage      Part = iota + 1 // a message's header (Header.Type); a FramebufferUpdate's announces Header.Rects rectangles
	PartRect                         // a rectangle's 12-byte header and what its encoding adds (a length, a count, a type)
	PartTightControl                 // a Tight rectangle's compression control byte (Header.Control)
	PartTightFilter                  // a Tight basic rectangle's filter id
	PartTightPalette                 // the palette filter's size byte (Header.Colours); the palette follows
	PartTightLength                  // a compact length: Header.Payload bytes of JPEG or zlib data follow
)

// Kind says how a rectangle was sent: its encoding and, for Tight, its
// sub-encoding (basic compression by filter).
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
	KindPseudo // a pseudo-encoding (cursor, desktop size, ...)
	NumKinds   // the number of Kinds, for arrays indexed by Kind
)

// Header is what ServerFramer.Next framed: the header, where it is, and
// the payload that follows it.
type Header struct {
	Part    Part
	Type    uint8 // the message's type
	Message int64 // offset of the message's first byte (after ServerInit)
	Offset  int64 // offset of this header's first byte
	Payload int64 // bytes after the header, before the next one

	Rects int // FramebufferUpdate: the rectangles it announces (a LastRect may end it sooner)

	// The rectangle (PartRect and the Tight parts): its index in the
	// update, the offset of its 12-byte header, where it is and how it is
	// sent. Kind is known once a header has said it (KindSet on that one).
	Rect       int
	RectOffset int64
	X, Y, W, H int
	Encoding   Encoding
	Kind       Kind
	KindSet    bool

	// Tight: the control byte; for the palette filter its colours; for
	// basic compression the size of the filtered pixels before compression
	// (under TightMinCompress they come as they are, in the payload of the
	// control, filter or palette header; from it on after a PartTightLength).
	Control byte
	Colours int
	Data    int64

	// ServerCutText: the extended clipboard's form and its flags (read as
	// part of the header; Payload is the rest).
	Extended bool
	Flags    uint32
}

// ErrServerStream is the kind of every ServerFramer error; errors.Is works.
var ErrServerStream = errors.New("server message that cannot be framed")

// ServerStreamError says what in the server's stream could not be framed,
// and where.
type ServerStreamError struct {
	Type   uint8  // the message type
	Offset int64  // offset of the message's first byte in the server stream (after ServerInit)
	Where  string // within the message, when not at its start ("rectangle at server byte 5: ")
	Detail string // what
}

// Error reports what and where.
func (e *ServerStreamError) Error() string {
	return fmt.Sprintf("rfb: %v: server message type %d at server byte %d: %s%s", ErrServerStream, e.Type, e.Offset, e.Where, e.Detail)
}

// Is matches ErrServerStream.
func (e *ServerStreamError) Is(target error) bool { return target == ErrServerStream }

type framerState uint8

const (
	atMessage framerState = iota // at a message boundary
	atRect                       // inside a FramebufferUpdate, at a rectangle
	atTight                      // inside a Tight rectangle, at its next header
	failed
)

// tightPhase is the next header of a Tight rectangle.
type tightPhase uint8

const (
	tightControl tightPhase = iota // the compression control byte
	tightFilter                    // the filter id byte
	tightPalette                   // the palette's size byte (colours-1)
	tightLength                    // a compact length, then that many bytes
)

// ServerFramer is a resumable framer of the server-to-client RFB stream
// after ServerInit: every message type Xvnc 1.12 sends to noVNC, and
// rectangles of Raw, CopyRect, ZRLE and Tight (its fill, JPEG and basic
// sub-encodings with the copy, palette and gradient filters, its compact
// lengths) and the pseudo-encodings whose payloads have a known shape
// (desktop size and name, extended desktop size, last rect, the two
// cursors, QEMU key events and LED state). It never decodes pixels and
// holds no payload: each call frames one header from the bytes it is
// given, and says how many payload bytes follow it.
//
// A Tight rectangle is a chain of short headers (control byte, filter id,
// palette size, compact length), each followed by a payload (the fill
// pixel, the palette with small data after it, the compressed data), so
// memory stays bounded whatever a length claims.
//
// The zero value frames once SetPixelFormat has given it a pixel format.
// Next runs on one goroutine; SetPixelFormat may be called from another.
// It does not allocate but for an error.
type ServerFramer struct {
	// MaxCompactLen bounds a Tight compact length; 0 means
	// DefaultMaxCompactLen.
	MaxCompactLen int64

	pixel  atomic.Uint32 // of the client's pixel format: bytes per pixel, and Tight's TPIXEL size << 8
	state  framerState
	tphase tightPhase
	rects  int   // rectangles left in the update
	off    int64 // offset of the next header
	bpp    int64 // the rectangle's sizes, from the pixel format when it began
	tpixel int64
	h      Header
	err    error
}

// SetPixelFormat records the client's pixel format (16 bytes, as in
// SetPixelFormat and ServerInit): Raw and cursor rectangles are sized by
// its bits per pixel, which must be 8, 16 or 32, Tight's pixels by the
// whole format (TPixelSize). Call it only between updates (a rectangle in
// flight keeps the sizes it began with).
func (f *ServerFramer) SetPixelFormat(pf []byte) error {
	if len(pf) < 16 {
		return fmt.Errorf("rfb: pixel format of %d bytes, want 16", len(pf))
	}
	switch pf[0] {
	case 8, 16, 32:
	default:
		return fmt.Errorf("rfb: pixel format of %d bits per pixel; 8, 16 or 32 are framed", pf[0])
	}
	if why := TightPixelFormatOK(pf); why != "" {
		return fmt.Errorf("rfb: pixel format not framed: %s", why)
	}
	f.pixel.Store(uint32(pf[0]/8) | uint32(TPixelSize(pf))<<8)
	return nil
}

// TPixelSize is the size of Tight's TPIXEL in pixel format pf (16 bytes,
// as in SetPixelFormat): 3 for 32 bits per pixel, depth 24, true colour,
// maxima 255, else bits-per-pixel/8.
func TPixelSize(pf []byte) int {
	if pf[0] == 32 && pf[1] == 24 && pf[3] != 0 &&
		pf[4] == 0 && pf[5] == 255 && pf[6] == 0 && pf[7] == 255 && pf[8] == 0 && pf[9] == 255 {
		return 3
	}
	return int(pf[0] / 8)
}

// TightPixelFormatOK reports why Tight cannot be framed in pf, or "": a
// 3-byte TPIXEL format whose colours are not on byte boundaries is read as
// 3-byte by the RFB spec and noVNC and as 4-byte by newer TigerVNC (its
// is888 also checks the shifts), so the two ends could disagree.
func TightPixelFormatOK(pf []byte) string {
	if TPixelSize(pf) == 3 && (pf[10]|pf[11]|pf[12])&7 != 0 {
		return fmt.Sprintf("a depth-24 format with colour shifts %d, %d, %d (not on byte boundaries: Tight's pixel size is ambiguous)", pf[10], pf[11], pf[12])
	}
	return ""
}

// Err is the error that stopped the framer, if any.
func (f *ServerFramer) Err() error { return f.err }

// Offset is the offset of the next header: the bytes of headers and
// payloads framed so far.
func (f *ServerFramer) Offset() int64 { return f.off }

// AtMessage reports whether the next header is a message's (the last
// update, if any, is complete).
func (f *ServerFramer) AtMessage() bool { return f.state == atMessage }

// Next frames the header at the start of b, the stream's bytes from
// Offset on. It returns the header's length, or 0 when b holds less than
// the whole header (call again with more: at most MaxServerHeader bytes
// are needed), and the header; the caller then consumes the header and
// h.Payload bytes before the next call. The Header is the framer's own,
// overwritten by the next call. After an error every call returns it.
func (f *ServerFramer) Next(b []byte) (n int, h *Header, err error) {
	if len(b) == 0 {
		return 0, nil, f.err
	}
	switch f.state {
	case atMessage:
		n, err = f.message(b)
	case atRect:
		n, err = f.rect(b)
	case atTight:
		n, err = f.tight(b)
	default:
		return 0, nil, f.err
	}
	if n == 0 || err != nil {
		return 0, nil, err
	}
	f.h.Offset = f.off
	f.off += int64(n) + f.h.Payload
	return n, &f.h, nil
}

// fail stops the framer with what went wrong where (where "" for the
// message's own header).
func (f *ServerFramer) fail(where, detail string) error {
	f.err = &ServerStreamError{Type: f.h.Type, Offset: f.h.Message, Where: where, Detail: detail}
	f.state = failed
	return f.err
}

// failRect fails on a rectangle's header.
func (f *ServerFramer) failRect(detail string) error {
	return f.fail(fmt.Sprintf("rectangle at server byte %d: ", f.off), detail)
}

// failTight fails on a malformed Tight rectangle, saying where it began.
func (f *ServerFramer) failTight(detail string) error {
	return f.fail(fmt.Sprintf("Tight rectangle at server byte %d: ", f.h.RectOffset), detail)
}

// endRect moves on after a rectangle's last header.
func (f *ServerFramer) endRect() {
	if f.rects > 0 {
		f.state = atRect
	} else {
		f.state = atMessage
	}
}

// message frames the header of the message at b[0].
func (f *ServerFramer) message(b []byte) (int, error) {
	f.h = Header{Part: PartMessage, Type: b[0], Message: f.off}
	switch f.h.Type {
	case MsgFramebufferUpdate: // pad, u16 rectangles
		if len(b) < 4 {
			return 0, nil
		}
		f.rects = int(binary.BigEndian.Uint16(b[2:4]))
		f.h.Rects = f.rects
		f.h.Rect = -1
		if f.rects > 0 {
			f.state = atRect
		}
		return 4, nil
	case MsgSetColourMapEntries: // pad, u16 first, u16 n, n × 6
		if len(b) < 6 {
			return 0, nil
		}
		f.h.Payload = 6 * int64(binary.BigEndian.Uint16(b[4:6]))
		return 6, nil
	case MsgBell, MsgEndOfContinuousUpdates:
		return 1, nil
	case MsgServerCutText: // 3 pad, s32 length; negative: extended, u32 flags first
		if len(b) < 8 {
			return 0, nil
		}
		l := int64(int32(binary.BigEndian.Uint32(b[4:8])))
		if l >= 0 {
			f.h.Payload = l
			return 8, nil
		}
		l = -l // int64: abs(math.MinInt32) does not overflow
		if l < 4 {
			return 0, f.fail("", fmt.Sprintf("extended clipboard length %d is shorter than its 4-byte flags", l))
		}
		if len(b) < 12 {
			return 0, nil
		}
		f.h.Extended, f.h.Flags, f.h.Payload = true, binary.BigEndian.Uint32(b[8:12]), l-4
		return 12, nil
	case MsgServerFence: // 3 pad, u32 flags, u8 length, payload
		if len(b) < 9 {
			return 0, nil
		}
		if b[8] > MaxFencePayload {
			return 0, f.fail("", fmt.Sprintf("fence payload of %d bytes, limit %d", b[8], MaxFencePayload))
		}
		f.h.Payload = int64(b[8])
		return 9, nil
	case MsgXvp: // pad, version, code
		if len(b) < 4 {
			return 0, nil
		}
		return 4, nil
	}
	return 0, f.fail("", fmt.Sprintf("unknown server message type %d", f.h.Type))
}

// rect frames a rectangle header at b[0]: 12 bytes, then what its
// encoding adds.
func (f *ServerFramer) rect(b []byte) (int, error) {
	if len(b) < 12 {
		return 0, nil
	}
	switch Encoding(binary.BigEndian.Uint32(b[8:12])) { // the header is whole before anything changes
	case EncodingZRLE, EncodingDesktopName, EncodingExtendedDesktop:
		if len(b) < 16 {
			return 0, nil
		}
	case EncodingVMwareCursor:
		if len(b) < 14 {
			return 0, nil
		}
	}
	h := &f.h
	h.Part, h.Payload, h.Rect, h.RectOffset = PartRect, 0, h.Rect+1, f.off
	h.X, h.Y = int(binary.BigEndian.Uint16(b[0:2])), int(binary.BigEndian.Uint16(b[2:4]))
	h.W, h.H = int(binary.BigEndian.Uint16(b[4:6])), int(binary.BigEndian.Uint16(b[6:8]))
	h.Encoding = Encoding(binary.BigEndian.Uint32(b[8:12]))
	h.Kind, h.KindSet, h.Control, h.Colours, h.Data = KindPseudo, true, 0, 0, 0
	pixel := f.pixel.Load()
	f.bpp, f.tpixel = int64(pixel&0xff), int64(pixel>>8)
	w, ht := int64(h.W), int64(h.H)
	n := 12
	switch h.Encoding {
	case EncodingRaw:
		h.Payload, h.Kind = w*ht*f.bpp, KindRaw
	case EncodingCopyRect: // source x, y
		h.Payload, h.Kind = 4, KindCopyRect
	case EncodingTight: // headers and payloads follow
		h.KindSet = false // its sub-encoding says
	case EncodingZRLE, EncodingDesktopName: // u32 length, data
		n, h.Payload = 16, int64(binary.BigEndian.Uint32(b[12:16]))
		if h.Encoding == EncodingZRLE {
			h.Kind = KindZRLE
		}
	case EncodingDesktopSize, EncodingQEMUExtendedKey:
	case EncodingLastRect:
		f.rects = 1 // this one ends the update
	case EncodingQEMULEDState:
		h.Payload = 1
	case EncodingCursor: // pixels, then a bitmask with rows padded to bytes
		h.Payload = w*ht*f.bpp + (w+7)/8*ht
	case EncodingExtendedDesktop: // u8 screens, 3 pad, 16 bytes a screen
		n, h.Payload = 16, 16*int64(b[12])
	case EncodingVMwareCursor: // u8 type, pad
		switch b[12] {
		case 0: // AND and XOR masks in the client's pixel format
			h.Payload = 2 * w * ht * f.bpp
		case 1: // RGBA
			h.Payload = 4 * w * ht
		default:
			return 0, f.failRect(fmt.Sprintf("VMware cursor type %d (0 and 1 exist)", b[12]))
		}
		n = 14
	default:
		return 0, f.failRect(fmt.Sprintf("encoding %d is not one that is framed (glass asks only for those it frames)", h.Encoding))
	}
	f.rects--
	if h.Encoding == EncodingTight {
		f.state, f.tphase = atTight, tightControl
	} else {
		f.endRect()
	}
	return n, nil
}

// tight frames the next header of the Tight rectangle at b[0].
func (f *ServerFramer) tight(b []byte) (int, error) {
	h := &f.h
	h.Payload, h.KindSet = 0, false
	switch f.tphase {
	case tightControl:
		h.Part = PartTightControl
		c := b[0]
		h.Control = c
		switch nib := c >> 4; {
		case nib == TightFill:
			h.Payload = f.tpixel
			f.setKind(KindTightFill)
			f.endRect()
		case nib == TightJPEG:
			f.setKind(KindTightJPEG)
			f.tphase = tightLength
		case nib == TightPNG:
			return 0, f.failTight(fmt.Sprintf("control byte %#02x: PNG, which only TightPNG has (glass does not ask for it)", c))
		case nib > TightPNG:
			return 0, f.failTight(fmt.Sprintf("control byte %#02x: compression type %d is invalid", c, nib))
		case c&TightExplicit != 0:
			f.tphase = tightFilter
		default:
			f.setKind(KindTightCopy)
			f.data(f.tpixel * int64(h.W) * int64(h.H))
		}
		return 1, nil
	case tightFilter:
		h.Part = PartTightFilter
		w, ht := int64(h.W), int64(h.H)
		switch b[0] {
		case TightFilterCopy:
			f.setKind(KindTightCopy)
			f.data(f.tpixel * w * ht)
		case TightFilterPalette:
			f.setKind(KindTightPalette)
			f.tphase = tightPalette
		case TightFilterGradient:
			if f.bpp == 1 {
				return 0, f.failTight("gradient filter at 8 bits per pixel")
			}
			f.setKind(KindTightGradient)
			f.data(f.tpixel * w * ht)
		default:
			return 0, f.failTight(fmt.Sprintf("filter id %d is invalid (0 copy, 1 palette, 2 gradient exist)", b[0]))
		}
		return 1, nil
	case tightPalette: // every byte is a valid size: 1 to 256 colours
		h.Part = PartTightPalette
		h.Colours = int(b[0]) + 1
		if h.Colours <= 2 {
			f.data((int64(h.W) + 7) / 8 * int64(h.H))
		} else {
			f.data(int64(h.W) * int64(h.H))
		}
		h.Payload += int64(h.Colours) * f.tpixel // the palette, before the data
		return 1, nil
	case tightLength:
		h.Part = PartTightLength
		n, l := 1, int64(b[0]&0x7f)
		if b[0]&0x80 != 0 {
			if len(b) < 2 {
				return 0, nil
			}
			n, l = 2, l|int64(b[1]&0x7f)<<7
			if b[1]&0x80 != 0 {
				if len(b) < 3 {
					return 0, nil
				}
				n, l = 3, l|int64(b[2])<<14
			}
		}
		limit := f.MaxCompactLen
		if limit <= 0 {
			limit = DefaultMaxCompactLen
		}
		if l > limit {
			return 0, f.failTight(fmt.Sprintf("compact length %d, limit %d", l, limit))
		}
		h.Payload = l
		f.endRect()
		return n, nil
	}
	return 0, f.failTight("impossible: no Tight phase")
}

// setKind records the Tight rectangle's sub-encoding on this header.
func (f *ServerFramer) setKind(k Kind) { f.h.Kind, f.h.KindSet = k, true }

// data moves on to the Tight pixel data of size n before compression:
// under TightMinCompress bytes they follow as they are (this header's
// payload), else a compact length does.
func (f *ServerFramer) data(n int64) {
	f.h.Data = n
	if n < TightMinCompress {
		f.h.Payload = n
		f.endRect()
		return
	}
	f.tphase = tightLength
}
