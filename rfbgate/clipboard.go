package rfbgate

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/wirebench/wirebench/internal/rfb"
)

// Glass keeps the last clipboard text each computer's Xvnc sent, so that a
// surface that takes the keyboard finds the desktop's current clipboard in
// its box (the take-over's answer carries it: only the new holder sees
// it). Xvnc sends the text in one of two forms: classic ServerCutText
// (Latin-1, to every viewer), or with the extended clipboard, which noVNC
// uses, a "notify" to every viewer and a zlib "provide" to the viewer
// that asks (the holder: a watcher's request is dropped by the gate). A
// notify seen by a viewer that will not ask means the kept text is stale,
// so it is forgotten rather than shown wrong.

// clipboards is the last known clipboard text of each computer.
type clipboards struct {
	mu   sync.Mutex
	text map[string]string // absent: not known
}

func (c *clipboards) set(agent, text string) {
	c.mu.Lock()
	if c.text == nil {
		c.text = make(map[string]string)
	}
	c.text[agent] = text
	c.mu.Unlock()
}

func (c *clipboards) forget(agent string) {
	c.mu.Lock()
	delete(c.text, agent)
	c.mu.Unlock()
}

func (c *clipboards) get(agent string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.text[agent]
	return t, ok
}

// clipboardFor is the clipboard text for a take-over's answer: agent's
// last known text if stream of surface now holds the keyboard, else nil.
func (r *Relay) clipboardFor(agent, surface, stream string) *string {
	if !r.leases.holds(agent, surface, stream) {
		return nil
	}
	if t, ok := r.clips.get(agent); ok {
		return &t
	}
	return nil
}

// cutTap receives the ServerCutText messages a serverFilter frames: begin
// with the form and the payload length (after the flags, for the extended
// form), the payload in pieces, then end.
type cutTap interface {
	cutBegin(extended bool, flags uint32, n int64, forwarded bool)
	cutData(b []byte)
	cutEnd()
}

// clipTap keeps a viewer's ServerCutText payloads (up to the cut-text
// limit) and records their text in the relay's clipboards.
type clipTap struct {
	r       *Relay
	agent   string
	limit   int
	ext     bool
	flags   uint32
	fwd     bool
	skipped bool // the payload is over the limit: not kept
	buf     []byte
}

// tapClipboard makes v's server filter report ServerCutText to glass's
// clipboard keeper.
func (v *viewer) tapClipboard() {
	v.filter.tap = &clipTap{r: v.r, agent: v.agent, limit: v.r.cfg.Limits.MaxCutText}
}

func (t *clipTap) cutBegin(extended bool, flags uint32, n int64, forwarded bool) {
	t.ext, t.flags, t.fwd = extended, flags, forwarded
	t.buf = t.buf[:0]
	t.skipped = n > int64(t.limit)
}

func (t *clipTap) cutData(b []byte) {
	if !t.skipped {
		t.buf = append(t.buf, b...)
	}
}

func (t *clipTap) cutEnd() {
	switch {
	case t.skipped:
		t.r.clips.forget(t.agent)
	case !t.ext:
		t.r.clips.set(t.agent, latin1(t.buf))
	case t.flags&rfb.ClipboardProvide != 0 && t.flags&rfb.ClipboardText != 0:
		if text, ok := providedText(t.buf, t.limit); ok {
			t.r.clips.set(t.agent, text)
		} else {
			t.r.clips.forget(t.agent)
		}
	case t.flags&rfb.ClipboardNotify != 0 && !t.fwd:
		t.r.clips.forget(t.agent) // nobody will ask for it through this viewer
	}
	if cap(t.buf) > 64<<10 {
		t.buf = nil // do not keep a large buffer per viewer
	}
}

// latin1 converts classic cut text (ISO 8859-1) to a string.
func latin1(b []byte) string {
	var sb bytes.Buffer
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// providedText decodes the text of an extended clipboard "provide":
// zlib-compressed, its first format (text, the lowest flag bit) a u32
// length and UTF-8 ending in a NUL. It reads at most limit bytes of text.
func providedText(b []byte, limit int) (string, bool) {
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", false
	}
	defer zr.Close()
	var n [4]byte
	if _, err := io.ReadFull(zr, n[:]); err != nil {
		return "", false
	}
	l := binary.BigEndian.Uint32(n[:])
	if l > uint32(limit) {
		return "", false
	}
	text := make([]byte, l)
	if _, err := io.ReadFull(zr, text); err != nil {
		return "", false
	}
	text = bytes.TrimRight(text, "\x00")
	if !utf8.Valid(text) {
		return "", false
	}
	return string(text), true
}
