package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wirebench/wirebench/cmd/wire/internal/wirejson"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// host: a session.Host over TCP that performs calls and prints their
// results, and with -watch the agent's events, as JSON Lines.

const hostUsage = `usage: wire host -connect ADDR [-token T] [-watch] [-for D] [-deadline D] [-timeout D] [-no-reconnect] CALL...

Connects to an agent on a loopback address, performs the calls in order
and prints each result as one JSON object per line, {"call", "id",
"result"}, the result in the JSON form wire decode prints (screenshot -o
FILE writes the image to FILE, names it in "file" and leaves the result's
image empty); with -watch it also prints the session's events (and keeps
watching after the calls, for -for or until interrupted), stream events
in the same JSON form. Without CALLs it reads them from stdin, one a line.
An error prints its code and message on stderr and exits 1.

When the session closes (the agent went silent, the connection ended)
or a dial fails, wire host dials again after 100 ms, doubling to 5 s,
and says so on stderr, one line per attempt; a call cut off by a
reconnection is sent again once reconnected (its error, disconnected,
is retryable), within -timeout. With -watch each new session prints a
"connected" line, and the frames and streams the host had started are
restored. -no-reconnect ends the run at the first close instead.

calls:
  snapshot [max_depth=N] [max_nodes=N] [max_windows=N] [evict_event_less] [evict=ID,...]
  bounds NODE...
  tap X Y
  long_press X Y [MS]
  swipe X1 Y1 X2 Y2 MS [rest=MS]
  key CODE [meta=N]
  type_text TEXT
  set_text NODE TEXT
  screenshot [-o FILE] [format=png|jpeg] [quality=N] [scale=PCT]
  frames_start [fps=N] [scale=PCT] [quality=N]
  frames_stop
  resync [STREAM]
  device_info
  sleep DURATION       (wait, printing events with -watch)

flags:
`

// hostCall is one parsed call.
type hostCall struct {
	name   string
	method codec.Method
	params codec.Params
	out    string        // screenshot -o FILE
	sleep  time.Duration // the sleep pseudo-call
}

func runHost(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, maxFrame := flagSet("host", hostUsage, stderr)
	connect := fs.String("connect", "", "loopback `address` of the agent, such as 127.0.0.1:7100 (required)")
	token := fs.String("token", "", "per-launch `token` the agent must present (none when empty)")
	watch := fs.Bool("watch", false, "print the session's events too, and keep watching after the calls")
	watchFor := fs.Duration("for", 0, "with -watch, stop watching after this `duration` (0: until interrupted or the agent leaves)")
	deadline := fs.Duration("deadline", 10*time.Second, "each request's deadline")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the connection and the handshake, and for a reconnection")
	noReconnect := fs.Bool("no-reconnect", false, "end at the first close of the session instead of dialing again")
	if err := fs.Parse(args); err != nil { // flags end at the first CALL, whose words may look like flags
		return parseExit(err)
	}
	if err := loopbackOnly(*connect); err != nil {
		fmt.Fprintf(stderr, "wire host: -connect: %v\n", err)
		return 2
	}
	if err := sessionLimit(maxFrame); err != nil {
		fmt.Fprintf(stderr, "wire host: %v\n", err)
		return 2
	}
	words := fs.Args()
	if len(words) == 0 && stdin != nil {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			words = append(words, hostSplitLine(line)...)
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(stderr, "wire host: reading calls from stdin: %v\n", err)
			return 1
		}
	}
	calls, err := hostParseCalls(words)
	if err != nil {
		fmt.Fprintf(stderr, "wire host: %v\n", err)
		return 2
	}
	cfg := session.HostConfig{MaxFrame: maxFrame.limit, Session: uint64(time.Now().UnixNano())}
	if *token != "" {
		cfg.Token = codec.Some(*token)
	}
	ctx, stop := interruptible()
	defer stop()
	r := &hostRun{cfg: cfg, reconnect: !*noReconnect, watch: *watch, watchFor: *watchFor, deadline: *deadline, timeout: *timeout, out: bufio.NewWriter(stdout), stderr: stderr}
	code := r.run(ctx, *connect, calls)
	r.out.Flush()
	return code
}

// interruptible is a context that ends at SIGINT or SIGTERM: the session
// verbs then close their sessions and exit.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// hostSplitLine splits a call line at spaces, keeping "quoted text"
// together.
func hostSplitLine(line string) []string {
	var out []string
	for line != "" {
		line = strings.TrimLeft(line, " \t")
		if line == "" {
			break
		}
		if line[0] == '"' {
			if q, err := strconv.QuotedPrefix(line); err == nil {
				s, _ := strconv.Unquote(q)
				out = append(out, s)
				line = line[len(q):]
				continue
			}
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

// hostCallNames are the words that start a call.
var hostCallNames = map[string]bool{"sleep": true}

func init() {
	for _, m := range codec.Methods() {
		hostCallNames[m.String()] = true
	}
}

// hostParseCalls parses the CALL words.
func hostParseCalls(words []string) ([]hostCall, error) {
	var calls []hostCall
	for len(words) > 0 {
		name := words[0]
		if !hostCallNames[name] {
			return nil, fmt.Errorf("unknown call %q (want a method such as snapshot, tap, screenshot, or sleep)", name)
		}
		// The call's words run to the next call name, but a text argument
		// is taken whatever it says.
		end := 1
		text := map[string]int{"type_text": 1, "set_text": 2}[name]
		for end < len(words) && (end <= text || !hostCallNames[words[end]]) {
			end++
		}
		c, err := hostParseCall(name, words[1:end])
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %v", len(calls)+1, name, err)
		}
		calls = append(calls, c)
		words = words[end:]
	}
	return calls, nil
}

// hostArgs reads a call's arguments: positional ones in order, then
// key=value options, bare flags and -o FILE.
type hostArgs struct {
	pos  []string
	opts map[string]string
	out  string
}

func hostSplitArgs(args []string) (hostArgs, error) {
	a := hostArgs{opts: map[string]string{}}
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case s == "-o":
			if i+1 >= len(args) {
				return a, errors.New("-o needs a FILE")
			}
			a.out = args[i+1]
			i++
		case strings.Contains(s, "=") && !strings.HasPrefix(s, "="):
			k, v, _ := strings.Cut(s, "=")
			a.opts[k] = v
		case s != "" && (s[0] < '0' || s[0] > '9') && s[0] != '-':
			a.opts[s] = ""
		default:
			a.pos = append(a.pos, s)
		}
	}
	return a, nil
}

func hostInt32(s, what string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a 32-bit integer", what, s)
	}
	return int32(v), nil
}

func hostUint32(s, what string) (uint32, error) {
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not an unsigned 32-bit integer", what, s)
	}
	return uint32(v), nil
}

func hostParseCall(name string, words []string) (hostCall, error) {
	c := hostCall{name: name}
	if name == "sleep" {
		if len(words) != 1 {
			return c, errors.New("want one DURATION, such as 2s")
		}
		d, err := time.ParseDuration(words[0])
		if err != nil || d < 0 {
			return c, fmt.Errorf("duration %q: want a duration such as 500ms", words[0])
		}
		c.sleep = d
		return c, nil
	}
	m, _ := codec.ParseMethod(name)
	c.method = m
	if name == "type_text" || name == "set_text" {
		want := map[string]int{"type_text": 1, "set_text": 2}[name]
		if len(words) != want {
			return c, fmt.Errorf("want %d arguments, have %d", want, len(words))
		}
		if name == "type_text" {
			c.params = &codec.TypeTextParams{Text: words[0]}
			return c, nil
		}
		n, err := hostUint32(words[0], "node")
		c.params = &codec.SetTextParams{Node: n, Text: words[1]}
		return c, err
	}
	a, err := hostSplitArgs(words)
	if err != nil {
		return c, err
	}
	var errs []error
	num := func(i int, what string) int32 {
		if i >= len(a.pos) {
			errs = append(errs, fmt.Errorf("missing %s", what))
			return 0
		}
		v, err := hostInt32(a.pos[i], what)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	opt := func(key string) codec.Opt[uint32] {
		s, ok := a.opts[key]
		if !ok {
			return codec.Opt[uint32]{}
		}
		delete(a.opts, key)
		v, err := hostUint32(s, key)
		if err != nil {
			errs = append(errs, err)
		}
		return codec.Some(v)
	}
	npos := 0
	switch m {
	case codec.MethodSnapshot:
		p := &codec.SnapshotParams{MaxDepth: opt("max_depth"), MaxNodes: opt("max_nodes"), MaxWindows: opt("max_windows"), Evict: []uint32{}}
		if _, ok := a.opts["evict_event_less"]; ok {
			p.EvictEventLess = codec.Some(true)
			delete(a.opts, "evict_event_less")
		}
		if s, ok := a.opts["evict"]; ok {
			delete(a.opts, "evict")
			for _, f := range strings.Split(s, ",") {
				v, err := hostUint32(f, "evict window")
				if err != nil {
					errs = append(errs, err)
				}
				p.Evict = append(p.Evict, v)
			}
		}
		c.params = p
	case codec.MethodBounds:
		p := &codec.BoundsParams{Nodes: []uint32{}}
		for _, s := range a.pos {
			v, err := hostUint32(s, "node")
			if err != nil {
				errs = append(errs, err)
			}
			p.Nodes = append(p.Nodes, v)
		}
		if len(p.Nodes) == 0 {
			errs = append(errs, errors.New("want at least one NODE"))
		}
		npos = len(a.pos)
		c.params = p
	case codec.MethodTap:
		c.params, npos = &codec.TapParams{X: num(0, "X"), Y: num(1, "Y")}, 2
	case codec.MethodLongPress:
		p := &codec.LongPressParams{X: num(0, "X"), Y: num(1, "Y"), DurationMS: 600}
		npos = 2
		if len(a.pos) > 2 {
			p.DurationMS, npos = uint32(num(2, "MS")), 3
		}
		c.params = p
	case codec.MethodSwipe:
		c.params, npos = &codec.SwipeParams{X1: num(0, "X1"), Y1: num(1, "Y1"), X2: num(2, "X2"), Y2: num(3, "Y2"), DurationMS: uint32(num(4, "MS")), RestMS: opt("rest")}, 5
	case codec.MethodKey:
		c.params, npos = &codec.KeyParams{Keycode: uint32(num(0, "CODE")), Meta: opt("meta")}, 1
	case codec.MethodScreenshot:
		p := &codec.ScreenshotParams{Quality: opt("quality"), ScalePct: opt("scale")}
		if f, ok := a.opts["format"]; ok {
			delete(a.opts, "format")
			switch f {
			case "png":
				p.Format = codec.Some(schema.FormatPNG)
			case "jpeg", "jpg":
				p.Format = codec.Some(schema.FormatJPEG)
			case "webp":
				p.Format = codec.Some(schema.FormatWebP)
			default:
				errs = append(errs, fmt.Errorf("format %q: want png, jpeg or webp", f))
			}
		}
		c.params, c.out = p, a.out
		a.out = ""
	case codec.MethodFramesStart:
		c.params = &codec.FramesStartParams{MaxFPS: opt("fps"), ScalePct: opt("scale"), Quality: opt("quality")}
	case codec.MethodFramesStop:
		c.params = &codec.FramesStopParams{}
	case codec.MethodResync:
		s := codec.StreamTree
		if len(a.pos) > 0 {
			v, err := hostUint32(a.pos[0], "stream")
			s, npos = codec.Stream(v), 1
			if err != nil {
				errs = append(errs, err)
			}
		}
		if len(a.opts) == 1 {
			for k := range a.opts {
				if st, ok := codec.ParseStream(k); ok {
					s = st
					delete(a.opts, k)
				}
			}
		}
		c.params = &codec.ResyncParams{Stream: s}
	case codec.MethodDeviceInfo:
		c.params = &codec.DeviceInfoParams{}
	}
	if len(a.pos) > npos {
		errs = append(errs, fmt.Errorf("unexpected argument %q", a.pos[npos]))
	}
	for k := range a.opts {
		errs = append(errs, fmt.Errorf("unknown option %q", k))
	}
	if a.out != "" {
		errs = append(errs, errors.New("-o is for screenshot"))
	}
	return c, errors.Join(errs...)
}

// hostRun is one run of the host verb.
type hostRun struct {
	cfg       session.HostConfig
	reconnect bool
	watch     bool
	watchFor  time.Duration
	deadline  time.Duration
	timeout   time.Duration
	out       *bufio.Writer
	stderr    io.Writer

	rd       *netconn.Redialer
	done     map[uint64]*session.Completed
	sessions int // sessions that completed their handshake
}

// hostFail is an error that ends the run with exit status 1.
type hostFail struct{ msg string }

// Error is the message printed after "wire host: ".
func (e *hostFail) Error() string { return e.msg }

func (r *hostRun) run(ctx context.Context, addr string, calls []hostCall) int {
	dialer := &net.Dialer{Timeout: r.timeout}
	r.rd = netconn.NewRedialer(netconn.RedialConfig{
		Dial: func(ctx context.Context) (net.Conn, error) { return dialer.DialContext(ctx, "tcp", addr) },
		Host: r.cfg,
		Once: !r.reconnect,
	})
	defer r.rd.Close()
	r.done = map[uint64]*session.Completed{}
	if err := r.handshake(ctx); err != nil {
		return r.fail(err)
	}
	for _, call := range calls {
		if err := r.call(ctx, call); err != nil {
			return r.fail(err)
		}
	}
	if r.watch {
		if err := r.wait(ctx, r.watchFor, func() bool { return false }); err != nil && !errors.Is(err, errHostStop) {
			return r.fail(err)
		}
	}
	return 0
}

func (r *hostRun) fail(err error) int {
	r.out.Flush()
	var pe *codec.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(r.stderr, "wire host: %s: %s\n", pe.Code, pe.Message)
	} else {
		fmt.Fprintf(r.stderr, "wire host: %v\n", err)
	}
	return 1
}

var errHostStop = errors.New("stop")

func (r *hostRun) handshake(ctx context.Context) error {
	err := r.wait(ctx, r.timeout, r.rd.Connected)
	if errors.Is(err, errHostStop) && ctx.Err() == nil {
		return fmt.Errorf("no handshake with the agent within %v", r.timeout)
	}
	return err
}

// call performs one call and prints its result.
func (r *hostRun) call(ctx context.Context, c hostCall) error {
	if c.sleep > 0 || c.name == "sleep" {
		err := r.wait(ctx, max(c.sleep, time.Nanosecond), func() bool { return false })
		if errors.Is(err, errHostStop) {
			return nil
		}
		return err
	}
	done, id, err := r.send(ctx, c)
	if err != nil {
		return err
	}
	if done.Err != nil {
		return &hostFail{msg: fmt.Sprintf("%s (request %d): %s: %s", c.name, id, done.Err.Code, done.Err.Message)}
	}
	line := hostLine{Call: c.name, ID: id}
	if shot, ok := done.Result.(*codec.ScreenshotResult); ok && c.out != "" {
		if err := os.WriteFile(c.out, shot.Image, 0o644); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		line.File = c.out
		done.Result = &codec.ScreenshotResult{Width: shot.Width, Height: shot.Height, Format: shot.Format}
	}
	var err2 error
	if line.Result, err2 = wirejson.ResultValue(done.Result); err2 != nil {
		return fmt.Errorf("%s: %w", c.name, err2)
	}
	return r.print(line)
}

// send performs one request and waits for its outcome; a request cut
// off by a reconnection, or made while the host reconnects, is sent again
// once reconnected (disconnected is retryable), unless reconnecting is
// off or takes longer than the timeout.
func (r *hostRun) send(ctx context.Context, c hostCall) (*session.Completed, uint64, error) {
	for {
		id, err := r.rd.Request(time.Now(), c.method, c.params, r.deadline)
		var done *session.Completed
		if err == nil {
			if err := r.wait(ctx, 0, func() bool { return r.done[id] != nil }); err != nil {
				return nil, id, err
			}
			done = r.done[id]
			delete(r.done, id)
		}
		var pe *codec.Error
		if done != nil {
			pe = done.Err
		} else if !errors.As(err, &pe) {
			return nil, id, fmt.Errorf("%s: %w", c.name, err)
		}
		if pe == nil || pe.Code != codec.CodeDisconnected || !r.reconnect {
			if done == nil {
				return nil, id, fmt.Errorf("%s: %w", c.name, err)
			}
			return done, id, nil
		}
		fmt.Fprintf(r.stderr, "wire host: %s: %s; sending it again once reconnected\n", c.name, pe.Message)
		if err := r.handshake(ctx); err != nil {
			return nil, id, err
		}
	}
}

// hostLine is one output line for a call's result, in the JSON form of
// the protocol's results (package wirejson); File names the file a
// screenshot's image went to (its result's image is then empty).
type hostLine struct {
	Call   string `json:"call"`
	ID     uint64 `json:"id"`
	Result any    `json:"result"`
	File   string `json:"file,omitempty"`
}

func (r *hostRun) print(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.out.Write(b)
	r.out.WriteByte('\n')
	return r.out.Flush()
}

// wait drives the session until done reports true (nil), until limit
// has passed (errHostStop; 0 for no limit), ctx ends (errHostStop) or the
// session closes (its error).
func (r *hostRun) wait(ctx context.Context, limit time.Duration, done func() bool) error {
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	var evErr error
	err := r.rd.Run(ctx, func() bool {
		if evErr = r.events(); evErr != nil {
			return true
		}
		return done()
	})
	switch {
	case evErr != nil:
		return evErr
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return errHostStop
	}
	return err
}

// reconnectNote is what wire host says on stderr about a reconnection
// event, or "" for an event that is not one.
func (r *hostRun) reconnectNote(e any) string {
	switch e := e.(type) {
	case *netconn.Attempt:
		if e.Err == nil {
			if r.sessions == 0 && e.N == 1 {
				return ""
			}
			return fmt.Sprintf("dial %d: connected", e.N)
		}
		if e.Retry == 0 {
			return fmt.Sprintf("dial %d failed: %v", e.N, e.Err)
		}
		return fmt.Sprintf("dial %d failed: %v; dialing again in %v", e.N, e.Err, e.Retry)
	case *netconn.Redialing:
		return fmt.Sprintf("reconnecting in %v", e.Retry)
	case *netconn.Restored:
		if e.Err != nil {
			return fmt.Sprintf("restoring %s of stream %s after the reconnection failed: %s: %s", e.Method, e.Stream, e.Err.Code, e.Err.Message)
		}
		return fmt.Sprintf("restored %s of stream %s", e.Method, e.Stream)
	case *session.Connected:
		if r.sessions > 1 {
			return fmt.Sprintf("reconnected, session %d", e.Session)
		}
	case *session.Closed:
		if r.reconnect && e.Reason != session.CloseRejected {
			return fmt.Sprintf("session closed (%s): %s: %s", e.Reason, e.Err.Code, e.Err.Message)
		}
	}
	return ""
}

// events reads the session's events, printing them with -watch.
func (r *hostRun) events() error {
	for e, ok := r.rd.PollEvent(); ok; e, ok = r.rd.PollEvent() {
		if _, ok := e.(*session.Connected); ok {
			r.sessions++
		}
		if note := r.reconnectNote(e); note != "" {
			fmt.Fprintf(r.stderr, "wire host: %s\n", note)
		}
		var line any
		switch e := e.(type) {
		case *session.Completed:
			r.done[e.ID] = e
		case *session.Closed:
			if !r.reconnect || e.Reason == session.CloseRejected || e.Reason == session.CloseLocal {
				return &hostFail{msg: fmt.Sprintf("session closed (%s): %s: %s", e.Reason, e.Err.Code, e.Err.Message)}
			}
		case *netconn.Attempt:
			if e.Err != nil && e.Retry == 0 {
				return &hostFail{msg: e.Err.Error()}
			}
		case *session.Connected:
			line = map[string]any{"connected": hostConnectedJSON{Version: e.Version, MaxFrame: e.MaxFrame, Session: e.Session, Agent: e.Agent, Capabilities: nonNilStrings(e.Capabilities.Names())}}
		case *session.StreamEvent:
			var err error
			if line, err = wirejson.Value(e.Event); err != nil {
				return err
			}
		case *session.Dropped:
			line = map[string]any{"event": "dropped", "stream": e.Stream.String(), "seq": e.Seq, "count": e.Count}
		case *session.OutOfSync:
			line = map[string]any{"event": "out_of_sync", "stream": e.Stream.String(), "want": e.Want, "got": e.Got}
		case *session.InSync:
			line = map[string]any{"event": "in_sync", "stream": e.Stream.String(), "from": e.From}
		case *session.ResyncFailed:
			line = map[string]any{"event": "resync_failed", "stream": e.Stream.String(), "error": wirejson.ErrorValue(e.Err)}
		case *session.ProtocolError:
			fmt.Fprintf(r.stderr, "wire host: %v\n", e.Err)
		}
		if line != nil && r.watch {
			if err := r.print(line); err != nil {
				return err
			}
		}
	}
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Output structs of wire host.

type hostConnectedJSON struct {
	Version      uint32   `json:"version"`
	MaxFrame     uint32   `json:"max_frame"`
	Session      uint64   `json:"session"`
	Agent        string   `json:"agent"`
	Capabilities []string `json:"capabilities"`
}
