// Package simdisplay is a simulated phone screen for test agents: a
// header with a clock and a counter, a text field and a scrolling list,
// as accessibility nodes and as pixels. It answers the requests an agent
// serves (snapshot, bounds, input, screenshots), moves on by itself as
// its clock ticks (the seed decides how), and tells its subscribers every
// change as tree-stream event bodies. One Display may serve many
// connections at once.
package simdisplay

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Node ids of the simulated display: fixed ones, and the list's rows from
// NodeRow0 on.
const (
	NodeRoot   = 1
	NodeHeader = 2
	NodeClock  = 3
	NodeCount  = 4
	NodeField  = 5
	NodeList   = 6
	NodeRow0   = 100
	Rows       = 60
	Window     = 1
)

// Display is the simulated screen, shared by every connection; its
// methods are safe for concurrent use.
type Display struct {
	mu       sync.Mutex
	w, h     int
	rng      *rand.Rand
	clock    time.Time
	count    int
	field    string
	scroll   int // list scroll offset in pixels
	selected map[int]bool
	pinned   map[int]bool
	subs     map[chan []codec.EventBody]bool
}

// New returns a display of w by h pixels whose changes follow seed, its
// clock set to now.
func New(w, h int, seed uint64, now time.Time) *Display {
	return &Display{w: w, h: h, rng: rand.New(rand.NewPCG(seed, 0xd15)), clock: now.Truncate(time.Second), selected: map[int]bool{}, pinned: map[int]bool{}, subs: map[chan []codec.EventBody]bool{}}
}

// Subscribe returns a channel that receives the display's changes.
func (d *Display) Subscribe() chan []codec.EventBody {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := make(chan []codec.EventBody, 64)
	d.subs[ch] = true
	return ch
}

// Unsubscribe stops the changes to ch.
func (d *Display) Unsubscribe(ch chan []codec.EventBody) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.subs, ch)
}

// changed tells every connection about a change; d.mu is held. A
// connection whose queue is full misses it (its tree stream goes out of
// step with the display, as a real agent's would after a dropped event,
// and a resync mends it).
func (d *Display) changed(bodies ...codec.EventBody) {
	for ch := range d.subs {
		select {
		case ch <- bodies:
		default:
		}
	}
}

// Layout, in pixels, derived from the display size.
func (d *Display) headerH() int { return d.h / 12 }
func (d *Display) fieldH() int  { return d.h / 16 }
func (d *Display) listTop() int { return d.headerH() + d.fieldH() }
func (d *Display) rowH() int    { return max(d.h/12, 8) }
func (d *Display) maxScroll() int {
	return max(0, Rows*d.rowH()-(d.h-d.listTop()))
}

// rowBounds is row i's bounds, and whether any of it is on screen.
func (d *Display) rowBounds(i int) (codec.Bounds, bool) {
	top := d.listTop() + i*d.rowH() - d.scroll
	b := codec.Bounds{Left: 0, Top: int32(top), Right: int32(d.w), Bottom: int32(top + d.rowH())}
	return b, top+d.rowH() > d.listTop() && top < d.h
}

// tick moves the display on by itself: the clock, and now and then the
// counter, as the seed says.
func (d *Display) Tick(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clock = now.Truncate(time.Second)
	bodies := []codec.EventBody{&codec.ContentChanged{Window: Window, Node: NodeClock, Change: schema.ContentText}}
	if d.rng.IntN(3) == 0 {
		d.count += 1 + d.rng.IntN(5)
		bodies = append(bodies, &codec.ContentChanged{Window: Window, Node: NodeCount, Change: schema.ContentText})
	}
	d.changed(bodies...)
}

// Tap taps (or long-presses) at x, y: a row toggles its selection (a
// long press pins it), the field takes the focus.
func (d *Display) Tap(x, y int32, long bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if y >= int32(d.headerH()) && y < int32(d.listTop()) {
		d.changed(&codec.ContentChanged{Window: Window, Node: NodeField, Change: schema.ContentState})
		return
	}
	for i := range Rows {
		b, on := d.rowBounds(i)
		if on && y >= b.Top && y < b.Bottom && y >= int32(d.listTop()) && x >= b.Left && x < b.Right {
			if long {
				d.pinned[i] = !d.pinned[i]
			} else {
				d.selected[i] = !d.selected[i]
			}
			d.changed(&codec.ContentChanged{Window: Window, Node: uint32(NodeRow0 + i), Change: schema.ContentState})
			return
		}
	}
}

// Swipe drags from x1, y1 to x2, y2: on the list, it scrolls it.
func (d *Display) Swipe(x1, y1, x2, y2 int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	before := d.scroll
	d.scroll = min(max(d.scroll+int(y1-y2), 0), d.maxScroll())
	if d.scroll != before {
		d.changed(&codec.ContentChanged{Window: Window, Node: NodeList, Change: schema.ContentSubtree})
	}
}

// Key codes agent-sim understands (Android's KEYCODE_*).
const (
	KeyBack = 4
	KeyDel  = 67
	KeyHome = 3
)

// Key presses the key code (KeyBack, KeyDel, KeyHome; others do
// nothing).
func (d *Display) Key(code uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch code {
	case KeyBack:
		clear(d.selected)
		d.changed(&codec.ContentChanged{Window: Window, Node: NodeList, Change: schema.ContentSubtree | schema.ContentState})
	case KeyHome:
		d.scroll = 0
		d.changed(&codec.ContentChanged{Window: Window, Node: NodeList, Change: schema.ContentSubtree})
	case KeyDel:
		if r := []rune(d.field); len(r) > 0 {
			d.field = string(r[:len(r)-1])
			d.changed(&codec.ContentChanged{Window: Window, Node: NodeField, Change: schema.ContentText})
		}
	}
}

// TypeText types s into the field.
func (d *Display) TypeText(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.field += s
	d.changed(&codec.ContentChanged{Window: Window, Node: NodeField, Change: schema.ContentText})
}

// SetText sets the text of node, and reports whether node is the field.
func (d *Display) SetText(node uint32, s string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if node != NodeField {
		return false
	}
	d.field = s
	d.changed(&codec.ContentChanged{Window: Window, Node: NodeField, Change: schema.ContentText})
	return true
}

// Snapshot string table indexes.
const (
	strFrame = iota
	strText
	strEdit
	strList
	strPkg
)

var asimStrings = []string{"android.widget.FrameLayout", "android.widget.TextView", "android.widget.EditText", "androidx.recyclerview.widget.RecyclerView", "dev.wirebench.sim"}

// Snapshot is the screen as nodes, within p's bounds; seq is the last
// tree event sent.
func (d *Display) Snapshot(p *codec.SnapshotParams, seq uint64) *codec.Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	w, h := int32(d.w), int32(d.h)
	maxNodes := int(p.MaxNodes.Or(1 << 30))
	nodes := 0
	var truncated uint32
	take := func() bool {
		if nodes >= maxNodes {
			truncated |= schema.TruncatedNodes
			return false
		}
		nodes++
		return true
	}
	vis := schema.NodeVisible | schema.NodeEnabled
	root := &codec.Node{ID: NodeRoot, Class: strFrame, Bounds: codec.Bounds{Right: w, Bottom: h}, Flags: vis, ResPkg: codec.Some[uint32](strPkg)}
	take()
	deep := p.MaxDepth.Or(1<<31) >= 2
	if !deep {
		truncated |= schema.TruncatedDepth
	}
	if deep && take() {
		root.Children = append(root.Children, codec.Node{ID: NodeHeader, Class: strFrame, Bounds: codec.Bounds{Right: w, Bottom: int32(d.headerH())}, Flags: vis})
		hdr := &root.Children[len(root.Children)-1]
		if p.MaxDepth.Or(1<<31) < 3 {
			truncated |= schema.TruncatedDepth
		} else {
			if take() {
				hdr.Children = append(hdr.Children, codec.Node{ID: NodeClock, Class: strText, Bounds: codec.Bounds{Right: w / 2, Bottom: int32(d.headerH())}, Flags: vis, Text: d.clock.UTC().Format("15:04:05"), ResName: "clock"})
			}
			if take() {
				hdr.Children = append(hdr.Children, codec.Node{ID: NodeCount, Class: strText, Bounds: codec.Bounds{Left: w / 2, Right: w, Bottom: int32(d.headerH())}, Flags: vis, Text: strconv.Itoa(d.count) + " new", ResName: "counter"})
			}
		}
	}
	if deep && take() {
		root.Children = append(root.Children, codec.Node{ID: NodeField, Class: strEdit, Bounds: codec.Bounds{Top: int32(d.headerH()), Right: w, Bottom: int32(d.listTop())},
			Flags: vis | schema.NodeEditable | schema.NodeFocusable | schema.NodeClickable, Empty: codec.NodeText, Text: d.field, Hint: "Search", ResName: "search"})
	}
	if deep && take() {
		first, last := -1, -1
		list := codec.Node{ID: NodeList, Class: strList, Bounds: codec.Bounds{Top: int32(d.listTop()), Right: w, Bottom: h}, Flags: vis | schema.NodeScrollable}
		if p.MaxDepth.Or(1<<31) < 3 {
			truncated |= schema.TruncatedDepth
		} else {
			for i := range Rows {
				b, on := d.rowBounds(i)
				if !on {
					continue
				}
				if !take() {
					break
				}
				if first < 0 {
					first = i
				}
				last = i
				f := vis | schema.NodeClickable | schema.NodeLongClickable
				if d.selected[i] {
					f |= schema.NodeSelected
				}
				if d.pinned[i] {
					f |= schema.NodeChecked
				}
				list.Children = append(list.Children, codec.Node{ID: uint32(NodeRow0 + i), Class: strText, Bounds: b, Flags: f, Text: fmt.Sprintf("Item %d", i+1)})
			}
		}
		sc := &codec.Scroll{Axis: schema.ScrollVertical}
		if d.scroll > 0 {
			sc.Flags |= schema.ScrollBack
		}
		if d.scroll < d.maxScroll() {
			sc.Flags |= schema.ScrollForward
		}
		sc.Range = codec.Some(codec.ScrollRange{Unit: schema.RangeItems, Lo: 0, Hi: Rows - 1})
		if first >= 0 {
			sc.Position = codec.Some(codec.ScrollPosition{Lo: int64(first), Hi: int64(last)})
		}
		list.Scroll = sc
		root.Children = append(root.Children, list)
	}
	win := codec.Window{ID: Window, Type: 1, Bounds: codec.Bounds{Right: w, Bottom: h}, Flags: schema.WindowActive | schema.WindowFocused,
		Title: codec.Some("Wire Sim"), Package: codec.Some[uint32](strPkg), Root: root, EmitsEvents: codec.Some(true)}
	windows := []codec.Window{win}
	if p.MaxWindows.Ok && p.MaxWindows.Val < 1 {
		windows, truncated = []codec.Window{}, truncated|schema.TruncatedWindows
	}
	return &codec.Snapshot{Strings: asimStrings, Windows: windows, Truncated: truncated, Seq: seq, Display: codec.Some(codec.Display{Width: uint32(d.w), Height: uint32(d.h), DensityDPI: 420})}
}

// Bounds is the bounds of each of ids that is on screen.
func (d *Display) Bounds(ids []uint32) *codec.BoundsResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := &codec.BoundsResult{Nodes: []codec.NodeBounds{}}
	w, h := int32(d.w), int32(d.h)
	for _, id := range ids {
		var b codec.Bounds
		switch {
		case id == NodeRoot:
			b = codec.Bounds{Right: w, Bottom: h}
		case id == NodeHeader:
			b = codec.Bounds{Right: w, Bottom: int32(d.headerH())}
		case id == NodeClock:
			b = codec.Bounds{Right: w / 2, Bottom: int32(d.headerH())}
		case id == NodeCount:
			b = codec.Bounds{Left: w / 2, Right: w, Bottom: int32(d.headerH())}
		case id == NodeField:
			b = codec.Bounds{Top: int32(d.headerH()), Right: w, Bottom: int32(d.listTop())}
		case id == NodeList:
			b = codec.Bounds{Top: int32(d.listTop()), Right: w, Bottom: h}
		case id >= NodeRow0 && id < NodeRow0+Rows:
			rb, on := d.rowBounds(int(id - NodeRow0))
			if !on {
				continue // scrolled away: gone
			}
			b = rb
		default:
			continue
		}
		out.Nodes = append(out.Nodes, codec.NodeBounds{Node: id, Bounds: b})
	}
	return out
}

// render draws the display at scale pct.
func (d *Display) render(pct int) *image.RGBA {
	d.mu.Lock()
	defer d.mu.Unlock()
	sc := func(v int) int { return v * pct / 100 }
	img := image.NewRGBA(image.Rect(0, 0, max(sc(d.w), 1), max(sc(d.h), 1)))
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		r := image.Rect(sc(x0), sc(y0), sc(x1), sc(y1)).Intersect(img.Bounds())
		draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
	}
	fill(0, 0, d.w, d.h, color.RGBA{250, 250, 250, 255})
	fill(0, 0, d.w, d.headerH(), color.RGBA{33, 90, 160, 255})
	// The clock as a bar of the seconds, the counter as a bar of its value.
	sec := d.clock.Second()
	fill(16, d.headerH()/3, 16+(d.w/2-32)*sec/59, 2*d.headerH()/3, color.RGBA{255, 255, 255, 255})
	fill(d.w/2+16, d.headerH()/3, d.w/2+16+min(d.count*4, d.w/2-32), 2*d.headerH()/3, color.RGBA{255, 200, 0, 255})
	fill(0, d.headerH(), d.w, d.listTop(), color.RGBA{230, 230, 235, 255})
	fill(16, d.headerH()+d.fieldH()/4, 16+min(len(d.field)*20, d.w-32), d.headerH()+3*d.fieldH()/4, color.RGBA{60, 60, 60, 255})
	for i := range Rows {
		b, on := d.rowBounds(i)
		if !on {
			continue
		}
		c := color.RGBA{255, 255, 255, 255}
		if i%2 == 1 {
			c = color.RGBA{240, 244, 248, 255}
		}
		if d.selected[i] {
			c = color.RGBA{180, 220, 255, 255}
		}
		top := max(int(b.Top), d.listTop())
		fill(0, top, d.w, int(b.Bottom), c)
		if int(b.Top)+d.rowH()/3 >= d.listTop() {
			fill(24, int(b.Top)+d.rowH()/3, 24+(i+1)*(d.w-48)/Rows, int(b.Top)+2*d.rowH()/3, color.RGBA{90, 90, 90, 255})
		}
		if d.pinned[i] {
			fill(d.w-64, top, d.w-24, int(b.Bottom), color.RGBA{220, 40, 40, 255})
		}
		fill(0, int(b.Bottom)-2, d.w, int(b.Bottom), color.RGBA{210, 210, 210, 255})
	}
	return img
}

// encode renders the display and encodes it in format at scale pct.
func (d *Display) Encode(format uint32, quality, pct int) ([]byte, uint32, uint32, *codec.Error) {
	if pct < 1 || pct > 100 {
		return nil, 0, 0, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("scale_pct %d is outside 1..100", pct))
	}
	img := d.render(pct)
	var buf bytes.Buffer
	var err error
	switch format {
	case schema.FormatPNG:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case schema.FormatJPEG:
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: min(max(quality, 1), 100)})
	default:
		return nil, 0, 0, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("image format %d (%s) is not one agent-sim encodes (0 png, 1 jpeg)", format, formatName(format)))
	}
	if err != nil {
		return nil, 0, 0, codec.NewError(codec.CodeInternal, "encode screenshot: "+err.Error())
	}
	b := img.Bounds()
	return buf.Bytes(), uint32(b.Dx()), uint32(b.Dy()), nil
}

// Size is the display's size in pixels.
func (d *Display) Size() (w, h int) { return d.w, d.h }

// Count is the counter the clock's ticks move.
func (d *Display) Count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.count
}

// formatName is an image format's name, or its number.
func formatName(f uint32) string {
	if names := [...]string{schema.FormatPNG: "png", schema.FormatJPEG: "jpeg", schema.FormatWebP: "webp"}; f < uint32(len(names)) {
		return names[f]
	}
	return strconv.FormatUint(uint64(f), 10)
}
