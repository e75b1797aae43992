package zerocopy

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// checkHeader compares a header view with the codec's decode of the same
// payload.
func checkHeader(t testing.TB, name string, h HeaderView, m codec.Message) {
	t.Helper()
	if h.Kind != m.Kind() {
		t.Errorf("%s: kind %v, codec %v", name, h.Kind, m.Kind())
		return
	}
	switch m := m.(type) {
	case *codec.Request:
		if !h.HasID || !h.HasMethod || h.Method != m.Method || h.IsError {
			t.Errorf("%s: header %+v, request id %d method %v", name, h, m.ID, m.Method)
		}
		if h.ID != m.ID {
			t.Errorf("%s: id %d, codec %d", name, h.ID, m.ID)
		}
	case *codec.Response:
		if !h.HasID || !h.HasMethod || h.Method != m.Method || h.IsError != (m.Error != nil) || h.HasResult != (m.Error == nil) {
			t.Errorf("%s: header %+v, response %+v", name, h, m)
		}
		if h.ID != m.ID {
			t.Errorf("%s: id %d, codec %d", name, h.ID, m.ID)
		}
		if m.Error != nil && h.Code != string(m.Error.Code) {
			t.Errorf("%s: code %q, codec %q", name, h.Code, m.Error.Code)
		}
	case *codec.Welcome:
		if h.IsError != (m.Error != nil) || (m.Error != nil && h.Code != string(m.Error.Code)) {
			t.Errorf("%s: header %+v, welcome %+v", name, h, m)
		}
	case *codec.Ping:
		if h.Nonce != m.Nonce {
			t.Errorf("%s: nonce %d, codec %d", name, h.Nonce, m.Nonce)
		}
	case *codec.Pong:
		if h.Nonce != m.Nonce {
			t.Errorf("%s: nonce %d, codec %d", name, h.Nonce, m.Nonce)
		}
	case *codec.Event:
		if h.Stream != m.Stream || h.Seq != m.Seq || h.Type != m.Type {
			t.Errorf("%s: header %+v, event %+v", name, h, m)
		}
	}
}

func TestHeaderGolden(t *testing.T) {
	kinds := map[codec.Kind]int{}
	for _, g := range goldenFrames(t) {
		m, err := codec.Decode(g.payload)
		if err != nil {
			t.Fatalf("%s: codec: %v", g.name, err)
		}
		h, err := Header(g.payload)
		if err != nil {
			t.Errorf("%s: %v", g.name, err)
			continue
		}
		kinds[h.Kind]++
		checkHeader(t, g.name, h, m)
	}
	for k := codec.KindHello; k <= codec.KindEvent; k++ {
		if kinds[k] == 0 {
			t.Errorf("no golden frame of kind %v", k)
		}
	}
}

func TestHeaderErrorCode(t *testing.T) {
	h, err := Header(goldenPayload(t, "response_error_busy.bin"))
	if err != nil || !h.IsError || h.Code != "busy" || h.Kind != codec.KindResponse {
		t.Fatalf("busy: %+v, %v", h, err)
	}
}

func TestHeaderRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"text", []byte{0x61, 'a'}},
		{"id not uint", []byte{0xa2, 0x00, 0x02, 0x01, 0x61, 'a'}},
		{"method too big", []byte{0xa2, 0x00, 0x03, 0x02, 0x1b, 1, 0, 0, 0, 0, 0, 0, 0}},
		{"no kind", []byte{0xa1, 0x01, 0x01}},
		{"short event", []byte{0x82, 0x06, 0x00}},
		{"truncated", []byte{0xa3, 0x00}},
	} {
		if _, err := Header(c.in); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestEventGolden(t *testing.T) {
	n := goldenViews(t, ParseEvent, func(name string, v EventView, ev *codec.Event) {
		if got := eventOwned(&v); !reflect.DeepEqual(got, ev) {
			t.Errorf("%s: owned %+v, codec %+v", name, got, ev)
		}
	})
	if n < 3 {
		t.Errorf("%d golden events, want 3", n)
	}
}

// goldenViews parses every golden frame with a view's parse: a frame the
// codec decodes as an M must parse, and check compares the two; any other
// must be refused. It returns how many frames were an M.
func goldenViews[M codec.Message, V any](t *testing.T, parse func([]byte) (V, error), check func(name string, v V, m M)) (n int) {
	t.Helper()
	for _, g := range goldenFrames(t) {
		m, err := codec.Decode(g.payload)
		if err != nil {
			t.Fatal(err)
		}
		v, err := parse(g.payload)
		want, ok := m.(M)
		if !ok {
			if err == nil {
				t.Errorf("%s: a %v, but the view accepts it", g.name, m.Kind())
			}
			continue
		}
		n++
		if err != nil {
			t.Errorf("%s: %v", g.name, err)
			continue
		}
		check(g.name, v, want)
	}
	return n
}

func TestEventFrameImageBorrowed(t *testing.T) {
	payload := goldenPayload(t, "event_frame.bin")
	v, err := ParseEvent(payload)
	if err != nil || !v.Known || len(v.Image) == 0 {
		t.Fatalf("%+v, %v", v, err)
	}
	lo, hi := &payload[0], &payload[len(payload)-1]
	p := &v.Image[0]
	if uintptrOf(p) < uintptrOf(lo) || uintptrOf(p) > uintptrOf(hi) {
		t.Fatal("image is not a subslice of the payload")
	}
}

// TestRequiredKeysFollowSchema checks the fast paths' constants against
// codec's schema table.
func TestRequiredKeysFollowSchema(t *testing.T) {
	if nodeNeed != schema.Node.RequiredMask() {
		t.Errorf("nodeNeed %b; the schema requires %b", nodeNeed, schema.Node.RequiredMask())
	}
}

// TestEventFast: parseFast reads the tree events as encoders write them,
// and leaves to the general path (reporting false, the view untouched)
// each variant it does not read: there, as on the fast path, the view
// agrees with codec.Decode, on the value or on failing.
func TestEventFast(t *testing.T) {
	enc := func(ev *codec.Event) []byte {
		t.Helper()
		b, err := codec.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	big := uint32(1<<32 - 1)
	for _, c := range []struct {
		name    string
		payload []byte
		fast    bool
	}{
		{"content_changed", enc(&codec.Event{Stream: codec.StreamTree, Seq: 1 << 40, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: 3, Node: 300, Change: 70000}}), true},
		{"content_changed max", enc(&codec.Event{Stream: codec.StreamTree, Seq: 1<<64 - 1, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: big, Node: big, Change: big}}), true},
		{"window_changed", enc(&codec.Event{Stream: codec.StreamTree, Seq: 7, Type: codec.TypeWindowChanged, Body: &codec.WindowChanged{Window: 24, Change: 255}}), true},
		{"frame", enc(&codec.Event{Stream: codec.StreamFrames, Seq: 2, Type: codec.TypeFrame, Body: &codec.ScreenFrame{Width: 2, Height: 2, Image: []byte{1, 2}}}), false},
		{"unknown type", []byte{0x86, 6, 0, 1, 30, 1, 2}, false},
		{"extra element", []byte{0x87, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 2, 3}, false},
		{"missing element", []byte{0x86, 6, 0, 1, byte(codec.TypeContentChanged), 1, 2}, false},
		{"trailing byte", []byte{0x86, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 2, 0}, false},
		{"cut short", []byte{0x86, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 0x19, 1}, false},
		{"window past u32", []byte{0x86, 6, 0, 1, byte(codec.TypeWindowChanged), 0x1b, 0, 0, 0, 1, 0, 0, 0, 0, 2}, false},
		{"negative change", []byte{0x86, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 0x20}, false},
		{"text node", []byte{0x87, 6, 0, 1, byte(codec.TypeContentChanged), 1, 0x61, 'a', 2}, false},
		{"two-byte head", []byte{0x98, 6, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 2}, false},
		{"indefinite", []byte{0x9f, 6, 0, 1, byte(codec.TypeWindowChanged), 1, 2, 0xff}, false},
		{"not an event", []byte{0x86, 5, 0, 1, byte(codec.TypeWindowChanged), 1, 2}, false},
	} {
		var v EventView
		if got := v.parseFast(c.payload); got != c.fast || !got && !reflect.DeepEqual(v, EventView{}) {
			t.Errorf("%s: parseFast %v (view %+v), want %v", c.name, got, v, c.fast)
		}
		m, derr := codec.Decode(c.payload)
		err := v.Parse(c.payload)
		ev, ok := m.(*codec.Event)
		switch {
		case derr == nil && ok && err != nil:
			t.Errorf("%s: the codec decodes it, the view fails: %v", c.name, err)
		case derr == nil && ok && !reflect.DeepEqual(eventOwned(&v), ev):
			t.Errorf("%s: owned %+v, codec %+v", c.name, eventOwned(&v), ev)
		case (derr != nil || !ok) && err == nil && !errors.Is(derr, cbor.ErrIndefinite):
			t.Errorf("%s: the codec refuses it (%v), the view reads %+v", c.name, derr, v)
		}
	}
}
