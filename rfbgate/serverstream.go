package rfbgate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/wirebench/wirebench/internal/rfb"
)

// encodingKept reports whether SetEncodings may keep e. Kept: Raw, CopyRect,
// ZRLE and Tight (a ZRLE rectangle carries its own length; Raw and CopyRect
// have lengths from their size; Tight is framed from its sub-encodings'
// headers, tight.go, so Xvnc may send JPEG), the pseudo-encodings whose
// payloads have a known shape (desktop size and name, last rect, the two
// cursors, QEMU keys and LED state, fences, continuous updates, extended
// clipboard), and the JPEG quality and compression levels (no payload;
// they steer Tight). Dropped: TightPNG (Xvnc has no TightPNG encoder, so
// asking for it gains nothing, and its PNG rectangles are not framed), the
// JPEG encoding 21, Hextile, RRE, Zlib, H.264 (framing them means walking
// their sub-encodings, or they are not TigerVNC's), xvp (power control,
// which the gate closes on), extended mouse buttons (see
// rfb.EncodingExtendedMouseButtons) and anything unknown.
func encodingKept(e rfb.Encoding) bool {
	switch e {
	case rfb.EncodingRaw, rfb.EncodingCopyRect, rfb.EncodingZRLE, rfb.EncodingTight,
		rfb.EncodingDesktopSize, rfb.EncodingLastRect, rfb.EncodingCursor, rfb.EncodingVMwareCursor,
		rfb.EncodingQEMUExtendedKey, rfb.EncodingQEMULEDState, rfb.EncodingDesktopName, rfb.EncodingExtendedDesktop,
		rfb.EncodingFence, rfb.EncodingContinuousUpdates, rfb.EncodingExtendedClipboard:
		return true
	}
	return (e >= rfb.EncodingQualityLevel0 && e <= rfb.EncodingQualityLevel9) ||
		(e >= rfb.EncodingCompressLevel0 && e <= rfb.EncodingCompressLevel9)
}

// ErrServerStream is the kind of every serverFilter error; errors.Is works.
var ErrServerStream = errors.New("server message the relay cannot frame")

// ServerStreamError says what in the server's stream could not be framed,
// and where.
type ServerStreamError struct {
	Type   uint8 // the message type
	Offset int64 // offset of the message's first byte in the server stream (after ServerInit)
	Detail string
}

// Error reports what and where.
func (e *ServerStreamError) Error() string {
	return fmt.Sprintf("rfbgate: %v: server message type %d at server byte %d: %s", ErrServerStream, e.Type, e.Offset, e.Detail)
}

// Is matches ErrServerStream.
func (e *ServerStreamError) Is(target error) bool { return target == ErrServerStream }

// maxServerHeader is the most bytes serverFilter.Filter may hand back
// unconsumed: one message or rectangle header split across reads. The
// caller puts them in front of the next read.
const maxServerHeader = 16

// serverFilterStats counts what a serverFilter did.
type serverFilterStats struct {
	Messages       uint64 // server messages framed
	Rects          uint64 // framebuffer rectangles framed
	CutTextPassed  uint64 // ServerCutText forwarded (to the holder, or clipboard capabilities)
	CutTextDropped uint64 // ServerCutText withheld from a viewer without the keyboard
	BytesDropped   uint64 // bytes withheld
}

// rectKind is what a framed rectangle was, for rectCounts: its encoding,
// and for Tight its sub-encoding (basic compression by filter).
type rectKind uint8

const (
	kindRaw rectKind = iota
	kindCopyRect
	kindZRLE
	kindTightFill
	kindTightJPEG
	kindTightCopy
	kindTightPalette
	kindTightGradient
	kindPseudo // a pseudo-encoding (cursor, desktop size, ...)
	numRectKinds
)

// rectKindLabels names each rectKind: encoding, and kind (Tight's
// sub-encoding; "" for the others).
var rectKindLabels = [numRectKinds][2]string{
	kindRaw:           {"raw", ""},
	kindCopyRect:      {"copyrect", ""},
	kindZRLE:          {"zrle", ""},
	kindTightFill:     {"tight", "fill"},
	kindTightJPEG:     {"tight", "jpeg"},
	kindTightCopy:     {"tight", "copy"},
	kindTightPalette:  {"tight", "palette"},
	kindTightGradient: {"tight", "gradient"},
	kindPseudo:        {"pseudo", ""},
}

// rectCounts counts framed rectangles by kind: plain in the filter (its
// goroutine alone adds), published to the viewer's atomic copy once a
// batch (viewer.publishCounts), which scrapes read at any time.
type rectCounts [numRectKinds]uint64

func (c *rectCounts) count(k rectKind) { c[k]++ }

// Load returns the counts so far (from the filter's goroutine, or after).
func (c *rectCounts) Load() [numRectKinds]uint64 { return *c }

// sharedRectCounts is a viewer's published copy of its filter's counts.
type sharedRectCounts [numRectKinds]atomic.Uint64

// store publishes c.
func (s *sharedRectCounts) store(c *rectCounts) {
	for i := range s {
		s[i].Store(c[i])
	}
}

// Load returns the published counts.
func (s *sharedRectCounts) Load() (n [numRectKinds]uint64) {
	for i := range s {
		n[i] = s[i].Load()
	}
	return n
}

type serverState uint8

const (
	ssMessage serverState = iota // at a message boundary
	ssRect                       // inside a FramebufferUpdate, at a rectangle
	ssSkip                       // passing or dropping a payload
	ssTight                      // inside a Tight rectangle, at its next header (tight.go)
	ssFailed
)

// serverFilter is a resumable, streaming framer of the server-to-client RFB
// stream after ServerInit. It frames every message type Xvnc 1.12 sends to
// noVNC and every rectangle encoding encodingKept allows, never decoding
// pixels: payloads are skipped by length (a Tight rectangle is a chain of
// short headers and payloads, see tight.go). It withholds ServerCutText (both
// forms) from a viewer that does not hold the keyboard; the extended
// clipboard's capabilities message, which carries no clipboard data, passes
// to everyone (noVNC needs it to use the clipboard once it takes over).
// A message it cannot frame is an error: close the viewer.
//
// Filter runs on one goroutine; SetPixelFormat may be called from another.
// It does not allocate.
type serverFilter struct {
	holder func() bool   // whether this viewer holds the keyboard
	pixel  atomic.Uint32 // of the client's pixel format: bytes per pixel, and Tight's TPIXEL size << 8

	state  serverState
	rects  int   // rectangles left in the current update
	skip   int64 // payload bytes left to pass or drop
	keep   bool  // verdict of the current payload
	off    int64 // server bytes consumed
	start  int64 // offset of the current message
	typ    uint8
	err    error
	stats  serverFilterStats
	inRect bool // the skip belongs to a rectangle: return to ssRect
	kinds  rectCounts

	// The Tight rectangle being framed (tight.go): its next header, its
	// offset, size and the pixel format's sizes when it began.
	tphase              tightPhase
	rstart              int64
	rw, rh, bpp, tpixel int64

	tap     cutTap // if set, told every ServerCutText (clipboard.go)
	tapping bool   // the current payload is a ServerCutText's
}

// newServerFilter returns a filter for a stream whose ServerInit pixel
// format is pf (16 bytes); holder reports whether the viewer holds the
// keyboard at the moment a ServerCutText begins.
func newServerFilter(pf []byte, holder func() bool) (*serverFilter, error) {
	f := &serverFilter{holder: holder}
	if err := f.SetPixelFormat(pf); err != nil {
		return nil, err
	}
	return f, nil
}

// SetPixelFormat records the client's pixel format (16 bytes, as in
// SetPixelFormat and ServerInit); Raw and cursor rectangles are sized by its
// bits per pixel, which must be 8, 16 or 32, Tight's pixels by the whole
// format (tpixelSize). The gate calls it when it forwards a SetPixelFormat,
// which it allows only before the first update is requested, so no
// rectangle in flight is in an older format.
func (f *serverFilter) SetPixelFormat(pf []byte) error {
	if len(pf) < 16 {
		return fmt.Errorf("rfbgate: pixel format of %d bytes, want 16", len(pf))
	}
	switch pf[0] {
	case 8, 16, 32:
	default:
		return fmt.Errorf("rfbgate: pixel format of %d bits per pixel; 8, 16 or 32 are framed", pf[0])
	}
	if why := tightPixelFormatOK(pf); why != "" {
		return fmt.Errorf("rfbgate: pixel format not framed: %s", why)
	}
	f.pixel.Store(uint32(pf[0]/8) | uint32(tpixelSize(pf))<<8)
	return nil
}

// Stats returns the counters (call it from Filter's goroutine, or after).
func (f *serverFilter) Stats() serverFilterStats { return f.stats }

// Err is the error that stopped the filter, if any.
func (f *serverFilter) Err() error { return f.err }

func (f *serverFilter) fail(detail string) error {
	f.err = &ServerStreamError{Type: f.typ, Offset: f.start, Detail: detail}
	f.state = ssFailed
	return f.err
}

// Filter frames buf, the next bytes of the server stream (after any bytes
// the previous call handed back), and compacts in place what this viewer may
// receive: out is a prefix of buf. rest is a suffix of buf, at most
// maxServerHeader bytes of a header split across reads: pass it again in
// front of the next read. On error, out holds what may be sent before the
// bad message; close the viewer. After an error every call returns it.
func (f *serverFilter) Filter(buf []byte) (out, rest []byte, err error) {
	if f.state == ssFailed {
		return buf[:0], nil, f.err
	}
	w, r := 0, 0
	for r < len(buf) {
		if f.state == ssSkip {
			k := len(buf) - r
			if int64(k) > f.skip {
				k = int(f.skip)
			}
			if f.tapping {
				f.tap.cutData(buf[r : r+k]) // before pass moves the bytes
			}
			w, r = f.pass(buf, w, r, k)
			if f.skip -= int64(k); f.skip > 0 {
				break
			}
			f.endPayload()
			continue
		}
		var hl int // header length, once known
		var err error
		switch f.state {
		case ssRect:
			hl, err = f.rect(buf[r:])
		case ssTight:
			hl, err = f.tight(buf[r:])
		default:
			hl, err = f.message(buf[r:])
		}
		if err != nil {
			return buf[:w], nil, err
		}
		if hl == 0 { // the header is not all here
			if len(buf)-r > maxServerHeader {
				return buf[:w], nil, f.fail("impossible: a header longer than maxServerHeader")
			}
			return buf[:w], buf[r:], nil
		}
		w, r = f.pass(buf, w, r, hl)
		if f.skip == 0 {
			f.endPayload()
		} else {
			f.state = ssSkip
		}
	}
	return buf[:w], nil, nil
}

// pass consumes the k bytes at buf[r:] with the current verdict: kept, they
// move down to buf[w:] (no copy while nothing was dropped before them);
// dropped, they are counted. It returns the new write and read positions.
func (f *serverFilter) pass(buf []byte, w, r, k int) (int, int) {
	if f.keep {
		if w != r {
			copy(buf[w:], buf[r:r+k])
		}
		w += k
	} else {
		f.stats.BytesDropped += uint64(k)
	}
	f.off += int64(k)
	return w, r + k
}

// endPayload moves on after a message or rectangle is complete.
func (f *serverFilter) endPayload() {
	if f.tapping {
		f.tapping = false
		f.tap.cutEnd()
	}
	if f.tphase != tightNone {
		f.state = ssTight
		return
	}
	if f.inRect && f.rects > 0 {
		f.state = ssRect
		return
	}
	f.inRect = false
	f.state = ssMessage
}

// message frames the header of the message at b[0]: it returns the header
// length (0 when b holds less than the header) and sets keep and skip.
func (f *serverFilter) message(b []byte) (int, error) {
	f.typ = b[0]
	f.start = f.off
	f.keep = true
	f.skip = 0
	f.inRect = false
	switch f.typ {
	case rfb.MsgFramebufferUpdate: // pad, u16 rectangles
		if len(b) < 4 {
			return 0, nil
		}
		f.rects = int(binary.BigEndian.Uint16(b[2:4]))
		f.inRect = f.rects > 0
		f.stats.Messages++
		return 4, nil
	case rfb.MsgSetColourMapEntries: // pad, u16 first, u16 n, n × 6
		if len(b) < 6 {
			return 0, nil
		}
		f.skip = 6 * int64(binary.BigEndian.Uint16(b[4:6]))
		f.stats.Messages++
		return 6, nil
	case rfb.MsgBell, rfb.MsgEndOfContinuousUpdates:
		f.stats.Messages++
		return 1, nil
	case rfb.MsgServerCutText: // 3 pad, s32 length; negative: extended, u32 flags first
		if len(b) < 8 {
			return 0, nil
		}
		l := int64(int32(binary.BigEndian.Uint32(b[4:8])))
		n := 8
		var flags uint32
		if l < 0 {
			l = -l // int64: abs(math.MinInt32) does not overflow
			if l < 4 {
				return 0, f.fail(fmt.Sprintf("extended clipboard length %d is shorter than its 4-byte flags", l))
			}
			if len(b) < 12 {
				return 0, nil
			}
			n, l = 12, l-4
			flags = binary.BigEndian.Uint32(b[8:12])
			f.keep = flags&rfb.ClipboardCaps != 0
		} else {
			f.keep = false
		}
		f.keep = f.keep || f.holder()
		if f.keep {
			f.stats.CutTextPassed++
		} else {
			f.stats.CutTextDropped++
		}
		f.skip = l
		f.stats.Messages++
		if f.tap != nil {
			f.tap.cutBegin(n == 12, flags, l, f.keep)
			f.tapping = true
		}
		return n, nil
	case rfb.MsgServerFence: // 3 pad, u32 flags, u8 length, payload
		if len(b) < 9 {
			return 0, nil
		}
		if b[8] > rfb.MaxFencePayload {
			return 0, f.fail(fmt.Sprintf("fence payload of %d bytes, limit %d", b[8], rfb.MaxFencePayload))
		}
		f.skip = int64(b[8])
		f.stats.Messages++
		return 9, nil
	case rfb.MsgXvp: // pad, version, code
		if len(b) < 4 {
			return 0, nil
		}
		f.stats.Messages++
		return 4, nil
	}
	return 0, f.fail("unknown message type")
}

// rect frames a rectangle header at b[0] (12 bytes, then what its encoding
// adds); it returns the header length (0 when b holds less) and sets skip.
func (f *serverFilter) rect(b []byte) (int, error) {
	if len(b) < 12 {
		return 0, nil
	}
	w := int64(binary.BigEndian.Uint16(b[4:6]))
	h := int64(binary.BigEndian.Uint16(b[6:8]))
	enc := rfb.Encoding(binary.BigEndian.Uint32(b[8:12]))
	pixel := f.pixel.Load()
	bpp := int64(pixel & 0xff)
	n, skip, kind := 12, int64(0), kindPseudo
	switch enc {
	case rfb.EncodingRaw:
		skip, kind = w*h*bpp, kindRaw
	case rfb.EncodingCopyRect:
		skip, kind = 4, kindCopyRect
	case rfb.EncodingTight: // headers and payloads follow (tight.go)
		f.tphase, f.rstart = tightControl, f.off
		f.rw, f.rh, f.bpp, f.tpixel = w, h, bpp, int64(pixel>>8)
	case rfb.EncodingZRLE, rfb.EncodingDesktopName: // u32 length, data
		if len(b) < 16 {
			return 0, nil
		}
		n, skip = 16, int64(binary.BigEndian.Uint32(b[12:16]))
		if enc == rfb.EncodingZRLE {
			kind = kindZRLE
		}
	case rfb.EncodingDesktopSize, rfb.EncodingQEMUExtendedKey:
	case rfb.EncodingLastRect:
		f.rects = 1 // this one ends the update
	case rfb.EncodingQEMULEDState:
		skip = 1
	case rfb.EncodingCursor: // pixels, then a bitmask with rows padded to bytes
		skip = w*h*bpp + (w+7)/8*h
	case rfb.EncodingExtendedDesktop: // u8 screens, 3 pad, 16 bytes a screen
		if len(b) < 16 {
			return 0, nil
		}
		n, skip = 16, 16*int64(b[12])
	case rfb.EncodingVMwareCursor: // u8 type, pad
		if len(b) < 14 {
			return 0, nil
		}
		switch b[12] {
		case 0: // AND and XOR masks in the client's pixel format
			skip = 2 * w * h * bpp
		case 1: // RGBA
			skip = 4 * w * h
		default:
			return 0, f.fail(fmt.Sprintf("rectangle at server byte %d: VMware cursor type %d", f.off, b[12]))
		}
		n = 14
	default:
		return 0, f.fail(fmt.Sprintf("rectangle at server byte %d: encoding %d is not one the relay frames (it asks only for those encodingKept allows)", f.off, enc))
	}
	f.rects--
	f.keep = true
	f.skip = skip
	f.inRect = true
	f.stats.Rects++
	if enc != rfb.EncodingTight { // a Tight rectangle is counted by its sub-encoding
		f.kinds.count(kind)
	}
	return n, nil
}
