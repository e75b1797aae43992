package framebuffer_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/peertest"
	"github.com/wirebench/wirebench/internal/rfb"
	"github.com/wirebench/wirebench/internal/xpaint"
	"github.com/wirebench/wirebench/rfbgate"
)

const xvncW, xvncH = 480, 360

// screenPicture is what the test draws in Xvnc, in full-width bands so
// that Xvnc's encoders meet one kind of content at a time: a photo-like
// band (smooth gradients with noise), two-colour "text", forty colours in
// short runs, three colours in long runs, and large solid blocks.
func screenPicture() []byte {
	rng := rand.New(rand.NewPCG(34, 1))
	p := make([]byte, 3*xvncW*xvncH)
	set := func(x, y int, c [3]byte) { copy(p[3*(y*xvncW+x):], c[:]) }
	pal := [][3]byte{{250, 250, 245}, {20, 30, 40}, {200, 40, 40}, {40, 160, 60}, {30, 60, 200}, {230, 200, 20}}
	var run, pi int
	for y := range xvncH {
		for x := range xvncW {
			switch {
			case y < 100: // photo-like
				fx, fy := float64(x)/xvncW, float64(y)/100
				n := rng.IntN(24)
				set(x, y, [3]byte{byte(40+150*fx*fy) + byte(n), byte(200-120*fy+30*fx) + byte(n/2), byte(90+100*(1-fx)) + byte(rng.IntN(12))})
			case y < 160: // two-colour "text"
				if (x/3*7+y/4*13+x*y/5)%5 == 0 {
					set(x, y, [3]byte{10, 10, 10})
				} else {
					set(x, y, [3]byte{245, 245, 240})
				}
			case y < 230: // forty colours, short runs
				if run == 0 {
					run, pi = 1+rng.IntN(8), rng.IntN(40)
				}
				run--
				pi %= 40 // a run may come from the band above
				set(x, y, [3]byte{byte(6 * pi), byte(255 - 5*pi), byte(pi * pi)})
			case y < 300: // three colours, long runs
				if run == 0 {
					run, pi = 50+rng.IntN(250), rng.IntN(3)
				}
				run--
				set(x, y, pal[pi%3])
			default: // solid blocks
				set(x, y, pal[(x/120+(y-300)/30)%len(pal)])
			}
		}
	}
	return p
}

// rfbClient is one RFB connection to Xvnc in noVNC's pixel format.
type rfbClient struct {
	c net.Conn
}

func dialRFB(t *testing.T, addr, password string, encodings ...rfb.Encoding) *rfbClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(90 * time.Second)) // a loaded host: generous
	si, err := rfbgate.ClientHandshake(c, rfbgate.NewSecret(password))
	if err != nil {
		t.Fatal(err)
	}
	if si.Width != xvncW || si.Height != xvncH {
		t.Fatalf("Xvnc screen %dx%d, want %dx%d", si.Width, si.Height, xvncW, xvncH)
	}
	pf := framebuffer.NoVNCFormat.Bytes()
	msg := append([]byte{0, 0, 0, 0}, pf[:]...) // SetPixelFormat
	msg = append(msg, 2, 0)                     // SetEncodings
	msg = binary.BigEndian.AppendUint16(msg, uint16(len(encodings)))
	for _, e := range encodings {
		msg = binary.BigEndian.AppendUint32(msg, uint32(e))
	}
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	return &rfbClient{c: c}
}

// request asks for the whole screen, not incrementally.
func (r *rfbClient) request(t *testing.T) {
	t.Helper()
	msg := []byte{3, 0, 0, 0, 0, 0}
	msg = binary.BigEndian.AppendUint16(msg, xvncW)
	msg = binary.BigEndian.AppendUint16(msg, xvncH)
	if _, err := r.c.Write(msg); err != nil {
		t.Fatal(err)
	}
}

// requestIncremental asks for what changed on the whole screen.
func (r *rfbClient) requestIncremental(t *testing.T) {
	t.Helper()
	msg := []byte{3, 1, 0, 0, 0, 0}
	msg = binary.BigEndian.AppendUint16(msg, xvncW)
	msg = binary.BigEndian.AppendUint16(msg, xvncH)
	if _, err := r.c.Write(msg); err != nil {
		t.Fatal(err)
	}
}

// rawScreen asks a Raw-only connection for the whole screen and copies the
// pixels of its one update straight into a picture of the screen: the
// reference, read without the package under test.
func (r *rfbClient) rawScreen(t *testing.T) []byte {
	t.Helper()
	r.request(t)
	pix := make([]byte, 4*xvncW*xvncH)
	var hdr [4]byte
	if _, err := io.ReadFull(r.c, hdr[:]); err != nil {
		t.Fatal(err)
	}
	if hdr[0] != 0 {
		t.Fatalf("Raw connection: server message type %d, want an update", hdr[0])
	}
	for range binary.BigEndian.Uint16(hdr[2:]) {
		var rh [12]byte
		if _, err := io.ReadFull(r.c, rh[:]); err != nil {
			t.Fatal(err)
		}
		x, y := int(binary.BigEndian.Uint16(rh[0:])), int(binary.BigEndian.Uint16(rh[2:]))
		w, h := int(binary.BigEndian.Uint16(rh[4:])), int(binary.BigEndian.Uint16(rh[6:]))
		if enc := int32(binary.BigEndian.Uint32(rh[8:])); enc != 0 || x+w > xvncW || y+h > xvncH {
			t.Fatalf("Raw connection: rectangle %dx%d at %d,%d encoding %d", w, h, x, y, enc)
		}
		for row := y; row < y+h; row++ {
			if _, err := io.ReadFull(r.c, pix[4*(row*xvncW+x):4*(row*xvncW+x+w)]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pix
}

// settledScreen reads the screen over Raw until two reads agree.
func settledScreen(t *testing.T, raw *rfbClient) []byte {
	t.Helper()
	prev := raw.rawScreen(t)
	for range 20 {
		cur := raw.rawScreen(t)
		if string(cur) == string(prev) {
			return cur
		}
		prev = cur
	}
	t.Fatal("the screen did not settle in 20 full reads")
	return nil
}

// pseudo is what every encoded connection asks for besides its encodings,
// as noVNC does: the pseudo-encodings the Decoder applies or skips.
var pseudo = []rfb.Encoding{rfb.EncodingDesktopSize, rfb.EncodingExtendedDesktop, rfb.EncodingLastRect,
	rfb.EncodingCursor, rfb.EncodingDesktopName, rfb.EncodingQEMUExtendedKey,
	rfb.EncodingQEMULEDState, rfb.EncodingVMwareCursor}

func TestAgainstXvnc(t *testing.T) {
	x := peertest.StartXvnc(t, "fbpass1", "-geometry", fmt.Sprintf("%dx%d", xvncW, xvncH), "-depth", "24")
	painter, err := xpaint.Dial(x.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { painter.Close() })
	paint := func(t *testing.T, rgb []byte, x, y, w, h int) {
		t.Helper()
		if err := painter.PutImage(rgb, x, y, w, h); err != nil {
			t.Fatal(err)
		}
		if err := painter.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	want := screenPicture()
	paint(t, want, 0, 0, xvncW, xvncH)

	raw := dialRFB(t, x.Addr, "fbpass1", rfb.EncodingRaw)
	ref := settledScreen(t, raw)
	for i := 0; i < xvncW*xvncH; i++ { // what we drew is what Xvnc shows
		if ref[4*i] != want[3*i] || ref[4*i+1] != want[3*i+1] || ref[4*i+2] != want[3*i+2] {
			t.Fatalf("Raw pixel (%d,%d) = %v, drawn %v", i%xvncW, i/xvncW, ref[4*i:4*i+3], want[3*i:3*i+3])
		}
	}

	type run struct {
		name    string
		enc     []rfb.Encoding
		jpeg    bool
		maxMean float64 // over the JPEG rectangles' pixels and channels
		maxErr  int
		used    func(framebuffer.Stats) bool // the ways of sending Xvnc must have used
	}
	for _, c := range []run{
		{name: "ZRLE", enc: []rfb.Encoding{rfb.EncodingZRLE, rfb.EncodingCopyRect},
			used: func(s framebuffer.Stats) bool {
				return s.ZRLERaw > 0 && s.ZRLESolid > 0 && s.ZRLEPacked > 0 && s.ZRLEPaletteRLE > 0
			}},
		{name: "Tight lossless", enc: []rfb.Encoding{rfb.EncodingTight, rfb.EncodingCopyRect, -256 + 6},
			used: func(s framebuffer.Stats) bool {
				return s.TightFill > 0 && s.TightPalette > 0 && s.TightCopy > 0 && s.TightJPEG == 0
			}},
		{name: "Tight JPEG quality 9", enc: []rfb.Encoding{rfb.EncodingTight, -32 + 9}, jpeg: true, maxMean: 1.5, maxErr: 16,
			used: func(s framebuffer.Stats) bool { return s.TightJPEG > 0 }},
		{name: "Tight JPEG quality 6", enc: []rfb.Encoding{rfb.EncodingTight, -32 + 6}, jpeg: true, maxMean: 8, maxErr: 96,
			used: func(s framebuffer.Stats) bool { return s.TightJPEG > 0 }},
		{name: "Tight JPEG quality 1", enc: []rfb.Encoding{rfb.EncodingTight, -32 + 1}, jpeg: true, maxMean: 16, maxErr: 255,
			used: func(s framebuffer.Stats) bool { return s.TightJPEG > 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dialRFB(t, x.Addr, "fbpass1", append(c.enc, pseudo...)...)
			fb, err := framebuffer.New(xvncW, xvncH, framebuffer.NoVNCFormat)
			if err != nil {
				t.Fatal(err)
			}
			d := framebuffer.NewDecoder(cl.c, fb, framebuffer.Limits{})
			kinds := map[rfb.Kind]int{}
			jpegPix := make([]bool, xvncW*xvncH) // pixels last painted by a JPEG rectangle
			seen := make([]bool, xvncW*xvncH)    // pixels painted
			d.OnRect = func(r framebuffer.Rect) {
				kinds[r.Kind]++
				for y := r.Y; y < r.Y+r.H; y++ {
					for x := r.X; x < r.X+r.W; x++ {
						jpegPix[y*xvncW+x] = r.Kind == rfb.KindTightJPEG
						seen[y*xvncW+x] = true
					}
				}
			}
			cl.request(t)
			for nextUpdate(t, d); !covered(seen); nextUpdate(t, d) {
				// Xvnc answers a full request with the desktop size first;
				// ask, as noVNC does, incrementally for the rest
				cl.requestIncremental(t)
			}
			// the screen may have changed since: read it again over Raw
			ref := settledScreen(t, raw)
			mean, worst, lossy := compare(t, fb.Pix(), ref, jpegPix)
			st := d.Stats()
			t.Logf("%s: %d updates, %d rectangles by kind %v; ZRLE tiles raw %d solid %d packed %d RLE %d paletteRLE %d; Tight fill %d JPEG %d copy %d palette %d gradient %d uncompressed %d; %d pseudo; %d stream bytes",
				c.name, st.Updates, st.Rects, kinds, st.ZRLERaw, st.ZRLESolid, st.ZRLEPacked, st.ZRLERLE, st.ZRLEPaletteRLE,
				st.TightFill, st.TightJPEG, st.TightCopy, st.TightPalette, st.TightGradient, st.TightUncompressed, st.Pseudo, d.Offset())
			if !c.used(st) {
				t.Errorf("%s: Xvnc did not send the rectangles this run is for: %+v", c.name, st)
			}
			if c.jpeg {
				t.Logf("%s: %d pixels from JPEG: mean abs error %.2f, max %d a channel; the other %d pixels equal to Raw's", c.name, lossy, mean, worst, xvncW*xvncH-lossy)
				if mean > c.maxMean || worst > c.maxErr {
					t.Fatalf("JPEG mean abs error %.2f, max %d: beyond %.2f and %d", mean, worst, c.maxMean, c.maxErr)
				}
				return
			}
			if lossy != 0 {
				t.Fatalf("%d pixels from JPEG in a lossless run", lossy)
			}
			t.Logf("%s: all %d pixels equal to Raw's", c.name, xvncW*xvncH)

			// Then a change: a copy within the screen (CopyRect) and a new
			// patch, sent incrementally on the same zlib streams.
			t.Cleanup(func() { paint(t, want, 0, 0, xvncW, xvncH) }) // the next run starts from the picture
			painter.CopyArea(20, 10, 200, 150, 160, 120)
			patch := screenPicture()[:3*60*40]
			paint(t, patch, 300, 250, 60, 40)
			ref = settledScreen(t, raw)
			before := st
			for i := 0; string(fb.Pix()) != string(ref); i++ {
				if i == 20 {
					compare(t, fb.Pix(), ref, jpegPix)
					t.Fatal("20 incremental updates and the framebuffer still differs from Raw's")
				}
				cl.requestIncremental(t)
				nextUpdate(t, d)
			}
			st = d.Stats()
			t.Logf("%s, incremental: %d more updates, %d more rectangles (CopyRect %d, ZRLE %d, Tight %d); all pixels equal to Raw's",
				c.name, st.Updates-before.Updates, st.Rects-before.Rects, st.CopyRect-before.CopyRect, st.ZRLE-before.ZRLE, st.Tight-before.Tight)
			if st.CopyRect == 0 {
				t.Errorf("no CopyRect after an X CopyArea")
			}
		})
	}
}

// nextUpdate decodes messages up to and including the next
// FramebufferUpdate and returns its number of rectangles.
func nextUpdate(t *testing.T, d *framebuffer.Decoder) int {
	t.Helper()
	m, err := d.NextUpdate()
	if err != nil {
		t.Fatal(err)
	}
	return m.Rects
}

// compare checks got against the Raw reference: equal where no JPEG
// rectangle painted, and returns the mean and largest absolute error a
// channel, and the number of pixels, where one did.
func compare(t *testing.T, got, ref []byte, jpegPix []bool) (mean float64, worst, lossy int) {
	t.Helper()
	var sum, n int
	for i := range xvncW * xvncH {
		if jpegPix[i] {
			lossy++
			for ch := range 3 {
				e := int(got[4*i+ch]) - int(ref[4*i+ch])
				e = max(e, -e)
				sum, n, worst = sum+e, n+1, max(worst, e)
			}
			continue
		}
		if string(got[4*i:4*i+4]) != string(ref[4*i:4*i+4]) {
			t.Fatalf("pixel (%d,%d), not from JPEG: %v, Raw says %v", i%xvncW, i/xvncW, got[4*i:4*i+4], ref[4*i:4*i+4])
		}
	}
	return float64(sum) / float64(max(n, 1)), worst, lossy
}

// covered reports whether every pixel of the screen has been painted.
func covered(seen []bool) bool {
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
}
