package rfbgate

import (
	"sync/atomic"

	"github.com/wirebench/wirebench/internal/rfb"
)

// encodingKept reports whether SetEncodings may keep e. Kept: Raw, CopyRect,
// ZRLE and Tight (a ZRLE rectangle carries its own length; Raw and CopyRect
// have lengths from their size; Tight is framed from its sub-encodings'
// headers by rfb.ServerFramer, so Xvnc may send JPEG), the pseudo-encodings
// whose payloads have a known shape (desktop size and name, last rect, the
// two cursors, QEMU keys and LED state, fences, continuous updates, extended
// clipboard), and the JPEG quality and compression levels (no payload; they
// steer Tight). Dropped: TightPNG (Xvnc has no TightPNG encoder, so asking
// for it gains nothing, and its PNG rectangles are not framed), the JPEG
// encoding 21, Hextile, RRE, Zlib, H.264 (framing them means walking their
// sub-encodings, or they are not TigerVNC's), xvp (power control, which the
// gate closes on), extended mouse buttons (see
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

// ErrServerStream is the kind of every serverFilter error (the framer's,
// internal/rfb); errors.Is works.
var ErrServerStream = rfb.ErrServerStream

// ServerStreamError says what in the server's stream could not be framed,
// and where.
type ServerStreamError = rfb.ServerStreamError

// serverFilterStats counts what a serverFilter did.
type serverFilterStats struct {
	Messages       uint64 // server messages framed
	Rects          uint64 // framebuffer rectangles framed
	CutTextPassed  uint64 // ServerCutText forwarded (to the holder, or clipboard capabilities)
	CutTextDropped uint64 // ServerCutText withheld from a viewer without the keyboard
	BytesDropped   uint64 // bytes withheld
}

// rectKindLabels names each rfb.Kind: encoding, and kind (Tight's
// sub-encoding; "" for the others).
var rectKindLabels = [rfb.NumKinds][2]string{
	rfb.KindRaw:           {"raw", ""},
	rfb.KindCopyRect:      {"copyrect", ""},
	rfb.KindZRLE:          {"zrle", ""},
	rfb.KindTightFill:     {"tight", "fill"},
	rfb.KindTightJPEG:     {"tight", "jpeg"},
	rfb.KindTightCopy:     {"tight", "copy"},
	rfb.KindTightPalette:  {"tight", "palette"},
	rfb.KindTightGradient: {"tight", "gradient"},
	rfb.KindPseudo:        {"pseudo", ""},
}

// rectCounts counts framed rectangles by kind: plain in the filter (its
// goroutine alone adds), published to the viewer's atomic copy once a
// batch (viewer.publishCounts), which scrapes read at any time.
type rectCounts [rfb.NumKinds]uint64

func (c *rectCounts) count(k rfb.Kind) { c[k]++ }

// Load returns the counts so far (from the filter's goroutine, or after).
func (c *rectCounts) Load() [rfb.NumKinds]uint64 { return *c }

// sharedRectCounts is a viewer's published copy of its filter's counts.
type sharedRectCounts [rfb.NumKinds]atomic.Uint64

// store publishes c.
func (s *sharedRectCounts) store(c *rectCounts) {
	for i := range s {
		s[i].Store(c[i])
	}
}

// Load returns the published counts.
func (s *sharedRectCounts) Load() (n [rfb.NumKinds]uint64) {
	for i := range s {
		n[i] = s[i].Load()
	}
	return n
}

// serverFilter passes the server-to-client stream after ServerInit to one
// viewer: rfb.ServerFramer frames it (every message type Xvnc 1.12 sends
// to noVNC, every rectangle encoding encodingKept allows, never decoding
// pixels), and the filter passes each header and payload on or withholds
// it. It withholds ServerCutText (both forms) from a viewer that does not
// hold the keyboard; the extended clipboard's capabilities message, which
// carries no clipboard data, passes to everyone (noVNC needs it to use the
// clipboard once it takes over). A message it cannot frame is an error:
// close the viewer.
//
// Filter runs on one goroutine; SetPixelFormat may be called from another.
// It does not allocate.
type serverFilter struct {
	holder func() bool // whether this viewer holds the keyboard
	fr     rfb.ServerFramer
	skip   int64 // payload bytes left to pass or drop
	keep   bool  // verdict of the current header and payload
	err    error
	stats  serverFilterStats
	kinds  rectCounts

	tap     cutTap // if set, told every ServerCutText (clipboard.go)
	tapping bool   // the current payload is a ServerCutText's
}

// newServerFilter returns a filter for a stream whose ServerInit pixel
// format is pf (16 bytes); holder reports whether the viewer holds the
// keyboard at the moment a ServerCutText begins.
func newServerFilter(pf []byte, holder func() bool) (*serverFilter, error) {
	f := &serverFilter{holder: holder}
	if err := f.fr.SetPixelFormat(pf); err != nil {
		return nil, err
	}
	return f, nil
}

// SetPixelFormat records the client's pixel format (rfb.ServerFramer's
// SetPixelFormat). The gate calls it when it forwards a SetPixelFormat,
// which it allows only before the first update is requested, so no
// rectangle in flight is in an older format.
func (f *serverFilter) SetPixelFormat(pf []byte) error { return f.fr.SetPixelFormat(pf) }

// Stats returns the counters (call it from Filter's goroutine, or after).
func (f *serverFilter) Stats() serverFilterStats { return f.stats }

// Err is the error that stopped the filter, if any.
func (f *serverFilter) Err() error { return f.err }

// Filter frames buf, the next bytes of the server stream (after any bytes
// the previous call handed back), and compacts in place what this viewer may
// receive: out is a prefix of buf. rest is a suffix of buf, at most
// rfb.MaxServerHeader bytes of a header split across reads: pass it again
// in front of the next read. On error, out holds what may be sent before
// the bad message; close the viewer. After an error every call returns it.
func (f *serverFilter) Filter(buf []byte) (out, rest []byte, err error) {
	if f.err != nil {
		return buf[:0], nil, f.err
	}
	w, r := 0, 0
	for r < len(buf) {
		if f.skip > 0 {
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
		hl, h, err := f.fr.Next(buf[r:])
		if err != nil {
			f.err = err
			return buf[:w], nil, err
		}
		if hl == 0 { // the header is not all here
			if len(buf)-r > rfb.MaxServerHeader {
				f.err = &ServerStreamError{Offset: f.fr.Offset(), Detail: "impossible: a header longer than rfb.MaxServerHeader"}
				return buf[:w], nil, f.err
			}
			return buf[:w], buf[r:], nil
		}
		f.header(h)
		w, r = f.pass(buf, w, r, hl)
		if f.skip = h.Payload; f.skip == 0 {
			f.endPayload()
		}
	}
	return buf[:w], nil, nil
}

// header counts the header h and sets the verdict on it and its payload.
func (f *serverFilter) header(h *rfb.Header) {
	switch h.Part {
	case rfb.PartMessage:
		f.stats.Messages++
		f.keep = true
		if h.Type == rfb.MsgServerCutText {
			f.keep = (h.Extended && h.Flags&rfb.ClipboardCaps != 0) || f.holder()
			if f.keep {
				f.stats.CutTextPassed++
			} else {
				f.stats.CutTextDropped++
			}
			if f.tap != nil {
				f.tap.cutBegin(h.Extended, h.Flags, h.Payload, f.keep)
				f.tapping = true
			}
		}
		return
	case rfb.PartRect:
		f.stats.Rects++
		f.keep = true
	}
	if h.KindSet { // a Tight rectangle is counted by its sub-encoding
		f.kinds.count(h.Kind)
	}
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
	return w, r + k
}

// endPayload moves on after a header's payload is complete.
func (f *serverFilter) endPayload() {
	if f.tapping {
		f.tapping = false
		f.tap.cutEnd()
	}
}
