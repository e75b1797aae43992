package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirebench/wirebench/cmd/wire/internal/simdisplay"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
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

const asimUsage = `usage: wire agent-sim -listen 127.0.0.1:PORT [-token T] [-seed N] [-size WxH] [-caps LIST] [-max-frame N] [-max-backlog N] [-once]

A simulated device agent. It listens on a loopback address only, prints
"listening on ADDR" on stdout (PORT 0 picks a free port), and serves
every host that connects until interrupted (or, with -once, one): a host
that reconnects gets a new session, and each is logged on stderr. When
the host reads slower than the agent sends, the agent queues at most
-max-backlog bytes: frames past it are dropped and tree events skipped
(the host sees the gap and resyncs), so its memory stays flat.

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
	backlog  int           // the agent's backlog limit (session.AgentConfig.MaxBacklog); 0 for the default
	// peakBacklog, when set, records the largest backlog any connection's
	// agent has had, in bytes (tests watch it).
	peakBacklog *atomic.Int64
}

func runAgentSim(args []string, stdout, stderr io.Writer) int {
	fs, maxFrame := flagSet("agent-sim", asimUsage, stderr)
	listen := fs.String("listen", "", "loopback `address` to listen on, such as 127.0.0.1:7100 (required)")
	token := fs.String("token", "", "per-launch `token` to present in the hello (none when empty)")
	seed := fs.Uint64("seed", 1, "`seed` of the simulated display's changes")
	size := fs.String("size", "1080x1920", "display size `WxH` in pixels")
	caps := fs.String("caps", "all", "capabilities to advertise: all, or a comma-separated `list` such as tree,input")
	once := fs.Bool("once", false, "serve one connection, then exit")
	tick := fs.Duration("tick", time.Second, "how often the display changes by itself")
	backlog := fs.Int("max-backlog", session.DefaultMaxBacklog, "`bytes` queued for a slow host before the agent drops frames and skips tree events (the host resyncs)")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wire agent-sim: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := asimConfig{seed: *seed, once: *once, tick: *tick, backlog: *backlog}
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
	if err := sessionLimit(maxFrame); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: %v\n", err)
		return 2
	}
	cfg.maxFrame = maxFrame.limit
	if *backlog <= 0 {
		fmt.Fprintf(stderr, "wire agent-sim: -max-backlog %d: want a positive byte count\n", *backlog)
		return 2
	}
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
	ctx, stop := interruptible()
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
	disp := simdisplay.New(cfg.width, cfg.height, cfg.seed, time.Now())
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

// asimWriteBuffer is the kernel send buffer agent-sim asks for on each
// connection: kept small, a slow host fills it soon, and what the agent
// has to send then waits in its session, where pings and pongs go first
// and the backlog limit (-max-backlog) drops frames, instead of in the
// kernel, where it would only make every frame later.
const asimWriteBuffer = 16 << 10

// asimConn runs one agent session on c.
func asimConn(ctx context.Context, c net.Conn, cfg asimConfig, disp *simdisplay.Display, logf func(string, ...any)) error {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(asimWriteBuffer)
	}
	dev := codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(cfg.width), Height: uint32(cfg.height), DensityDPI: 420}}
	a := session.NewAgent(session.AgentConfig{
		MaxFrame: cfg.maxFrame, Capabilities: cfg.caps, Token: cfg.token,
		Name: "wire-agent-sim/1 seed " + strconv.FormatUint(cfg.seed, 10), Device: codec.Some(dev),
		MaxBacklog: cfg.backlog,
	}, time.Now())
	d := netconn.New(c, a)
	defer d.Close()
	st := &asimConnState{a: a, d: d, disp: disp, caps: cfg.caps, changes: disp.Subscribe()}
	defer disp.Unsubscribe(st.changes)
	defer st.stopFrames()
	// The display's clock and its changes come from a goroutine of their
	// own; what touches the session it posts to the driver's loop.
	pumpCtx, stopPump := context.WithCancel(ctx)
	defer stopPump()
	go st.pump(pumpCtx, cfg.tick)
	err := d.Run(ctx, func() bool {
		st.writable.Store(a.Writable())
		if p := cfg.peakBacklog; p != nil {
			for b := int64(a.Backlog()); ; {
				if old := p.Load(); b <= old || p.CompareAndSwap(old, b) {
					break
				}
			}
		}
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
			st.disp.Tick(now)
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

// frameSpec is how a frames stream encodes its frames.
type frameSpec struct {
	fps, scale, quality int
	format              uint32
	start               time.Time
}

// startFrames sends a frame fps times a second until stopFrames. A
// goroutine of its own encodes each frame, off the session's loop so that
// pings and answers never wait for an image, and posts it to the loop;
// while the agent's backlog is at its limit it encodes nothing and posts
// the frame's number as skipped.
func (st *asimConnState) startFrames(f frameSpec) {
	st.stopFrames()
	stop := make(chan struct{})
	st.framesStop = stop
	t := time.NewTicker(time.Second / time.Duration(f.fps))
	go func() {
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				fr := st.encodeFrame(f)
				st.d.Post(func() {
					if st.framesStop == stop {
						st.sendFrame(fr)
					}
				})
			}
		}
	}()
}

// encodeFrame encodes a frame of the display, or returns nil while the
// agent cannot take it or the encoder fails: its number is skipped then.
func (st *asimConnState) encodeFrame(f frameSpec) *codec.ScreenFrame {
	if !st.writable.Load() {
		return nil
	}
	img, w, h, err := st.disp.Encode(f.format, f.quality, f.scale)
	if err != nil {
		return nil
	}
	return &codec.ScreenFrame{Width: w, Height: h, Format: f.format, UptimeMS: uint64(time.Since(f.start).Milliseconds()), Image: img}
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
	disp       *simdisplay.Display
	caps       codec.Capabilities
	changes    chan []codec.EventBody
	framesStop chan struct{} // closed to end the frames stream; nil when it does not run
	// writable is the agent's Writable as of the loop's last round, for
	// the goroutines that make frames.
	writable atomic.Bool
}

// sendFrame sends fr, or skips the frame's number for a nil fr, so the
// host counts it dropped; SendEvent skips it too when the backlog has
// reached its limit since fr was encoded.
func (st *asimConnState) sendFrame(fr *codec.ScreenFrame) {
	if fr == nil {
		st.a.SkipEvent(codec.StreamFrames)
		return
	}
	st.a.SendEvent(codec.StreamFrames, codec.TypeFrame, fr)
}

// handle runs one request against the display and answers it. A
// screenshot is encoded off the session's loop, and answered when done.
func (st *asimConnState) handle(in *session.Incoming) {
	if p, ok := in.Params.(*codec.ScreenshotParams); ok {
		go func() {
			res, perr := st.screenshot(p)
			st.d.Post(func() { st.answer(in, res, perr) })
		}()
		return
	}
	res, perr := st.run(in)
	st.answer(in, res, perr)
}

// answer answers in with res, or with perr when it is not nil.
func (st *asimConnState) answer(in *session.Incoming, res codec.Result, perr *codec.Error) {
	now := time.Now()
	if perr != nil {
		st.a.Fail(now, in.ID, perr)
		return
	}
	st.a.Respond(time.Now(), in.ID, res)
}

// screenshot encodes the display as p asks.
func (st *asimConnState) screenshot(p *codec.ScreenshotParams) (codec.Result, *codec.Error) {
	format := p.Format.Or(schema.FormatPNG)
	img, w, h, err := st.disp.Encode(format, int(p.Quality.Or(80)), int(p.ScalePct.Or(100)))
	if err != nil {
		return nil, err
	}
	return &codec.ScreenshotResult{Width: w, Height: h, Format: format, Image: img}, nil
}

func (st *asimConnState) run(in *session.Incoming) (codec.Result, *codec.Error) {
	d := st.disp
	switch p := in.Params.(type) {
	case *codec.SnapshotParams:
		return d.Snapshot(p, st.a.NextSeq(codec.StreamTree)-1), nil
	case *codec.BoundsParams:
		return d.Bounds(p.Nodes), nil
	case *codec.TapParams:
		d.Tap(p.X, p.Y, false)
		return &codec.Empty{}, nil
	case *codec.LongPressParams:
		d.Tap(p.X, p.Y, true)
		return &codec.Empty{}, nil
	case *codec.SwipeParams:
		d.Swipe(p.X1, p.Y1, p.X2, p.Y2)
		return &codec.Empty{}, nil
	case *codec.KeyParams:
		d.Key(p.Keycode)
		return &codec.Empty{}, nil
	case *codec.TypeTextParams:
		d.TypeText(p.Text)
		return &codec.Empty{}, nil
	case *codec.SetTextParams:
		if !d.SetText(p.Node, p.Text) {
			return nil, codec.NewError(codec.CodeNotFound, fmt.Sprintf("node %d is not an editable node on screen (the text field is node %d)", p.Node, simdisplay.NodeField))
		}
		return &codec.Empty{}, nil
	case *codec.FramesStartParams:
		scale := int(p.ScalePct.Or(25))
		if scale < 1 || scale > 100 {
			return nil, codec.NewError(codec.CodeBadRequest, fmt.Sprintf("scale_pct %d is outside 1..100", scale))
		}
		st.startFrames(frameSpec{fps: min(max(int(p.MaxFPS.Or(2)), 1), 30), scale: scale, quality: int(p.Quality.Or(70)), format: schema.FormatPNG, start: time.Now()})
		return &codec.FramesStartResult{Stream: codec.StreamFrames}, nil
	case *codec.FramesStopParams:
		st.stopFrames()
		return &codec.Empty{}, nil
	case *codec.ResyncParams:
		return &codec.ResyncResult{Seq: st.a.NextSeq(p.Stream)}, nil
	case *codec.DeviceInfoParams:
		w, h := d.Size()
		return &codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(w), Height: uint32(h), DensityDPI: 420}}, nil
	}
	return nil, codec.NewError(codec.CodeInternal, fmt.Sprintf("agent-sim has no handler for %s", in.Method))
}
