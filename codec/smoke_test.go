package codec

import (
	"reflect"
	"testing"
)

func TestSmoke(t *testing.T) {
	msgs := []Message{
		&Hello{Versions: []uint32{1}, MaxFrame: 1 << 24, Capabilities: CapAll, Agent: "a", Token: Some("t"), Device: Some(Device{Model: "m", SDK: 34, ABI: "x86", Display: Display{1080, 1920, 420, 0}})},
		&Welcome{Version: Some[uint32](1), MaxFrame: Some[uint32](4096), Session: Some[uint64](9)},
		&Request{ID: 7, Method: MethodTap, Params: &TapParams{X: -1, Y: 300}},
		&Response{ID: 7, Method: MethodSnapshot, Result: &Snapshot{Strings: []string{"a"}, Windows: []Window{{ID: 1, Root: &Node{ID: 1, Children: []Node{{ID: 2, Scroll: &Scroll{Axis: 1, Range: Some(ScrollRange{0, 0, 199})}}}}}}}},
		&Event{Stream: StreamTree, Seq: 3, Type: TypeContentChanged, Body: &ContentChanged{1, 2, 3}},
		&Ping{Nonce: 5},
	}
	for _, m := range msgs {
		b, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%T: %v (%x)", m, err, b)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%T: got %#v want %#v", m, got, m)
		}
	}
}
