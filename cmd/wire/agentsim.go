package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// agent-sim: a simulated device agent over TCP, for working on the daemon
// with no phone at hand. It runs session.Agent on each connection it
// accepts, in front of one simulated display that every connection
// shares: a header with a clock, a text field and a scrolling list.
// Snapshots change over time (the clock ticks, a counter moves with the
// seed) and the tree stream says so; input methods move the display;
// screenshots and frames are real PNGs (or JPEGs) of it.

const asimUsage = `usage: wire agent-sim -listen 127.0.0.1:PORT [-token T] [-seed N] [-size WxH] [-caps LIST] [-max-frame N] [-once]

A simulated device agent. It listens on a loopback address only, prints
"listening on ADDR" on stdout (PORT 0 picks a free port), and serves
every host that connects until interrupted (or, with -once, one).

flags:
`

// asimConfig is agent-sim's configuration.
type asimConfig struct {
	token    codec.Opt[string]
	seed     uint64
	width    int
	height   int
	caps     codec.Capabilities
	maxFrame uint32
	once     bool
	tick     time.Duration // how often the display changes by itself
}

func runAgentSim(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wire agent-sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, asimUsage); fs.PrintDefaults() }
	listen := fs.String("listen", "", "loopback `address` to listen on, such as 127.0.0.1:7100 (required)")
	token := fs.String("token", "", "per-launch `token` to present in the hello (none when empty)")
	seed := fs.Uint64("seed", 1, "`seed` of the simulated display's changes")
	size := fs.String("size", "1080x1920", "display size `WxH` in pixels")
	caps := fs.String("caps", "all", "capabilities to advertise: all, or a comma-separated `list` such as tree,input")
	maxFrame := fs.Uint("max-frame", codec.DefaultMaxFrame, "the agent's frame limit in `bytes`")
	once := fs.Bool("once", false, "serve one connection, then exit")
	tick := fs.Duration("tick", time.Second, "how often the display changes by itself")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wire agent-sim: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := asimConfig{seed: *seed, once: *once, tick: *tick}
	if *token != "" {
		cfg.token = codec.Some(*token)
	}
	var err error
	if cfg.width, cfg.height, err = asimParseSize(*size); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: -size %q: %v\n", *size, err)
		return 2
	}
	if cfg.caps, err = asimParseCaps(*caps); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: -caps %q: %v\n", *caps, err)
		return 2
	}
	if *maxFrame < codec.MinMaxFrame || *maxFrame > 1<<32-1 {
		fmt.Fprintf(stderr, "wire agent-sim: -max-frame %d: want %d to 4294967295\n", *maxFrame, codec.MinMaxFrame)
		return 2
	}
	cfg.maxFrame = uint32(*maxFrame)
	if *tick <= 0 {
		fmt.Fprintf(stderr, "wire agent-sim: -tick %v: want a positive duration\n", *tick)
		return 2
	}
	if err := loopbackOnly(*listen); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: -listen: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := asimServe(ctx, ln, cfg, stderr); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: %v\n", err)
		return 1
	}
	return 0
}

// loopbackOnly checks that addr is a loopback host and a port.
func loopbackOnly(addr string) error {
	if addr == "" {
		return errors.New("an address is required, such as 127.0.0.1:7100")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address (use 127.0.0.1)", host)
	}
	return nil
}

func asimParseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 16 || h < 16 || w > 8192 || h > 8192 {
		return 0, 0, errors.New("want WIDTHxHEIGHT, each from 16 to 8192")
	}
	return w, h, nil
}

func asimParseCaps(s string) (codec.Capabilities, error) {
	if s == "all" {
		return codec.CapAll, nil
	}
	var c codec.Capabilities
	for _, name := range strings.Split(s, ",") {
		if name == "" {
			continue
		}
		bit, ok := codec.ParseCapability(name)
		if !ok {
			return 0, fmt.Errorf("unknown capability %q", name)
		}
		c |= bit
	}
	return c, nil
}

// asimServe accepts connections on ln until ctx ends (or after one, with
// cfg.once), each served in its own goroutine against one shared display.
func asimServe(ctx context.Context, ln net.Listener, cfg asimConfig, logw io.Writer) error {
	disp := newAsimDisplay(cfg.width, cfg.height, cfg.seed, time.Now())
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var logMu sync.Mutex
	logf := func(format string, a ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(logw, "wire agent-sim: "+format+"\n", a...)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		serve := func() {
			defer wg.Done()
			defer c.Close()
			if err := asimConn(ctx, c, cfg, disp, logf); err != nil {
				logf("%s: %v", c.RemoteAddr(), err)
			}
		}
		if cfg.once {
			serve()
			return nil
		}
		go serve()
	}
}

// asimConn runs one agent session on c.
func asimConn(ctx context.Context, c net.Conn, cfg asimConfig, disp *asimDisplay, logf func(string, ...any)) error {
	dev := codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(cfg.width), Height: uint32(cfg.height), DensityDPI: 420}}
	a := session.NewAgent(session.AgentConfig{
		MaxFrame: cfg.maxFrame, Capabilities: cfg.caps, Token: cfg.token,
		Name: "wire-agent-sim/1 seed " + strconv.FormatUint(cfg.seed, 10), Device: codec.Some(dev),
	}, time.Now())
	d := netconn.New(c, a)
	defer d.Close()
	st := &asimConnState{a: a, d: d, disp: disp, caps: cfg.caps, changes: disp.subscribe()}
	defer disp.unsubscribe(st.changes)
	defer st.stopFrames()
	// The display's clock and its changes come from a goroutine of their
	// own; what touches the session it posts to the driver's loop.
	pumpCtx, stopPump := context.WithCancel(ctx)
	defer stopPump()
	go st.pump(pumpCtx, cfg.tick)
	err := d.Run(ctx, func() bool {
		for e, ok := a.PollEvent(); ok; e, ok = a.PollEvent() {
			switch e := e.(type) {
			case *session.Welcomed:
				logf("%s: connected, session %d, max frame %d", c.RemoteAddr(), e.Session, e.MaxFrame)
			case *session.Incoming:
				st.handle(e)
			case *session.Expired:
				logf("%s: request %d (%s) expired", c.RemoteAddr(), e.ID, e.Method)
			case *session.ProtocolError:
				logf("%s: %v", c.RemoteAddr(), e.Err)
			case *session.Closed:
				logf("%s: closed (%s): %v", c.RemoteAddr(), e.Reason, e.Err)
				return true
			}
		}
		return false
	})
	if errors.Is(err, context.Canceled) {
		return nil // d.Close closes the session
	}
	return err
}

// pump ticks the display's clock and sends its changes as tree events,
// until ctx ends.
func (st *asimConnState) pump(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			st.disp.tick(now)
		case ch := <-st.changes:
			st.d.Post(func() {
				if st.a.Connected() && st.caps.Has(codec.CapEvents) {
					for _, body := range ch {
						st.a.SendEvent(codec.StreamTree, asimEventType(body), body)
					}
				}
			})
		}
	}
}

// startFrames sends a frame fps times a second, from a goroutine that
// posts each to the driver's loop, until stopFrames.
func (st *asimConnState) startFrames(fps int) {
	st.stopFrames()
	stop := make(chan struct{})
	st.framesStop = stop
	t := time.NewTicker(time.Second / time.Duration(fps))
	go func() {
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				st.d.Post(func() {
					if st.framesStop == stop {
						st.sendFrame()
					}
				})
			}
		}
	}()
}

// stopFrames ends the frames stream, if it runs.
func (st *asimConnState) stopFrames() {
	if st.framesStop != nil {
		close(st.framesStop)
		st.framesStop = nil
	}
}

func asimEventType(b codec.EventBody) codec.EventType {
	_, t := b.EventOf()
	return t
}

// asimConnState is one connection's view of the display.
type asimConnState struct {
	a          *session.Agent
	d          *netconn.Conn
	disp       *asimDisplay
	caps       codec.Capabilities
	changes    chan []codec.EventBody
	framesStop chan struct{} // closed to end the frames stream; nil when it does not run
	fscale     int
	fformat    uint32
	fqual      int
	start      time.Time
}

func (st *asimConnState) sendFrame() {
	img, w, h, err := st.disp.encode(st.fformat, st.fqual, st.fscale)
	if err != nil {
		st.a.SkipEvent(codec.StreamFrames)
		return
	}
	up := uint64(time.Since(st.start).Milliseconds())
	if _, err := st.a.SendEvent(codec.StreamFrames, codec.TypeFrame, &codec.ScreenFrame{Width: w, Height: h, Format: st.fformat, UptimeMS: up, Image: img}); err != nil {
		return // over the limit: its number is skipped, a dropped frame
	}
}

// handle runs one request against the display and answers it.
func (st *asimConnState) handle(in *session.Incoming) {
	now := time.Now()
	res, perr := st.run(in)
	if perr != nil {
		st.a.Fail(now, in.ID, perr)
		return
	}
	st.a.Respond(time.Now(), in.ID, res)
}

func (st *asimConnState) run(in *session.Incoming) (codec.Result, *codec.Error) {
	d := st.disp
	switch p := in.Params.(type) {
	case *codec.SnapshotParams:
		return d.snapshot(p, st.a.NextSeq(codec.StreamTree)-1), nil
	case *codec.BoundsParams:
		return d.bounds(p.Nodes), nil
	case *codec.TapParams:
		d.tap(p.X, p.Y, false)
		return &codec.Empty{}, nil
	case *codec.LongPressParams:
		d.tap(p.X, p.Y, true)
		return &codec.Empty{}, nil
	case *codec.SwipeParams:
		d.swipe(p.X1, p.Y1, p.X2, p.Y2)
		return &codec.Empty{}, nil
	case *codec.KeyParams:
		d.key(p.Keycode)
		return &codec.Empty{}, nil
	case *codec.TypeTextParams:
		d.typeText(p.Text)
		return &codec.Empty{}, nil
	case *codec.SetTextParams:
		if !d.setText(p.Node, p.Text) {
			return nil, codec.NewError(codec.CodeNotFound, fmt.Sprintf("node %d is not an editable node on screen (the text field is node %d)", p.Node, asimNodeField))
		}
		return &codec.Empty{}, nil
	case *codec.ScreenshotParams:
		format := p.Format.Or(codec.FormatPNG)
		img, w, h, err := d.encode(format, int(p.Quality.Or(80)), int(p.ScalePct.Or(100)))
		if err != nil {
			return nil, err
		}
		return &codec.ScreenshotResult{Width: w, Height: h, Format: format, Image: img}, nil
	case *codec.FramesStartParams:
		st.startFrames(min(max(int(p.MaxFPS.Or(2)), 1), 30))
		st.fscale, st.fqual, st.fformat, st.start = int(p.ScalePct.Or(25)), int(p.Quality.Or(70)), codec.FormatPNG, time.Now()
		return &codec.FramesStartResult{Stream: codec.StreamFrames}, nil
	case *codec.FramesStopParams:
		st.stopFrames()
		return &codec.Empty{}, nil
	case *codec.ResyncParams:
		return &codec.ResyncResult{Seq: st.a.NextSeq(p.Stream)}, nil
	case *codec.DeviceInfoParams:
		return &codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(d.w), Height: uint32(d.h), DensityDPI: 420}}, nil
	}
	return nil, codec.NewError(codec.CodeInternal, fmt.Sprintf("agent-sim has no handler for %s", in.Method))
}

// Node ids of the simulated display: fixed ones, and the list's rows from
// asimNodeRow0 on.
const (
	asimNodeRoot   = 1
	asimNodeHeader = 2
	asimNodeClock  = 3
	asimNodeCount  = 4
	asimNodeField  = 5
	asimNodeList   = 6
	asimNodeRow0   = 100
	asimRows       = 60
	asimWindow     = 1
)

// asimDisplay is the simulated screen, shared by every connection.
type asimDisplay struct {
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

func newAsimDisplay(w, h int, seed uint64, now time.Time) *asimDisplay {
	return &asimDisplay{w: w, h: h, rng: rand.New(rand.NewPCG(seed, 0xd15)), clock: now.Truncate(time.Second), selected: map[int]bool{}, pinned: map[int]bool{}, subs: map[chan []codec.EventBody]bool{}}
}

func (d *asimDisplay) subscribe() chan []codec.EventBody {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := make(chan []codec.EventBody, 64)
	d.subs[ch] = true
	return ch
}

func (d *asimDisplay) unsubscribe(ch chan []codec.EventBody) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.subs, ch)
}

// changed tells every connection about a change; d.mu is held. A
// connection whose queue is full misses it (its tree stream goes out of
// step with the display, as a real agent's would after a dropped event,
// and a resync mends it).
func (d *asimDisplay) changed(bodies ...codec.EventBody) {
	for ch := range d.subs {
		select {
		case ch <- bodies:
		default:
		}
	}
}

// Layout, in pixels, derived from the display size.
func (d *asimDisplay) headerH() int { return d.h / 12 }
func (d *asimDisplay) fieldH() int  { return d.h / 16 }
func (d *asimDisplay) listTop() int { return d.headerH() + d.fieldH() }
func (d *asimDisplay) rowH() int    { return max(d.h/12, 8) }
func (d *asimDisplay) maxScroll() int {
	return max(0, asimRows*d.rowH()-(d.h-d.listTop()))
}

// rowBounds is row i's bounds, and whether any of it is on screen.
func (d *asimDisplay) rowBounds(i int) (codec.Bounds, bool) {
	top := d.listTop() + i*d.rowH() - d.scroll
	b := codec.Bounds{Left: 0, Top: int32(top), Right: int32(d.w), Bottom: int32(top + d.rowH())}
	return b, top+d.rowH() > d.listTop() && top < d.h
}

// tick moves the display on by itself: the clock, and now and then the
// counter, as the seed says.
func (d *asimDisplay) tick(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clock = now.Truncate(time.Second)
	bodies := []codec.EventBody{&codec.ContentChanged{Window: asimWindow, Node: asimNodeClock, Change: codec.ContentText}}
	if d.rng.IntN(3) == 0 {
		d.count += 1 + d.rng.IntN(5)
		bodies = append(bodies, &codec.ContentChanged{Window: asimWindow, Node: asimNodeCount, Change: codec.ContentText})
	}
	d.changed(bodies...)
}

func (d *asimDisplay) tap(x, y int32, long bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if y >= int32(d.headerH()) && y < int32(d.listTop()) {
		d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeField, Change: codec.ContentState})
		return
	}
	for i := range asimRows {
		b, on := d.rowBounds(i)
		if on && y >= b.Top && y < b.Bottom && y >= int32(d.listTop()) && x >= b.Left && x < b.Right {
			if long {
				d.pinned[i] = !d.pinned[i]
			} else {
				d.selected[i] = !d.selected[i]
			}
			d.changed(&codec.ContentChanged{Window: asimWindow, Node: uint32(asimNodeRow0 + i), Change: codec.ContentState})
			return
		}
	}
}

func (d *asimDisplay) swipe(x1, y1, x2, y2 int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	before := d.scroll
	d.scroll = min(max(d.scroll+int(y1-y2), 0), d.maxScroll())
	if d.scroll != before {
		d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeList, Change: codec.ContentSubtree})
	}
}

// Key codes agent-sim understands (Android's KEYCODE_*).
const (
	asimKeyBack = 4
	asimKeyDel  = 67
	asimKeyHome = 3
)

func (d *asimDisplay) key(code uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch code {
	case asimKeyBack:
		clear(d.selected)
		d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeList, Change: codec.ContentSubtree | codec.ContentState})
	case asimKeyHome:
		d.scroll = 0
		d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeList, Change: codec.ContentSubtree})
	case asimKeyDel:
		if r := []rune(d.field); len(r) > 0 {
			d.field = string(r[:len(r)-1])
			d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeField, Change: codec.ContentText})
		}
	}
}

func (d *asimDisplay) typeText(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.field += s
	d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeField, Change: codec.ContentText})
}

func (d *asimDisplay) setText(node uint32, s string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if node != asimNodeField {
		return false
	}
	d.field = s
	d.changed(&codec.ContentChanged{Window: asimWindow, Node: asimNodeField, Change: codec.ContentText})
	return true
}

// Snapshot string table indexes.
const (
	asimStrFrame = iota
	asimStrText
	asimStrEdit
	asimStrList
	asimStrPkg
)

var asimStrings = []string{"android.widget.FrameLayout", "android.widget.TextView", "android.widget.EditText", "androidx.recyclerview.widget.RecyclerView", "dev.wirebench.sim"}

func (d *asimDisplay) snapshot(p *codec.SnapshotParams, seq uint64) *codec.Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	w, h := int32(d.w), int32(d.h)
	maxNodes := int(p.MaxNodes.Or(1 << 30))
	nodes := 0
	var truncated uint32
	take := func() bool {
		if nodes >= maxNodes {
			truncated |= codec.TruncatedNodes
			return false
		}
		nodes++
		return true
	}
	vis := codec.NodeVisible | codec.NodeEnabled
	root := &codec.Node{ID: asimNodeRoot, Class: asimStrFrame, Bounds: codec.Bounds{Right: w, Bottom: h}, Flags: vis, ResPkg: codec.Some[uint32](asimStrPkg)}
	take()
	deep := p.MaxDepth.Or(1<<31) >= 2
	if !deep {
		truncated |= codec.TruncatedDepth
	}
	if deep && take() {
		root.Children = append(root.Children, codec.Node{ID: asimNodeHeader, Class: asimStrFrame, Bounds: codec.Bounds{Right: w, Bottom: int32(d.headerH())}, Flags: vis})
		hdr := &root.Children[len(root.Children)-1]
		if p.MaxDepth.Or(1<<31) < 3 {
			truncated |= codec.TruncatedDepth
		} else {
			if take() {
				hdr.Children = append(hdr.Children, codec.Node{ID: asimNodeClock, Class: asimStrText, Bounds: codec.Bounds{Right: w / 2, Bottom: int32(d.headerH())}, Flags: vis, Text: codec.Some(d.clock.UTC().Format("15:04:05")), ResName: codec.Some("clock")})
			}
			if take() {
				hdr.Children = append(hdr.Children, codec.Node{ID: asimNodeCount, Class: asimStrText, Bounds: codec.Bounds{Left: w / 2, Right: w, Bottom: int32(d.headerH())}, Flags: vis, Text: codec.Some(strconv.Itoa(d.count) + " new"), ResName: codec.Some("counter")})
			}
		}
	}
	if deep && take() {
		root.Children = append(root.Children, codec.Node{ID: asimNodeField, Class: asimStrEdit, Bounds: codec.Bounds{Top: int32(d.headerH()), Right: w, Bottom: int32(d.listTop())},
			Flags: vis | codec.NodeEditable | codec.NodeFocusable | codec.NodeClickable, Text: codec.Some(d.field), Hint: codec.Some("Search"), ResName: codec.Some("search")})
	}
	if deep && take() {
		first, last := -1, -1
		list := codec.Node{ID: asimNodeList, Class: asimStrList, Bounds: codec.Bounds{Top: int32(d.listTop()), Right: w, Bottom: h}, Flags: vis | codec.NodeScrollable}
		if p.MaxDepth.Or(1<<31) < 3 {
			truncated |= codec.TruncatedDepth
		} else {
			for i := range asimRows {
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
				f := vis | codec.NodeClickable | codec.NodeLongClickable
				if d.selected[i] {
					f |= codec.NodeSelected
				}
				if d.pinned[i] {
					f |= codec.NodeChecked
				}
				list.Children = append(list.Children, codec.Node{ID: uint32(asimNodeRow0 + i), Class: asimStrText, Bounds: b, Flags: f, Text: codec.Some(fmt.Sprintf("Item %d", i+1))})
			}
		}
		sc := &codec.Scroll{Axis: codec.ScrollVertical}
		if d.scroll > 0 {
			sc.Flags |= codec.ScrollBack
		}
		if d.scroll < d.maxScroll() {
			sc.Flags |= codec.ScrollForward
		}
		sc.Range = codec.Some(codec.ScrollRange{Unit: codec.RangeItems, Lo: 0, Hi: asimRows - 1})
		if first >= 0 {
			sc.Position = codec.Some(codec.ScrollPosition{Lo: int64(first), Hi: int64(last)})
		}
		list.Scroll = sc
		root.Children = append(root.Children, list)
	}
	win := codec.Window{ID: asimWindow, Type: 1, Bounds: codec.Bounds{Right: w, Bottom: h}, Flags: codec.WindowActive | codec.WindowFocused,
		Title: codec.Some("Wire Sim"), Package: codec.Some[uint32](asimStrPkg), Root: root, EmitsEvents: codec.Some(true)}
	windows := []codec.Window{win}
	if p.MaxWindows.Ok && p.MaxWindows.Val < 1 {
		windows, truncated = []codec.Window{}, truncated|codec.TruncatedWindows
	}
	return &codec.Snapshot{Strings: asimStrings, Windows: windows, Truncated: truncated, Seq: seq, Display: codec.Some(codec.Display{Width: uint32(d.w), Height: uint32(d.h), DensityDPI: 420})}
}

func (d *asimDisplay) bounds(ids []uint32) *codec.BoundsResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := &codec.BoundsResult{Nodes: []codec.NodeBounds{}}
	w, h := int32(d.w), int32(d.h)
	for _, id := range ids {
		var b codec.Bounds
		switch {
		case id == asimNodeRoot:
			b = codec.Bounds{Right: w, Bottom: h}
		case id == asimNodeHeader:
			b = codec.Bounds{Right: w, Bottom: int32(d.headerH())}
		case id == asimNodeClock:
			b = codec.Bounds{Right: w / 2, Bottom: int32(d.headerH())}
		case id == asimNodeCount:
			b = codec.Bounds{Left: w / 2, Right: w, Bottom: int32(d.headerH())}
		case id == asimNodeField:
			b = codec.Bounds{Top: int32(d.headerH()), Right: w, Bottom: int32(d.listTop())}
		case id == asimNodeList:
			b = codec.Bounds{Top: int32(d.listTop()), Right: w, Bottom: h}
		case id >= asimNodeRow0 && id < asimNodeRow0+asimRows:
			rb, on := d.rowBounds(int(id - asimNodeRow0))
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
func (d *asimDisplay) render(pct int) *image.RGBA {
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
	for i := range asimRows {
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
			fill(24, int(b.Top)+d.rowH()/3, 24+(i+1)*(d.w-48)/asimRows, int(b.Top)+2*d.rowH()/3, color.RGBA{90, 90, 90, 255})
		}
		if d.pinned[i] {
			fill(d.w-64, top, d.w-24, int(b.Bottom), color.RGBA{220, 40, 40, 255})
		}
		fill(0, int(b.Bottom)-2, d.w, int(b.Bottom), color.RGBA{210, 210, 210, 255})
	}
	return img
}

// encode renders the display and encodes it in format at scale pct.
func (d *asimDisplay) encode(format uint32, quality, pct int) ([]byte, uint32, uint32, *codec.Error) {
	if pct < 1 || pct > 100 {
		return nil, 0, 0, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("scale_pct %d is outside 1..100", pct))
	}
	img := d.render(pct)
	var buf bytes.Buffer
	var err error
	switch format {
	case codec.FormatPNG:
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case codec.FormatJPEG:
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

// formatName is an image format's name, or its number.
func formatName(f uint32) string {
	if names := [...]string{codec.FormatPNG: "png", codec.FormatJPEG: "jpeg", codec.FormatWebP: "webp"}; f < uint32(len(names)) {
		return names[f]
	}
	return strconv.FormatUint(uint64(f), 10)
}
