package xpaint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// DamageConfig says what a Damage paints, where, and how fast. The zero
// value of a field means its default.
type DamageConfig struct {
	Seed uint64 // fixes every frame's content (0 is a seed like any other)
	FPS  int    // frames a second (default 20)
	// The area painted, in root window pixels: at (X, Y), W×H (default the
	// whole root); at least MinWidth×MinHeight.
	X, Y, W, H int
}

// Smallest area a Damage paints in.
const (
	MinWidth  = 320
	MinHeight = 240
)

// Colours of the desktop a Damage paints.
const (
	colDesk    = 0x3a6ea5 // desktop background
	colPaper   = 0xf4f4ee // text panel
	colInk     = 0x1a1a24 // text
	colBlockBg = 0xd8d8d0 // the moving block's playground
)

// palette is the colours of the solid fills and the moving block.
var palette = []uint32{0xd02020, 0x2040e0, 0x10a040, 0xf0c000, 0x8020c0, 0x00b0c0, 0xe07020, 0x606060}

// Damage paints a deterministic desktop-like animation into an X display
// through a Conn: frame 0 draws the desktop (background, a text panel, a
// playground, a fill band); every frame k ≥ 1 then scrolls the text panel
// up one line (a CopyArea) and writes a new line of text-like glyphs at
// its bottom, moves a block one step across the playground, repaints a
// photo-like patch (smooth gradients with noise, its phase moving), and
// fills one or two solid rectangles of the fill band. Frame k depends on
// the seed, the area and k only.
type Damage struct {
	x    *Conn
	cfg  DamageConfig
	next int // the next frame to paint

	text, photo, play, band rect
	block                   rect // where the block is now
	rgb                     []byte

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

type rect struct{ x, y, w, h int }

// Text geometry: glyph cells of glyphW×lineH pixels.
const (
	lineH  = 14
	glyphW = 7
)

// NewDamage returns a generator painting through x (which it uses alone
// from now on) as cfg says. It paints nothing before Frame, Run or Start.
func NewDamage(x *Conn, cfg DamageConfig) (*Damage, error) {
	if cfg.FPS <= 0 {
		cfg.FPS = 20
	}
	if cfg.W == 0 && cfg.H == 0 {
		cfg.W, cfg.H = x.Width()-cfg.X, x.Height()-cfg.Y
	}
	if cfg.W < MinWidth || cfg.H < MinHeight || cfg.X < 0 || cfg.Y < 0 || cfg.X+cfg.W > x.Width() || cfg.Y+cfg.H > x.Height() {
		return nil, fmt.Errorf("xpaint: damage area %dx%d at (%d,%d): want at least %dx%d inside the %dx%d root",
			cfg.W, cfg.H, cfg.X, cfg.Y, MinWidth, MinHeight, x.Width(), x.Height())
	}
	d := &Damage{x: x, cfg: cfg}
	X, Y, W, H := cfg.X, cfg.Y, cfg.W, cfg.H
	top := H * 2 / 3
	d.text = rect{X + 8, Y + 8, W/2 - 12, (top - 16) / lineH * lineH}
	pw, ph := min(192, W/2-12), min(144, top/2-12)
	d.photo = rect{X + W/2 + 4, Y + 8, pw, ph}
	d.play = rect{X + W/2 + 4, Y + ph + 16, W/2 - 12, top - ph - 24}
	d.band = rect{X + 8, Y + top, W - 16, H - top - 8}
	d.block = rect{d.play.x, d.play.y, 40, 40}
	return d, nil
}

// Frames is the number of frames painted so far.
func (d *Damage) Frames() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next
}

// Frame paints the next frame (frame 0 first) and waits until the X
// server has drawn it.
func (d *Damage) Frame() error {
	d.mu.Lock()
	k := d.next
	d.mu.Unlock()
	if k == 0 {
		d.desktop()
	} else if err := d.frame(k); err != nil {
		return err
	}
	if err := d.x.Sync(); err != nil {
		return err
	}
	d.mu.Lock()
	d.next++
	d.mu.Unlock()
	return nil
}

// Run paints frames frames at the frame rate, each at its time from the
// start of Run; a late frame is painted at once, never skipped. It stops
// early, with ctx's error, when ctx is done.
func (d *Damage) Run(ctx context.Context, frames int) error {
	start := time.Now()
	period := time.Second / time.Duration(d.cfg.FPS)
	for i := range frames {
		if wait := time.Until(start.Add(time.Duration(i) * period)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := d.Frame(); err != nil {
			return err
		}
	}
	return nil
}

// Start runs Run(frames) in the background (frames ≤ 0: until Stop). A
// Damage is started once.
func (d *Damage) Start(frames int) {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.done = cancel, make(chan struct{})
	if frames <= 0 {
		frames = math.MaxInt
	}
	go func() {
		defer close(d.done)
		err := d.Run(ctx, frames)
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
	}()
}

// Wait waits for a Start to end by itself and returns its error (nil
// without a Start).
func (d *Damage) Wait() error {
	if d.done == nil {
		return nil
	}
	<-d.done
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Stop ends a Start after the frame being painted, if any, and returns
// its error. When it returns the X server has drawn every frame painted
// and nothing more is sent: the screen stays still.
func (d *Damage) Stop() error {
	if d.cancel != nil {
		d.cancel()
	}
	return d.Wait()
}

// desktop queues frame 0: the background and the panels.
func (d *Damage) desktop() {
	c := d.cfg
	d.x.Fill(c.X, c.Y, c.W, c.H, colDesk)
	d.x.Fill(d.text.x, d.text.y, d.text.w, d.text.h, colPaper)
	d.x.Fill(d.play.x, d.play.y, d.play.w, d.play.h, colBlockBg)
	d.x.Fill(d.band.x, d.band.y, d.band.w, d.band.h, colPaper)
	d.block = rect{d.play.x, d.play.y, 40, 40}
}

// frame queues frame k ≥ 1.
func (d *Damage) frame(k int) error {
	r := rand.New(rand.NewPCG(d.cfg.Seed, uint64(k)))
	// text: scroll up one line, a new line at the bottom
	t := d.text
	d.x.CopyArea(t.x, t.y+lineH, t.x, t.y, t.w, t.h-lineH)
	if err := d.x.PutImage(d.textLine(r), t.x, t.y+t.h-lineH, t.w, lineH); err != nil {
		return err
	}
	// the block: one step along a bouncing path, a function of k alone
	p := d.play
	bx, by := bounce(7*k, p.w-d.block.w), bounce(5*k, p.h-d.block.h)
	d.x.Fill(d.block.x, d.block.y, d.block.w, d.block.h, colBlockBg)
	d.block.x, d.block.y = p.x+bx, p.y+by
	d.x.Fill(d.block.x, d.block.y, d.block.w, d.block.h, palette[(k/8)%len(palette)])
	d.x.Fill(d.block.x+10, d.block.y+10, d.block.w-20, d.block.h-20, palette[(k/8+3)%len(palette)])
	// the photo-like patch
	ph := d.photo
	if err := d.x.PutImage(d.photoPatch(r, k), ph.x, ph.y, ph.w, ph.h); err != nil {
		return err
	}
	// solid fills in the band
	b := d.band
	for range 1 + r.IntN(2) {
		w, h := 16+r.IntN(min(120, b.w-16)), 8+r.IntN(min(60, b.h-8))
		d.x.Fill(b.x+r.IntN(b.w-w+1), b.y+r.IntN(b.h-h+1), w, h, palette[r.IntN(len(palette))])
	}
	return nil
}

// bounce is position s along a segment of length n travelled back and
// forth.
func bounce(s, n int) int {
	if n <= 0 {
		return 0
	}
	s %= 2 * n
	if s > n {
		return 2*n - s
	}
	return s
}

// textLine draws one line of text-like glyphs: words of 2-9 cells of
// random strokes, ink on paper, with gaps between words.
func (d *Damage) textLine(r *rand.Rand) []byte {
	w := d.text.w
	d.rgb = d.rgb[:0]
	d.rgb = append(d.rgb, make([]byte, 3*w*lineH)...)
	pix := d.rgb
	set := func(x, y int, c uint32) {
		o := 3 * (y*w + x)
		pix[o], pix[o+1], pix[o+2] = byte(c>>16), byte(c>>8), byte(c)
	}
	for y := range lineH {
		for x := range w {
			set(x, y, colPaper)
		}
	}
	x := 4 + r.IntN(3)*glyphW
	end := w - 4 - r.IntN(w/3)
	for x+glyphW <= end {
		for n := 2 + r.IntN(8); n > 0 && x+glyphW <= end; n-- {
			strokes := r.Uint32()
			for gy := 2; gy < lineH-2; gy++ {
				for gx := 1; gx < glyphW-1; gx++ {
					// vertical and horizontal strokes chosen by bits
					if (strokes>>(gx-1))&1 == 1 && (strokes>>(8+gy/3))&1 == 1 ||
						(strokes>>(16+gy-2))&1 == 1 && gx > 1 && gx < glyphW-2 {
						set(x+gx, gy, colInk)
					}
				}
			}
			x += glyphW
		}
		x += glyphW // a space
	}
	return pix
}

// photoPatch draws the photo-like patch of frame k: smooth gradients whose
// phase moves with k, plus noise.
func (d *Damage) photoPatch(r *rand.Rand, k int) []byte {
	w, h := d.photo.w, d.photo.h
	d.rgb = d.rgb[:0]
	d.rgb = append(d.rgb, make([]byte, 3*w*h)...)
	pix := d.rgb
	ph := float64(k) * 0.15
	for y := range h {
		fy := float64(y) / float64(h)
		for x := range w {
			fx := float64(x) / float64(w)
			n := r.IntN(16)
			o := 3 * (y*w + x)
			pix[o] = byte(110 + 90*math.Sin(3*fx+ph) + float64(n))
			pix[o+1] = byte(120 + 80*math.Cos(2*fy-ph) + float64(n/2))
			pix[o+2] = byte(100 + 60*math.Sin(2*(fx+fy)+ph/2) + float64(r.IntN(10)))
		}
	}
	return pix
}
