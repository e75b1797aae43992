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
	"time"

	"github.com/wirebench/wirebench/cmd/wire/internal/simdisplay"
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
	fs, maxFrame := flagSet("agent-sim", asimUsage, stderr)
	listen := fs.String("listen", "", "loopback `address` to listen on, such as 127.0.0.1:7100 (required)")
	token := fs.String("token", "", "per-launch `token` to present in the hello (none when empty)")
	seed := fs.Uint64("seed", 1, "`seed` of the simulated display's changes")
	size := fs.String("size", "1080x1920", "display size `WxH` in pixels")
	caps := fs.String("caps", "all", "capabilities to advertise: all, or a comma-separated `list` such as tree,input")
	once := fs.Bool("once", false, "serve one connection, then exit")
	tick := fs.Duration("tick", time.Second, "how often the display changes by itself")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
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
	if err := sessionLimit(maxFrame); err != nil {
		fmt.Fprintf(stderr, "wire agent-sim: %v\n", err)
		return 2
	}
	cfg.maxFrame = maxFrame.limit
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

// asimConn runs one agent session on c.
func asimConn(ctx context.Context, c net.Conn, cfg asimConfig, disp *simdisplay.Display, logf func(string, ...any)) error {
	dev := codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(cfg.width), Height: uint32(cfg.height), DensityDPI: 420}}
	a := session.NewAgent(session.AgentConfig{
		MaxFrame: cfg.maxFrame, Capabilities: cfg.caps, Token: cfg.token,
		Name: "wire-agent-sim/1 seed " + strconv.FormatUint(cfg.seed, 10), Device: codec.Some(dev),
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
	disp       *simdisplay.Display
	caps       codec.Capabilities
	changes    chan []codec.EventBody
	framesStop chan struct{} // closed to end the frames stream; nil when it does not run
	fscale     int
	fformat    uint32
	fqual      int
	start      time.Time
}

func (st *asimConnState) sendFrame() {
	img, w, h, err := st.disp.Encode(st.fformat, st.fqual, st.fscale)
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
	case *codec.ScreenshotParams:
		format := p.Format.Or(codec.FormatPNG)
		img, w, h, err := d.Encode(format, int(p.Quality.Or(80)), int(p.ScalePct.Or(100)))
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
		w, h := d.Size()
		return &codec.Device{Model: "wire agent-sim", SDK: 34, ABI: "x86_64", Display: codec.Display{Width: uint32(w), Height: uint32(h), DensityDPI: 420}}, nil
	}
	return nil, codec.NewError(codec.CodeInternal, fmt.Sprintf("agent-sim has no handler for %s", in.Method))
}
