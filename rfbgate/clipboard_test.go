package rfbgate

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/rfb"
)

// zlibProvide is an extended clipboard "provide" body as TigerVNC writes
// it: u32 length and the NUL-terminated text, zlib-compressed and
// sync-flushed (the stream is not finished).
func zlibProvide(text string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(text)+1)))
	w.Write(append([]byte(text), 0))
	w.Flush()
	return b.Bytes()
}

// TestClipboardKeeper: glass keeps the clipboard text a computer's stream
// carries, in both forms, whatever the read sizes, for the holder's
// take-over; a notify a viewer will not ask about forgets it; a text over
// the cut-text limit is not kept (at the limit it is).
func TestClipboardKeeper(t *testing.T) {
	const limit = 64
	for _, chunk := range []int{1, 3, 4096} {
		for _, c := range []struct {
			name   string
			stream []byte
			holder bool
			want   string
			known  bool
		}{
			{"classic Latin-1", srvCut("caf\xe9"), false, "café", true},
			{"extended provide", srvExtCut(rfb.ClipboardProvide|rfb.ClipboardText, zlibProvide("grüße")), true, "grüße", true},
			{"provide, then a notify the holder asks about", append(srvExtCut(rfb.ClipboardProvide|rfb.ClipboardText, zlibProvide("kept")), srvExtCut(rfb.ClipboardNotify|rfb.ClipboardText, nil)...), true, "kept", true},
			{"provide, then a notify nobody asks about", append(srvExtCut(rfb.ClipboardProvide|rfb.ClipboardText, zlibProvide("stale")), srvExtCut(rfb.ClipboardNotify|rfb.ClipboardText, nil)...), false, "", false},
			{"at the limit", srvCut(strings.Repeat("x", limit)), false, strings.Repeat("x", limit), true},
			{"past the limit", append(srvCut("earlier"), srvCut(strings.Repeat("x", limit+1))...), false, "", false},
			{"provide that is not zlib", append(srvCut("earlier"), srvExtCut(rfb.ClipboardProvide|rfb.ClipboardText, []byte("not zlib"))...), true, "", false},
			{"capabilities only", srvExtCut(rfb.ClipboardCaps|rfb.ClipboardText, []byte{0, 0, 0x10, 0}), false, "", false},
		} {
			r := &Relay{}
			f := newFilter(t, c.holder)
			f.tap = &clipTap{r: r, agent: "a", limit: limit}
			in := bytes.Join([][]byte{{rfb.MsgBell}, c.stream, {rfb.MsgBell}}, nil)
			if _, err := serverFeed(f, in, whole(chunk)); err != nil {
				t.Fatalf("%s, reads of %d: %v", c.name, chunk, err)
			}
			got, known := r.clips.get("a")
			if got != c.want || known != c.known {
				t.Errorf("%s, reads of %d: kept %q (%v), want %q (%v)", c.name, chunk, got, known, c.want, c.known)
			}
		}
	}
}
