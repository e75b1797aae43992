package session

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// treeSnapshot is a small snapshot whose texts name it by i.
func treeSnapshot(i int) *codec.Snapshot {
	root := &codec.Node{ID: 1, Text: "screen " + strconv.Itoa(i), Children: []codec.Node{{ID: 2, Desc: "button"}, {ID: 3, Hint: "hint " + strconv.Itoa(i)}}}
	return &codec.Snapshot{Strings: []string{"android.view.View"}, Windows: []codec.Window{{ID: 1, Title: codec.Some("w" + strconv.Itoa(i)), Root: root}}, Seq: uint64(i)}
}

// TestHostQueuesTrees: a host with Trees set queues each snapshot's
// Completed with a *codec.Tree that owns its memory (the first still
// reads as its snapshot once the second arrived), and completes the other
// methods and a snapshot's error as a host without it does.
func TestHostQueuesTrees(t *testing.T) {
	p := newPair(t, HostConfig{Trees: true}, fullCaps())
	params := &codec.SnapshotParams{Evict: []uint32{}}
	var ids []uint64
	for range 3 {
		id, err := p.h.Request(p.now, codec.MethodSnapshot, params, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	tap, err := p.h.Request(p.now, codec.MethodTap, &codec.TapParams{X: 1, Y: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.pump()
	for _, e := range p.takeAgent() {
		in := e.(*Incoming)
		switch {
		case in.ID == ids[2]:
			err = p.a.Fail(p.now, in.ID, codec.NewError(codec.CodeBadRequest, "no screen"))
		case in.Method == codec.MethodSnapshot:
			err = p.a.Respond(p.now, in.ID, treeSnapshot(int(in.ID)))
		default:
			err = p.a.Respond(p.now, in.ID, &codec.Empty{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	p.pump()
	done := completions(p.takeHost())
	if len(done) != 4 {
		t.Fatalf("%d completions, want 4", len(done))
	}
	for _, id := range ids[:2] {
		c := done[id]
		tr, ok := c.Result.(*codec.Tree)
		if !ok || c.Err != nil {
			t.Fatalf("request %d completed with %#v, %v: want a tree", id, c.Result, c.Err)
		}
		// A tree encodes as the snapshot it holds.
		got, err1 := codec.Marshal(&codec.Response{ID: id, Method: codec.MethodSnapshot, Result: tr})
		want, err2 := codec.Marshal(&codec.Response{ID: id, Method: codec.MethodSnapshot, Result: treeSnapshot(int(id))})
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("request %d's tree encodes as % x, want % x (%v, %v)", id, got, want, err1, err2)
		}
		if s := tr.Text(tr.Window(0).Root.Val, schema.KeyNodeText); s != "screen "+strconv.FormatUint(id, 10) {
			t.Fatalf("request %d's root text %q", id, s)
		}
	}
	if c := done[ids[2]]; c.Result != nil || c.Err == nil || c.Err.Message != "no screen" {
		t.Fatalf("the failed snapshot completed with %#v, %v", c.Result, c.Err)
	}
	if c := done[tap]; c.Err != nil || !reflect.DeepEqual(c.Result, &codec.Empty{}) {
		t.Fatalf("the tap completed with %#v, %v", c.Result, c.Err)
	}

	// Without Trees, a snapshot completes as a *codec.Snapshot.
	q := newPair(t, HostConfig{}, fullCaps())
	id, _ := q.h.Request(q.now, codec.MethodSnapshot, params, 0)
	q.pump()
	if err := q.a.Respond(q.now, q.incoming().ID, treeSnapshot(1)); err != nil {
		t.Fatal(err)
	}
	q.pump()
	if c := completions(q.takeHost())[id]; c == nil || !reflect.DeepEqual(c.Result, treeSnapshot(1)) {
		t.Fatalf("without Trees: %#v", c)
	}
}
