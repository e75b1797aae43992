package rfbviewer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// Encodings is what a Viewer asks for with SetEncodings, in order of
// preference (noVNC's order, less the cursor and the extensions a Go
// viewer has no use for), before the JPEG quality level if any.
var Encodings = []rfb.Encoding{
	rfb.EncodingTight, rfb.EncodingCopyRect, rfb.EncodingZRLE, rfb.EncodingRaw,
	rfb.EncodingDesktopSize, rfb.EncodingExtendedDesktop, rfb.EncodingLastRect,
}

// Options configure a Viewer. The zero value asks for lossless updates.
type Options struct {
	// Quality, 1 to 10, adds the JPEG quality level Quality-1 (the
	// pseudo-encoding -32+Quality-1) to the encodings, which lets a Tight
	// server send JPEG; 0 asks for none, so updates are lossless.
	Quality int
	// Since is when the viewer's time to its first full update counts
	// from (e.g. before the WebSocket dial); zero: when Dial or Start is
	// called.
	Since time.Time
	// Limits bound the decoder (framebuffer.Limits' defaults when zero).
	Limits framebuffer.Limits
}

// Stats counts what a Viewer received and decoded.
type Stats struct {
	Updates     int64 // FramebufferUpdates decoded
	Rects       int64 // rectangles decoded, pseudo-rectangles included
	Bytes       int64 // bytes read after ServerInit
	FullUpdates int64 // updates whose rectangles cover the whole screen
	// FirstFull is the time from Options.Since to the end of the update
	// with which every pixel of the screen had been painted (by that
	// update or the ones before it: a server may send the first screen in
	// several updates); 0 before.
	FirstFull time.Duration
	// LastUpdate and LastFull are when the last update, and the last one
	// covering the whole screen, were decoded; zero before one.
	LastUpdate, LastFull time.Time
	Decoder              framebuffer.Stats // as of the end of the last update
}

// Picture is a copy of a Viewer's pixels (framebuffer.NoVNCFormat,
// 4·W bytes a row).
type Picture struct {
	W, H int
	Pix  []byte
}

// Viewer is one RFB viewer decoding a server's updates in a goroutine of
// its own. Its methods are safe for concurrent use.
type Viewer struct {
	rw    io.ReadWriter
	si    ServerInit
	since time.Time
	dec   *framebuffer.Decoder

	bytes atomic.Int64

	// mu guards the framebuffer and the state below; the decoding
	// goroutine holds it except while it waits for bytes or is paused.
	mu       sync.Mutex
	cond     *sync.Cond
	idle     bool // waiting for bytes at the end of a message: the pixels are an update's
	paused   bool // asked to pause
	halted   bool // paused (or stopped) at the end of a message
	stopped  bool
	msgEnd   int64 // decoder offset at the end of the last message
	rects    []framebuffer.Rect
	area     int64
	cover    []uint64 // coverage bitmap, one bit a pixel
	seen     []uint64 // what has been painted since the start, until all of it (FirstFull)
	seenW    int
	seenH    int
	stats    Stats
	resumeAt time.Time
	err      error
	done     chan struct{}
}

// Dial runs the None handshake over rw (Handshake) and starts a Viewer.
func Dial(rw io.ReadWriter, opt Options) (*Viewer, error) {
	if opt.Since.IsZero() {
		opt.Since = time.Now()
	}
	si, err := Handshake(rw)
	if err != nil {
		return nil, err
	}
	return Start(rw, si, opt)
}

// Start begins a Viewer on rw just after ServerInit si: it sends
// SetPixelFormat (noVNC's), SetEncodings (Encodings and the quality level)
// and a full FramebufferUpdateRequest, then decodes in the background
// until the stream ends or fails (Done, Err) or Stop.
func Start(rw io.ReadWriter, si ServerInit, opt Options) (*Viewer, error) {
	if opt.Since.IsZero() {
		opt.Since = time.Now()
	}
	if opt.Quality < 0 || opt.Quality > 10 {
		return nil, fmt.Errorf("rfbviewer: quality %d, want 0 (none) or 1 to 10", opt.Quality)
	}
	fb, err := framebuffer.New(si.Width, si.Height, framebuffer.NoVNCFormat)
	if err != nil {
		return nil, fmt.Errorf("rfbviewer: ServerInit: %w", err)
	}
	v := &Viewer{rw: rw, si: si, since: opt.Since, done: make(chan struct{})}
	v.cond = sync.NewCond(&v.mu)
	v.dec = framebuffer.NewDecoder(&unlockedReader{v}, fb, opt.Limits)
	v.dec.OnRect = func(r framebuffer.Rect) {
		v.rects = append(v.rects, r)
		v.area += int64(r.W) * int64(r.H)
	}
	pf := framebuffer.NoVNCFormat.Bytes()
	msg := append([]byte{0, 0, 0, 0}, pf[:]...)
	enc := Encodings
	if opt.Quality > 0 {
		enc = append(enc[:len(enc):len(enc)], rfb.EncodingQualityLevel0+rfb.Encoding(opt.Quality-1))
	}
	msg = append(msg, 2, 0)
	msg = binary.BigEndian.AppendUint16(msg, uint16(len(enc)))
	for _, e := range enc {
		msg = binary.BigEndian.AppendUint32(msg, uint32(e))
	}
	msg = appendRequest(msg, false, si.Width, si.Height)
	if _, err := rw.Write(msg); err != nil {
		return nil, fmt.Errorf("rfbviewer: SetPixelFormat, SetEncodings and the first request: %w", err)
	}
	go v.run()
	return v, nil
}

// appendRequest appends a FramebufferUpdateRequest for the whole w×h
// screen.
func appendRequest(b []byte, incremental bool, w, h int) []byte {
	inc := byte(0)
	if incremental {
		inc = 1
	}
	b = append(b, 3, inc, 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(w))
	return binary.BigEndian.AppendUint16(b, uint16(h))
}

// unlockedReader is the Decoder's source: it counts the bytes and lets go
// of the Viewer's lock while it waits for them, marking whether the
// pixels are then an update's (nothing of the next message consumed).
type unlockedReader struct{ v *Viewer }

func (r *unlockedReader) Read(p []byte) (int, error) {
	v := r.v
	v.idle = v.dec.Offset() == v.msgEnd
	if v.idle {
		v.cond.Broadcast()
	}
	v.mu.Unlock()
	n, err := v.rw.Read(p)
	v.bytes.Add(int64(n))
	v.mu.Lock()
	v.idle = false
	return n, err
}

// run decodes messages until the stream ends or Stop.
func (v *Viewer) run() {
	v.mu.Lock()
	defer func() {
		v.halted, v.idle = true, false
		v.cond.Broadcast()
		v.mu.Unlock()
		close(v.done)
	}()
	var req []byte
	for {
		for v.paused && !v.stopped {
			v.halted = true
			v.cond.Broadcast()
			v.cond.Wait()
		}
		v.halted = false
		if v.stopped {
			return
		}
		m, err := v.dec.Next()
		v.msgEnd = v.dec.Offset()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			v.err = err
			return
		}
		if m.Type != rfb.MsgFramebufferUpdate {
			continue
		}
		fb := v.dec.Framebuffer()
		now := time.Now()
		v.stats.Updates++
		v.stats.Rects += int64(m.Rects)
		v.stats.LastUpdate = now
		v.stats.Decoder = v.dec.Stats()
		if v.covers(fb.Width(), fb.Height()) {
			v.stats.FullUpdates++
			v.stats.LastFull = now
		}
		if v.stats.FirstFull == 0 && v.paintedAll(fb.Width(), fb.Height()) {
			v.stats.FirstFull = max(now.Sub(v.since), 1)
			v.seen = nil
		}
		v.rects, v.area = v.rects[:0], 0
		req = appendRequest(req[:0], true, fb.Width(), fb.Height())
		v.mu.Unlock()
		_, err = v.rw.Write(req)
		v.mu.Lock()
		if err != nil {
			v.err = fmt.Errorf("rfbviewer: FramebufferUpdateRequest: %w", err)
			return
		}
	}
}

// covers reports whether the rectangles of the update just decoded cover
// every pixel of the w×h screen.
func (v *Viewer) covers(w, h int) bool {
	if w == 0 || h == 0 {
		return len(v.rects) > 0
	}
	if v.area < int64(w)*int64(h) {
		return false // cannot: most updates stop here
	}
	words := (w*h + 63) / 64
	if cap(v.cover) < words {
		v.cover = make([]uint64, words)
	}
	c := v.cover[:words]
	clear(c)
	for _, r := range v.rects {
		for y := r.Y; y < r.Y+r.H; y++ {
			setBits(c, y*w+r.X, y*w+r.X+r.W)
		}
	}
	full := w * h / 64
	for _, x := range c[:full] {
		if x != ^uint64(0) {
			return false
		}
	}
	if rest := w * h % 64; rest != 0 {
		return c[full] == (uint64(1)<<rest)-1
	}
	return true
}

// paintedAll adds the rectangles of the update just decoded to what the
// viewer has painted since it started (restarting when the w×h screen's
// size changed), and reports whether that is every pixel.
func (v *Viewer) paintedAll(w, h int) bool {
	words := (w*h + 63) / 64
	if w != v.seenW || h != v.seenH || len(v.seen) != words {
		v.seen, v.seenW, v.seenH = make([]uint64, words), w, h
	}
	for _, r := range v.rects {
		if r.X+r.W > w || r.Y+r.H > h {
			continue
		}
		for y := r.Y; y < r.Y+r.H; y++ {
			setBits(v.seen, y*w+r.X, y*w+r.X+r.W)
		}
	}
	full := w * h / 64
	for _, x := range v.seen[:full] {
		if x != ^uint64(0) {
			return false
		}
	}
	if rest := w * h % 64; rest != 0 {
		return v.seen[full] == (uint64(1)<<rest)-1
	}
	return true
}

// setBits sets bits [from, to) of c.
func setBits(c []uint64, from, to int) {
	for from < to && from%64 != 0 {
		c[from/64] |= 1 << (from % 64)
		from++
	}
	for ; from+64 <= to; from += 64 {
		c[from/64] = ^uint64(0)
	}
	for ; from < to; from++ {
		c[from/64] |= 1 << (from % 64)
	}
}

// ServerInit is the ServerInit the Viewer started from.
func (v *Viewer) ServerInit() ServerInit { return v.si }

// Stats returns the counters so far.
func (v *Viewer) Stats() Stats {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.stats
	s.Bytes = v.bytes.Load()
	return s
}

// Bytes is the number of bytes read after ServerInit, without waiting for
// the decoder.
func (v *Viewer) Bytes() int64 { return v.bytes.Load() }

// Snapshot copies the pixels as of the end of an update (or of the
// decoding's end): it waits, if need be, until the decoder has finished
// the message it is in.
func (v *Viewer) Snapshot() Picture {
	v.mu.Lock()
	defer v.mu.Unlock()
	for !v.idle && !v.halted {
		v.cond.Wait()
	}
	fb := v.dec.Framebuffer()
	return Picture{W: fb.Width(), H: fb.Height(), Pix: append([]byte(nil), fb.Pix()...)}
}

// Equal reports whether the pixels, as of the end of an update (as
// Snapshot), are pix (framebuffer.NoVNCFormat, 4·Width bytes a row),
// comparing in place without a copy.
func (v *Viewer) Equal(pix []byte) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for !v.idle && !v.halted {
		v.cond.Wait()
	}
	return string(v.dec.Framebuffer().Pix()) == string(pix)
}

// Pause stops the Viewer reading its connection once it has decoded the
// message it is in, until Resume. It returns at once.
func (v *Viewer) Pause() {
	v.mu.Lock()
	v.paused = true
	v.mu.Unlock()
}

// Resume lets a paused Viewer read again and returns the time it did so.
func (v *Viewer) Resume() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.paused = false
	v.resumeAt = time.Now()
	v.cond.Broadcast()
	return v.resumeAt
}

// Halted reports whether the Viewer is paused and has stopped reading
// (or has ended).
func (v *Viewer) Halted() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.halted
}

// Stop ends the decoding at the end of the current message. A Viewer
// waiting for bytes ends when they come or its connection is closed:
// close the connection to end it at once.
func (v *Viewer) Stop() {
	v.mu.Lock()
	v.stopped = true
	v.cond.Broadcast()
	v.mu.Unlock()
}

// Done is closed when the decoding has ended.
func (v *Viewer) Done() <-chan struct{} { return v.done }

// Err is the error that ended the decoding: nil while it runs, after a
// clean end of the stream between messages, or after Stop.
func (v *Viewer) Err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}
