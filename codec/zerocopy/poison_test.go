//go:build wirebench_poison

package zerocopy

import (
	"bytes"
	"errors"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/golden"
)

// Under the wirebench_poison tag the codec overwrites a released frame
// buffer with 0xDB. These tests show that a view used after
// Frame.Release is caught: Check and the walk report it, and borrowed
// strings read back as poison.

func readFrame(t *testing.T, m codec.Message) codec.Frame {
	t.Helper()
	b, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	f, err := codec.NewReader(bytes.NewReader(b), schema.DefaultMaxFrame).Next()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func poisoned(s string) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != 0xDB {
			return false
		}
	}
	return true
}

func TestSnapshotUseAfterRelease(t *testing.T) {
	for _, reused := range []bool{false, true} {
		snapshotUseAfterRelease(t, reused)
	}
}

// snapshotUseAfterRelease checks a view used after Release, a fresh one
// (its walks read the bytes) or a reused one (they read its node table).
func snapshotUseAfterRelease(t *testing.T, reused bool) {
	s, _ := golden.Lookup("response_snapshot")
	f := readFrame(t, s.Msg)
	var v Snapshot
	if reused {
		if err := v.Parse(f.Payload); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Parse(f.Payload); err != nil {
		t.Fatal(err)
	}
	if (v.nRecs > 0) != reused {
		t.Fatalf("reused %v: %d nodes in the table", reused, v.nRecs)
	}
	if err := v.Check(); err != nil {
		t.Fatalf("Check before release: %v", err)
	}
	var class, text string
	var w Walker
	for w.Reset(&v); w.Next(); {
		if n := w.Node(); n != nil && n.Text.Ok && n.Text.Val != "" {
			class, text = n.ClassName, n.Text.Val
			break
		}
	}
	if class == "" || text == "" {
		t.Fatal("no node with a class and text in the sample")
	}
	str0, _ := v.String(0)

	f.Release()

	if err := v.Check(); !errors.Is(err, ErrReleased) {
		t.Errorf("Check after release: %v, want ErrReleased", err)
	}
	for _, s := range []string{class, text, str0} {
		if !poisoned(s) {
			t.Errorf("borrowed string %q is not poisoned after release", s)
		}
	}
	w.Reset(&v)
	n := 0
	for w.Next() {
		n++
	}
	if w.Err() == nil {
		t.Errorf("a walk after release visits %d items and reports nothing", n)
	}
	if _, err := toOwned(&v); err == nil {
		t.Error("toOwned after release succeeds")
	}
}

func TestEventUseAfterRelease(t *testing.T) {
	s, _ := golden.Lookup("event_frame")
	f := readFrame(t, s.Msg)
	e, err := ParseEvent(f.Payload)
	if err != nil || len(e.Image) == 0 {
		t.Fatal(e, err)
	}
	h, err := Header(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	f.Release()
	if !poisoned(string(e.Image)) {
		t.Error("the image is not poisoned after release")
	}
	_ = h // a HeaderView holds no borrowed bytes for an event
}

func TestErrorCodeUseAfterRelease(t *testing.T) {
	s, _ := golden.Lookup("response_error_busy")
	f := readFrame(t, s.Msg)
	h, err := Header(f.Payload)
	if err != nil || h.Code != "busy" {
		t.Fatal(h, err)
	}
	f.Release()
	if !poisoned(h.Code) {
		t.Errorf("the code %q is not poisoned after release", h.Code)
	}
}
