package main

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"image/png"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/cmd/wire/internal/simdisplay"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/testio"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// asimStart runs agent-sim in-process on a loopback port and returns its
// address; it stops when the test ends.
func asimStart(t *testing.T, cfg asimConfig) string {
	t.Helper()
	cfg = asimTestDefaults(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := &testio.SyncBuffer{}
	go func() { done <- asimServe(ctx, ln, cfg, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent-sim: %v", err)
		}
		if t.Failed() {
			t.Logf("agent-sim's log:\n%s", logs.String())
		}
	})
	return ln.Addr().String()
}

// asimTestDefaults fills in what a test's config leaves unset: a
// 1080x1920 display, every capability, the default frame limit, and a
// clock that does not tick by itself.
func asimTestDefaults(cfg asimConfig) asimConfig {
	if cfg.width == 0 {
		cfg.width, cfg.height = 1080, 1920
	}
	if cfg.caps == 0 {
		cfg.caps = codec.CapAll
	}
	if cfg.maxFrame == 0 {
		cfg.maxFrame = schema.DefaultMaxFrame
	}
	if cfg.tick == 0 {
		cfg.tick = time.Hour
	}
	return cfg
}

// asimClient is a session.Host over TCP for the tests.
type asimClient struct {
	t      *testing.T
	h      *session.Host
	d      *netconn.Conn
	events []session.HostEvent
	done   map[uint64]*session.Completed
}

func asimDial(t *testing.T, addr string) *asimClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h := session.NewHost(session.HostConfig{Session: 1}, time.Now())
	cl := &asimClient{t: t, h: h, d: netconn.New(c, h), done: map[uint64]*session.Completed{}}
	t.Cleanup(func() { cl.d.Close() })
	cl.until(5*time.Second, h.Connected)
	return cl
}

// until drives the session until cond holds or d passes.
func (cl *asimClient) until(d time.Duration, cond func() bool) {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var closed *session.Closed
	err := cl.d.Run(ctx, func() bool {
		for e, ok := cl.h.PollEvent(); ok; e, ok = cl.h.PollEvent() {
			if c, ok := e.(*session.Completed); ok {
				cl.done[c.ID] = c
			}
			if c, ok := e.(*session.Closed); ok {
				closed = c
				return true
			}
			cl.events = append(cl.events, e)
		}
		return cond()
	})
	if closed != nil {
		cl.t.Fatalf("session closed: %v", closed.Err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		cl.t.Fatalf("condition not met within %v; events %v", d, cl.events)
	}
	if err != nil {
		cl.t.Fatal(err)
	}
}

// call performs one request and returns its result, failing on an error.
func (cl *asimClient) call(m codec.Method, p codec.Params) codec.Result {
	cl.t.Helper()
	c := cl.try(m, p)
	if c.Err != nil {
		cl.t.Fatalf("%s: %v", m, c.Err)
	}
	return c.Result
}

func (cl *asimClient) try(m codec.Method, p codec.Params) *session.Completed {
	cl.t.Helper()
	id, err := cl.h.Request(time.Now(), m, p, 5*time.Second)
	if err != nil {
		cl.t.Fatalf("%s: %v", m, err)
	}
	cl.until(10*time.Second, func() bool { return cl.done[id] != nil })
	return cl.done[id]
}

// treeEvents returns the content_changed events received so far.
func (cl *asimClient) treeEvents() []*codec.Event {
	var out []*codec.Event
	for _, e := range cl.events {
		if se, ok := e.(*session.StreamEvent); ok && se.Event.Stream == codec.StreamTree {
			out = append(out, se.Event)
		}
	}
	return out
}

func asimFind(n *codec.Node, id uint32) *codec.Node {
	if n.ID == id {
		return n
	}
	for i := range n.Children {
		if f := asimFind(&n.Children[i], id); f != nil {
			return f
		}
	}
	return nil
}

func asimSnap(cl *asimClient) *codec.Snapshot {
	cl.t.Helper()
	s := cl.call(codec.MethodSnapshot, nil).(*codec.Snapshot)
	if len(s.Windows) != 1 || s.Windows[0].Root == nil {
		cl.t.Fatalf("snapshot windows %+v", s.Windows)
	}
	return s
}

func TestAgentSimRefusesNonLoopbackAndBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-listen", "0.0.0.0:0"},
		{"-listen", "192.0.2.1:7100"},
		{},
		{"-listen", "127.0.0.1:0", "-size", "10x"},
		{"-listen", "127.0.0.1:0", "-caps", "tree,warp"},
		{"-listen", "127.0.0.1:0", "extra"},
		{"-listen", "127.0.0.1:0", "-max-backlog", "0"},
	} {
		var out, errb bytes.Buffer
		if code := runAgentSim(args, &out, &errb); code != 2 {
			t.Errorf("agent-sim %q: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("agent-sim %q: nothing on stderr", args)
		}
	}
}

func TestAgentSimHelloAndDevice(t *testing.T) {
	cl := asimDial(t, asimStart(t, asimConfig{seed: 7}))
	var conn *session.Connected
	for _, e := range cl.events {
		if c, ok := e.(*session.Connected); ok {
			conn = c
		}
	}
	if conn == nil || conn.Capabilities != codec.CapAll || !strings.Contains(conn.Agent, "agent-sim") || conn.Device.Val.Display.Width != 1080 {
		t.Fatalf("connected %+v", conn)
	}
	dev := cl.call(codec.MethodDeviceInfo, nil).(*codec.Device)
	if dev.Display.Width != 1080 || dev.Display.Height != 1920 {
		t.Fatalf("device %+v", dev)
	}
}

func TestAgentSimSnapshotsChangeOverTimeWithTreeEvents(t *testing.T) {
	cl := asimDial(t, asimStart(t, asimConfig{seed: 1, tick: 40 * time.Millisecond}))
	first := asimSnap(cl)
	text := func(s *codec.Snapshot) string {
		c, n := asimFind(s.Windows[0].Root, simdisplay.NodeClock), asimFind(s.Windows[0].Root, simdisplay.NodeCount)
		return c.Text + "|" + n.Text
	}
	before := text(first)
	cl.until(5*time.Second, func() bool { return len(cl.treeEvents()) >= 30 })
	later := asimSnap(cl)
	if text(later) == before {
		t.Fatalf("clock and counter unchanged over 30 ticks: %q", before)
	}
	evs := cl.treeEvents()
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("tree event %d has seq %d", i, e.Seq)
		}
		cc, ok := e.Body.(*codec.ContentChanged)
		if !ok || (cc.Node != simdisplay.NodeClock && cc.Node != simdisplay.NodeCount) {
			t.Fatalf("tree event %+v", e.Body)
		}
	}
	if later.Seq < uint64(len(evs)) {
		t.Fatalf("snapshot seq %d, but %d tree events were delivered before it was asked for", later.Seq, len(evs))
	}
}

func TestAgentSimScreenshotIsARealImageOfTheDisplay(t *testing.T) {
	cl := asimDial(t, asimStart(t, asimConfig{seed: 1}))
	r := cl.call(codec.MethodScreenshot, &codec.ScreenshotParams{}).(*codec.ScreenshotResult)
	img, err := png.Decode(bytes.NewReader(r.Image))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1080 || b.Dy() != 1920 || r.Width != 1080 || r.Height != 1920 || r.Format != schema.FormatPNG {
		t.Fatalf("screenshot %dx%d (says %dx%d, format %d), want 1080x1920 png", b.Dx(), b.Dy(), r.Width, r.Height, r.Format)
	}
	// Selecting a row changes its pixels.
	row := asimFind(asimSnap(cl).Windows[0].Root, simdisplay.NodeRow0+2)
	x, y := int(row.Bounds.Left+row.Bounds.Right)/2+200, int(row.Bounds.Top)+10
	before := img.At(x, y)
	cl.call(codec.MethodTap, &codec.TapParams{X: int32(x), Y: int32(y)})
	r2 := cl.call(codec.MethodScreenshot, &codec.ScreenshotParams{}).(*codec.ScreenshotResult)
	img2, _ := png.Decode(bytes.NewReader(r2.Image))
	if img2.At(x, y) == before {
		t.Fatalf("pixel at %d,%d unchanged (%v) after the tap selected its row", x, y, before)
	}
	half := cl.call(codec.MethodScreenshot, &codec.ScreenshotParams{ScalePct: codec.Some[uint32](50), Format: codec.Some(schema.FormatJPEG)}).(*codec.ScreenshotResult)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(half.Image))
	if err != nil || cfg.Width != 540 || cfg.Height != 960 {
		t.Fatalf("half-scale jpeg: %+v %v", cfg, err)
	}
	if c := cl.try(codec.MethodScreenshot, &codec.ScreenshotParams{Format: codec.Some(schema.FormatWebP)}); c.Err == nil || c.Err.Code != codec.CodeBadRequest {
		t.Fatalf("webp screenshot: %+v", c)
	}
}

func TestAgentSimInputMovesTheScreen(t *testing.T) {
	cl := asimDial(t, asimStart(t, asimConfig{seed: 1}))
	s := asimSnap(cl)
	row := asimFind(s.Windows[0].Root, simdisplay.NodeRow0+5)
	if row == nil {
		t.Fatal("row 6 not on screen at first")
	}
	// Tap selects, and the tree stream says so.
	cl.call(codec.MethodTap, &codec.TapParams{X: 50, Y: row.Bounds.Top + 5})
	if got := asimFind(asimSnap(cl).Windows[0].Root, simdisplay.NodeRow0+5); got.Flags&schema.NodeSelected == 0 {
		t.Fatalf("row flags %b after a tap, want selected", got.Flags)
	}
	cl.until(2*time.Second, func() bool { return len(cl.treeEvents()) >= 1 })
	if cc := cl.treeEvents()[0].Body.(*codec.ContentChanged); cc.Node != simdisplay.NodeRow0+5 || cc.Change&schema.ContentState == 0 {
		t.Fatalf("event after the tap: %+v", cc)
	}
	// Swipe up 400 px: the bounds probe sees the row move 400 px up.
	b0 := cl.call(codec.MethodBounds, &codec.BoundsParams{Nodes: []uint32{simdisplay.NodeRow0 + 5, 9999}}).(*codec.BoundsResult)
	cl.call(codec.MethodSwipe, &codec.SwipeParams{X1: 500, Y1: 1500, X2: 500, Y2: 1100, DurationMS: 200})
	b1 := cl.call(codec.MethodBounds, &codec.BoundsParams{Nodes: []uint32{simdisplay.NodeRow0 + 5}}).(*codec.BoundsResult)
	if len(b0.Nodes) != 1 || len(b1.Nodes) != 1 {
		t.Fatalf("bounds %+v then %+v (unknown node 9999 must be left out)", b0, b1)
	}
	if d := b0.Nodes[0].Bounds.Top - b1.Nodes[0].Bounds.Top; d != 400 {
		t.Fatalf("row moved %d px after a 400 px swipe", d)
	}
	// Far enough and the row is gone from the probe.
	cl.call(codec.MethodSwipe, &codec.SwipeParams{X1: 500, Y1: 1800, X2: 500, Y2: 100, DurationMS: 200})
	if b := cl.call(codec.MethodBounds, &codec.BoundsParams{Nodes: []uint32{simdisplay.NodeRow0 + 5}}).(*codec.BoundsResult); len(b.Nodes) != 0 {
		t.Fatalf("scrolled-away row still probed: %+v", b)
	}
	// Text input.
	cl.call(codec.MethodTypeText, &codec.TypeTextParams{Text: "héllo"})
	cl.call(codec.MethodKey, &codec.KeyParams{Keycode: simdisplay.KeyDel})
	if f := asimFind(asimSnap(cl).Windows[0].Root, simdisplay.NodeField); f.Text != "héll" {
		t.Fatalf("field %q, want héll", f.Text)
	}
	cl.call(codec.MethodSetText, &codec.SetTextParams{Node: simdisplay.NodeField, Text: "set"})
	if f := asimFind(asimSnap(cl).Windows[0].Root, simdisplay.NodeField); f.Text != "set" {
		t.Fatalf("field %q, want set", f.Text)
	}
	if c := cl.try(codec.MethodSetText, &codec.SetTextParams{Node: 3, Text: "x"}); c.Err == nil || c.Err.Code != codec.CodeNotFound {
		t.Fatalf("set_text on the clock: %+v", c)
	}
}

func TestAgentSimResyncAndFrames(t *testing.T) {
	cl := asimDial(t, asimStart(t, asimConfig{seed: 1}))
	cl.call(codec.MethodTypeText, &codec.TypeTextParams{Text: "a"})
	cl.until(2*time.Second, func() bool { return len(cl.treeEvents()) == 1 })
	rr := cl.call(codec.MethodResync, &codec.ResyncParams{Stream: codec.StreamTree}).(*codec.ResyncResult)
	if rr.Seq != 2 {
		t.Fatalf("resync seq %d, want 2 (the next event's)", rr.Seq)
	}
	fs := cl.call(codec.MethodFramesStart, &codec.FramesStartParams{MaxFPS: codec.Some[uint32](20), ScalePct: codec.Some[uint32](10)}).(*codec.FramesStartResult)
	if fs.Stream != codec.StreamFrames {
		t.Fatalf("frames stream %d", fs.Stream)
	}
	var frames []*codec.ScreenFrame
	cl.until(5*time.Second, func() bool {
		frames = frames[:0]
		for _, e := range cl.events {
			if se, ok := e.(*session.StreamEvent); ok && se.Event.Stream == codec.StreamFrames {
				frames = append(frames, se.Event.Body.(*codec.ScreenFrame))
			}
		}
		return len(frames) >= 3
	})
	cfg, err := png.DecodeConfig(bytes.NewReader(frames[0].Image))
	if err != nil || cfg.Width != 108 || cfg.Height != 192 || frames[0].Width != 108 {
		t.Fatalf("frame %dx%d: %+v %v", frames[0].Width, frames[0].Height, cfg, err)
	}
	cl.call(codec.MethodFramesStop, nil)
}
