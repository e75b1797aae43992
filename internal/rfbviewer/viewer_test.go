package rfbviewer_test

import (
	"net"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfbviewer"
	"github.com/wirebench/wirebench/internal/xpaint"
)

// startX starts a real Xvnc without authentication (so that Dial's None
// handshake reaches it straight) and a damage generator in it.
func startX(t *testing.T) (*peertest.XvncServer, *xpaint.Conn, *xpaint.Damage) {
	t.Helper()
	xv := peertest.StartXvnc(t, "viewerpw", "-geometry", "640x480", "-depth", "24", "-SecurityTypes", "None")
	x, err := xpaint.Dial(xv.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	d, err := xpaint.NewDamage(x, xpaint.DamageConfig{Seed: 34, FPS: 25})
	if err != nil {
		t.Fatal(err)
	}
	return xv, x, d
}

func dialViewer(t *testing.T, addr string, opt rfbviewer.Options) (*rfbviewer.Viewer, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	v, err := rfbviewer.Dial(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// screenOf is the X server's own picture of its screen, in the viewer's
// pixel layout (R, G, B, 0).
func screenOf(t *testing.T, x *xpaint.Conn) []byte {
	t.Helper()
	pix, err := x.Screen()
	if err != nil {
		t.Fatal(err)
	}
	return pix
}

// waitEqual waits until v's pixels equal want, or fails after a generous
// deadline (the host is loaded).
func waitEqual(t *testing.T, v *rfbviewer.Viewer, want []byte, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if v.Equal(want) {
			if p := v.Snapshot(); string(p.Pix) != string(want) {
				t.Fatalf("%s: Equal, but the snapshot differs", what)
			}
			return
		}
		if err := v.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if time.Now().After(deadline) {
			p := v.Snapshot()
			diff := 0
			for i := 0; i < len(want) && i < len(p.Pix); i += 4 {
				if string(p.Pix[i:i+4]) != string(want[i:i+4]) {
					diff++
				}
			}
			t.Fatalf("%s: %d pixels still differ from the X server's screen after 60 s (%dx%d); stats %+v", what, diff, p.W, p.H, v.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestViewerAgainstXvnc: a viewer straight to a real Xvnc, while the
// damage generator paints, ends with the X server's own screen, pixel for
// pixel; its first update covers the whole screen; the scrolling text
// comes as CopyRect and the rest as Tight.
func TestViewerAgainstXvnc(t *testing.T) {
	xv, x, d := startX(t)
	if err := d.Frame(); err != nil { // the desktop
		t.Fatal(err)
	}
	v, _ := dialViewer(t, xv.Addr, rfbviewer.Options{})
	if si := v.ServerInit(); si.Width != 640 || si.Height != 480 {
		t.Fatalf("ServerInit %+v", si)
	}
	d.Start(40)
	if err := d.Wait(); err != nil {
		t.Fatal(err)
	}
	waitEqual(t, v, screenOf(t, x), "after 40 frames")
	st := v.Stats()
	t.Logf("stats: %d updates, %d rects, %d bytes, %d full, first full after %v; decoder %+v", st.Updates, st.Rects, st.Bytes, st.FullUpdates, st.FirstFull, st.Decoder)
	if st.FirstFull <= 0 || st.FullUpdates < 1 || st.Updates < 2 || st.Bytes <= 0 {
		t.Fatalf("stats %+v: want a first full update and more", st)
	}
	if st.Decoder.CopyRect == 0 || st.Decoder.Tight == 0 || st.Decoder.TightJPEG != 0 {
		t.Fatalf("decoder stats %+v: want CopyRect and Tight rectangles and no JPEG (none asked for)", st.Decoder)
	}
}

// TestViewerPause: a paused viewer reads nothing while the damage goes on
// (its byte count stands still) and, resumed, ends with the X server's
// screen.
func TestViewerPause(t *testing.T) {
	xv, x, d := startX(t)
	v, _ := dialViewer(t, xv.Addr, rfbviewer.Options{Quality: 0})
	d.Start(0)
	t.Cleanup(func() { d.Stop() })
	for deadline := time.Now().Add(30 * time.Second); v.Stats().Updates < 5; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("5 updates not decoded in 30 s: %+v, %v", v.Stats(), v.Err())
		}
	}
	v.Pause()
	for deadline := time.Now().Add(30 * time.Second); !v.Halted(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not halted 30 s after Pause")
		}
	}
	b0, u0 := v.Bytes(), v.Stats().Updates
	time.Sleep(700 * time.Millisecond) // the damage goes on: 17 frames
	if b, u := v.Bytes(), v.Stats().Updates; b != b0 || u != u0 {
		t.Fatalf("paused, the viewer read %d more bytes and %d more updates", b-b0, u-u0)
	}
	p := v.Snapshot() // a paused viewer's snapshot does not wait
	if p.W != 640 || p.H != 480 {
		t.Fatalf("snapshot %dx%d", p.W, p.H)
	}
	v.Resume()
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	waitEqual(t, v, screenOf(t, x), "after the pause")
	if v.Stats().Updates <= u0 {
		t.Fatal("no update after Resume")
	}
}

// TestViewerJPEG: with a quality level the server may send JPEG, and the
// viewer decodes it.
func TestViewerJPEG(t *testing.T) {
	xv, _, d := startX(t)
	if err := d.Frame(); err != nil {
		t.Fatal(err)
	}
	v, _ := dialViewer(t, xv.Addr, rfbviewer.Options{Quality: 6})
	if err := d.Run(t.Context(), 20); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for v.Stats().Decoder.TightJPEG == 0 {
		if time.Now().After(deadline) || v.Err() != nil {
			t.Fatalf("no JPEG rectangle at quality 6: %+v, %v", v.Stats(), v.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := rfbviewer.Start(nil, rfbviewer.ServerInit{Width: 10, Height: 10}, rfbviewer.Options{Quality: 11}); err == nil {
		t.Fatal("quality 11: no error")
	}
}

// TestViewerEnds: a closed connection ends the viewer (Done) with no
// error at a message boundary; Stop ends a paused one.
func TestViewerEnds(t *testing.T) {
	xv, x, _ := startX(t)
	v, c := dialViewer(t, xv.Addr, rfbviewer.Options{})
	for deadline := time.Now().Add(30 * time.Second); v.Stats().Updates < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no update in 30 s")
		}
	}
	c.Close()
	select {
	case <-v.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the viewer did not end after its connection closed")
	}
	if v.Err() == nil {
		t.Log("ended cleanly")
	} else {
		t.Logf("ended with %v", v.Err())
	}
	w, _ := dialViewer(t, xv.Addr, rfbviewer.Options{})
	w.Pause()
	// A viewer waiting for bytes halts after the next message: paint, so
	// that Xvnc sends one.
	for i, deadline := 0, time.Now().Add(30*time.Second); !w.Halted(); i++ {
		if time.Now().After(deadline) {
			t.Fatal("not halted 30 s after Pause")
		}
		x.Fill(0, 0, 16, 16, uint32(0x102030*(i%7+1)))
		if err := x.Sync(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.Stop()
	select {
	case <-w.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("a paused viewer did not end after Stop")
	}
}
