package xpaint_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/xpaint"
)

func dial(t *testing.T, display string) *xpaint.Conn {
	t.Helper()
	x, err := xpaint.Dial(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func screen(t *testing.T, x *xpaint.Conn) [32]byte {
	t.Helper()
	rgb, err := x.GetImage(0, 0, x.Width(), x.Height())
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(rgb)
}

// TestConnDraws: what PutImage, Fill and CopyArea draw is what GetImage
// reads back from a real Xvnc, pixel for pixel.
func TestConnDraws(t *testing.T) {
	xv := peertest.StartXvnc(t, "xpaint1", "-geometry", "400x300", "-depth", "24")
	x := dial(t, xv.Display)
	if x.Width() != 400 || x.Height() != 300 {
		t.Fatalf("root %dx%d, want 400x300", x.Width(), x.Height())
	}
	const w, h = 300, 40 // wide enough that PutImage needs no strips, tall enough for one test of them below
	img := make([]byte, 3*w*h)
	for i := range img {
		img[i] = byte(i * 7 / 3)
	}
	if err := x.PutImage(img, 10, 20, w, h); err != nil {
		t.Fatal(err)
	}
	x.Fill(0, 100, 50, 30, 0x123456)
	x.CopyArea(10, 20, 100, 200, 60, 40)
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := x.GetImage(10, 20, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(img) {
		t.Fatal("PutImage: the picture read back differs from the one put")
	}
	fill, err := x.GetImage(0, 100, 50, 30)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(fill); i += 3 {
		if fill[i] != 0x12 || fill[i+1] != 0x34 || fill[i+2] != 0x56 {
			t.Fatalf("Fill: pixel %d is %v, want 12 34 56", i/3, fill[i:i+3])
		}
	}
	cp, err := x.GetImage(100, 200, 60, 40)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 40 {
		if string(cp[3*60*r:3*60*(r+1)]) != string(img[3*w*r:3*w*r+3*60]) {
			t.Fatalf("CopyArea: row %d differs from its source", r)
		}
	}
	// a tall picture goes in strips of what one request holds
	tall := make([]byte, 3*400*300)
	for i := range tall {
		tall[i] = byte(i % 251)
	}
	if err := x.PutImage(tall, 0, 0, 400, 300); err != nil {
		t.Fatal(err)
	}
	if got, err := x.GetImage(0, 0, 400, 300); err != nil || string(got) != string(tall) {
		t.Fatalf("a full-screen PutImage read back differs (err %v)", err)
	}
	if _, err := x.GetImage(390, 0, 20, 10); err == nil {
		t.Fatal("GetImage beyond the root: no error")
	}
	if err := x.PutImage(img[:10], 0, 0, w, h); err == nil {
		t.Fatal("PutImage of too few bytes: no error")
	}
}

// TestDialRefusals: a display that does not exist is an error naming it.
func TestDialRefusals(t *testing.T) {
	_, err := xpaint.Dial(":65000")
	if err == nil {
		t.Fatal("Dial of a display that does not exist: no error")
	}
	t.Log(err)
}

// TestDamageDeterministic: the same seed and number of frames leave the
// same screen, whether painted frame by frame or by Start and Stop at the
// frame rate; another seed does not; and once Stop returns the screen
// stays still.
func TestDamageDeterministic(t *testing.T) {
	xv := peertest.StartXvnc(t, "xpaint2", "-geometry", "640x480", "-depth", "24")
	x := dial(t, xv.Display)
	clear := func() {
		x.Fill(0, 0, 640, 480, 0)
		if err := x.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	paint := func(seed uint64, frames int) [32]byte {
		clear()
		d, err := xpaint.NewDamage(x, xpaint.DamageConfig{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for range frames {
			if err := d.Frame(); err != nil {
				t.Fatal(err)
			}
		}
		return screen(t, x)
	}
	a := paint(7, 30)
	if b := paint(7, 30); a != b {
		t.Fatal("seed 7, 30 frames: two runs left different screens")
	}
	if b := paint(8, 30); a == b {
		t.Fatal("seeds 7 and 8 left the same screen")
	}
	if b := paint(7, 29); a == b {
		t.Fatal("29 and 30 frames left the same screen: a frame paints nothing")
	}

	// Start and Stop at 50 frames a second, for a while
	clear()
	d, err := xpaint.NewDamage(x, xpaint.DamageConfig{Seed: 7, FPS: 50})
	if err != nil {
		t.Fatal(err)
	}
	d.Start(0)
	time.Sleep(500 * time.Millisecond)
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	n := d.Frames()
	if n < 2 {
		t.Fatalf("%d frames in 0.5 s at 50 a second", n)
	}
	still := screen(t, x)
	time.Sleep(300 * time.Millisecond)
	if screen(t, x) != still {
		t.Fatal("the screen changed after Stop returned")
	}
	if want := paint(7, n); want != still {
		t.Fatalf("Start/Stop painted %d frames, but the screen differs from %d frames painted one by one", n, n)
	}
	t.Logf("Start/Stop painted %d frames in 0.5 s", n)

	// Run paints exactly the frames asked for; a cancelled Run stops
	clear()
	d, _ = xpaint.NewDamage(x, xpaint.DamageConfig{Seed: 7, FPS: 1000})
	if err := d.Run(context.Background(), 12); err != nil || d.Frames() != 12 {
		t.Fatalf("Run(12): %d frames, %v", d.Frames(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Run(ctx, 5); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context: %v", err)
	}
}

// TestDamageArea: an area smaller than MinWidth×MinHeight or outside the
// root is refused.
func TestDamageArea(t *testing.T) {
	xv := peertest.StartXvnc(t, "xpaint3", "-geometry", "640x480", "-depth", "24")
	x := dial(t, xv.Display)
	for _, c := range []xpaint.DamageConfig{
		{W: 300, H: 300}, {W: 400, H: 200}, {X: 400, W: 320, H: 240}, {X: -1, W: 320, H: 240},
	} {
		if _, err := xpaint.NewDamage(x, c); err == nil {
			t.Errorf("area %+v: no error", c)
		}
	}
	if _, err := xpaint.NewDamage(x, xpaint.DamageConfig{X: 320, Y: 240, W: 320, H: 240}); err != nil {
		t.Errorf("the smallest area at the bottom right corner: %v", err)
	}
}
