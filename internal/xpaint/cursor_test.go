package xpaint_test

import (
	"net"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfbviewer"
)

// TestHideCursor: with -retro Xvnc shows X's cursor in the middle of the
// screen and draws it into the pixels a viewer gets (not into GetImage's);
// once HideCursor is done, a viewer's pixels equal GetImage's.
func TestHideCursor(t *testing.T) {
	xv := peertest.StartXvnc(t, "xpaint4", "-geometry", "320x240", "-depth", "24", "-retro", "-SecurityTypes", "None")
	x := dial(t, xv.Display)
	x.Fill(0, 0, 320, 240, 0x808080)
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", xv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := rfbviewer.Dial(c, rfbviewer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rgb, err := x.GetImage(0, 0, 320, 240)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 0, 320*240*4)
	for i := 0; i < len(rgb); i += 3 {
		want = append(want, rgb[i], rgb[i+1], rgb[i+2], 0)
	}
	for deadline := time.Now().Add(30 * time.Second); v.Stats().FirstFull == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no full update in 30 s")
		}
	}
	if v.Equal(want) {
		t.Fatal("with X's cursor shown, the viewer's pixels equal GetImage's: this test shows nothing")
	}
	x.HideCursor()
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !v.Equal(want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("30 s after HideCursor the viewer's pixels still differ from GetImage's")
		}
	}
}
