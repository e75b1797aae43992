//go:build wirebench_poison

package codec_test

import (
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
)

// TestDecoderPoisonsTheLastMessage: under the wirebench_poison tag (make
// test-poison), a message a Decoder returned and that is used after the
// next call reads poison: its texts are 0xDB bytes, its ids, bounds,
// flags and sequence numbers 0xDBDBDBDB words. A test of code that keeps
// a message too long sees it there.
func TestDecoderPoisonsTheLastMessage(t *testing.T) {
	s, _ := golden.Lookup("response_snapshot")
	ev, _ := golden.Lookup("event_content_changed")
	tap, _ := golden.Lookup("request_tap")
	snapB, evB, tapB := mustMarshal(t, s.Msg), mustMarshal(t, ev.Msg), mustMarshal(t, tap.Msg)
	dec := codec.NewDecoder(0)

	m, err := dec.Decode(snapB)
	if err != nil {
		t.Fatal(err)
	}
	snap := m.(*codec.Response).Result.(*codec.Snapshot)
	root := snap.Windows[0].Root
	text := findText(root)
	if text == nil || strings.Contains(*text, "\xdb") {
		t.Fatalf("no text in the sample, or poisoned already: %v", text)
	}
	m2, err := dec.Decode(evB) // the next call: snap is now used too long
	if err != nil {
		t.Fatal(err)
	}
	if *text != strings.Repeat("\xdb", len(*text)) {
		t.Errorf("a text used after the next call reads %q, not poison", *text)
	}
	if root.ID != 0xDBDBDBDB || root.Flags != 0xDBDBDBDB || root.Bounds.Left != -0x24242425 {
		t.Errorf("a node used after the next call reads id %#x flags %#x bounds %v, not poison", root.ID, root.Flags, root.Bounds)
	}
	if snap.Strings[0] != strings.Repeat("\xdb", len(snap.Strings[0])) {
		t.Errorf("the string table after the next call reads %q", snap.Strings[0])
	}
	e := m2.(*codec.Event)
	if _, err := dec.Decode(tapB); err != nil {
		t.Fatal(err)
	}
	if e.Seq != 0xDBDBDBDBDBDBDBDB {
		t.Errorf("an event used after the next call has seq %#x, not poison", e.Seq)
	}
	// The message of the last call is whole.
	m3, err := dec.Decode(snapB)
	if err != nil || *findText(m3.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root) != text2(t, s.Msg) {
		t.Errorf("the message of the last call: %v", err)
	}
}

// findText returns the first present text of the tree at n, depth first.
func findText(n *codec.Node) *string {
	if n.Text != "" {
		return &n.Text
	}
	for i := range n.Children {
		if t := findText(&n.Children[i]); t != nil {
			return t
		}
	}
	return nil
}

func text2(t *testing.T, m codec.Message) string {
	t.Helper()
	return *findText(m.(*codec.Response).Result.(*codec.Snapshot).Windows[0].Root)
}

// TestDecoderPoisonsTheLastRequest: a request a Decoder returned, from
// the fast path or the general decoder, reads poison once it is used
// after the next call: its id, deadline and integer params, its evict
// list and its texts.
func TestDecoderPoisonsTheLastRequest(t *testing.T) {
	payload := func(name string) []byte {
		s, ok := golden.Lookup(name)
		if !ok {
			t.Fatalf("no golden %s", name)
		}
		return mustMarshal(t, s.Msg)
	}
	dec := codec.NewDecoder(0)
	decode := func(b []byte) *codec.Request {
		t.Helper()
		m, err := dec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*codec.Request)
	}
	const p32, pI32, p64 = 0xDBDBDBDB, -0x24242425, 0xDBDBDBDBDBDBDBDB

	tap := decode(payload("request_tap"))
	tp := tap.Params.(*codec.TapParams)
	if tap.ID != 6 || *tp != (codec.TapParams{X: 540, Y: 1200}) {
		t.Fatalf("the tap reads %+v %+v", tap, tp)
	}
	snap := decode(payload("request_snapshot_evict_windows")) // the next call
	if tap.ID != p64 || tp.X != pI32 || tp.Y != pI32 {
		t.Errorf("a tap used after the next call reads id %#x, %+v, not poison", tap.ID, *tp)
	}
	sp := snap.Params.(*codec.SnapshotParams)
	if len(sp.Evict) != 3 || sp.Evict[0] != 3 {
		t.Fatalf("the snapshot request reads %+v", sp)
	}
	dl := decode(payload("request_deadline"))
	if snap.ID != p64 || sp.Evict[0] != p32 || sp.Evict[2] != p32 {
		t.Errorf("a snapshot request used after the next call reads id %#x, evict %v, not poison", snap.ID, sp.Evict)
	}
	if !dl.DeadlineMS.Ok {
		t.Fatalf("request_deadline has no deadline: %+v", dl)
	}
	text := decode(payload("request_set_text")) // the general decoder
	if dl.ID != p64 || dl.DeadlineMS.Val != p32 {
		t.Errorf("a request used after the next call has id %#x, deadline %#x, not poison", dl.ID, dl.DeadlineMS.Val)
	}
	st := text.Params.(*codec.SetTextParams)
	s := st.Text
	if s == "" || strings.Contains(s, "\xdb") {
		t.Fatalf("set_text reads %+v", st)
	}
	swipe := decode(payload("request_swipe_rest"))
	if text.ID != p64 || st.Node != p32 || s != strings.Repeat("\xdb", len(s)) {
		t.Errorf("a set_text used after the next call reads id %#x, node %#x, text %q, not poison", text.ID, st.Node, s)
	}
	// The request of the last call is whole.
	if sw := swipe.Params.(*codec.SwipeParams); swipe.ID != 9 || !sw.RestMS.Ok || sw.RestMS.Val != 60 || sw.X1 != 540 {
		t.Errorf("the request of the last call: %+v %+v", swipe, sw)
	}
}
