package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/faultproxy"
)

// hostTestRun runs wire host in-process and returns its exit status,
// stdout lines and stderr.
func hostTestRun(t *testing.T, stdin string, args ...string) (int, []map[string]any, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runHost(args, strings.NewReader(stdin), &out, &errb)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %q is not JSON: %v", l, err)
		}
		lines = append(lines, m)
	}
	return code, lines, errb.String()
}

func TestHostAgainstAgentSimOverLoopback(t *testing.T) {
	addr := asimStart(t, asimConfig{seed: 4})
	shot := filepath.Join(t.TempDir(), "shot.png")
	code, lines, stderr := hostTestRun(t, "", "-connect", addr,
		"snapshot", "tap", "10", "20", "swipe", "0", "0", "0", "500", "300", "screenshot", "-o", shot, "bounds", "4", "7", "102", "device_info", "type_text", "snapshot")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []string{"snapshot", "tap", "swipe", "screenshot", "bounds", "device_info", "type_text"}
	if len(lines) != len(want) {
		t.Fatalf("%d output lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		if lines[i]["call"] != w {
			t.Fatalf("line %d is %v, want the %s result", i, lines[i]["call"], w)
		}
		if _, ok := lines[i]["result"].(map[string]any); !ok {
			t.Fatalf("line %d has no result object: %v", i, lines[i])
		}
	}
	snap := lines[0]["result"].(map[string]any)
	win := snap["windows"].([]any)[0].(map[string]any)
	class := int(win["root"].(map[string]any)["class"].(float64))
	if win["title"] != "Wire Sim" || snap["strings"].([]any)[class] != "android.widget.FrameLayout" {
		t.Fatalf("snapshot window %v", win)
	}
	sr := lines[3]["result"].(map[string]any)
	if lines[3]["file"] != shot || sr["format"].(float64) != float64(schema.FormatPNG) || sr["width"].(float64) != 1080 {
		t.Fatalf("screenshot line %v", lines[3])
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 1920 {
		t.Fatalf("screenshot file: %v %v", img.Bounds(), err)
	}
	// bounds: node 4 (the counter) and row 102 are on screen, 7 is no node.
	nodes := lines[4]["result"].(map[string]any)["nodes"].([]any)
	if len(nodes) != 2 || nodes[0].(map[string]any)["node"].(float64) != 4 {
		t.Fatalf("bounds %v", nodes)
	}
}

func TestHostWatchPrintsEventsAsJSONLines(t *testing.T) {
	addr := asimStart(t, asimConfig{seed: 2, tick: 50 * time.Millisecond})
	code, lines, stderr := hostTestRun(t, "", "-connect", addr, "-watch", "-for", "600ms", "type_text", "x", "resync")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, ok := lines[0]["connected"]; !ok {
		t.Fatalf("first line %v, want connected", lines[0])
	}
	var seqs []float64
	calls, inSync := 0, 0
	for _, l := range lines[1:] {
		switch {
		case l["call"] != nil:
			calls++
		case l["kind"] == "event" && l["type"] == "content_changed":
			if l["stream"] != "tree" || l["window"].(float64) != 1 {
				t.Fatalf("event line %v", l)
			}
			seqs = append(seqs, l["seq"].(float64))
		case l["event"] == "in_sync":
			inSync++
		default:
			t.Fatalf("unexpected line %v", l)
		}
	}
	if calls != 2 || inSync != 1 || len(seqs) < 5 {
		t.Fatalf("%d call lines, %d in_sync, %d events: %v", calls, inSync, len(seqs), lines)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("event seqs %v not consecutive", seqs)
		}
	}
}

func TestHostErrorsExitOneWithCodeAndMessage(t *testing.T) {
	cases := []struct {
		name  string
		cfg   asimConfig
		args  []string
		wants []string
	}{
		{"agent error", asimConfig{}, []string{"set_text", "3", "x"}, []string{"not_found", "node 3"}},
		{"missing capability", asimConfig{caps: codec.CapTree}, []string{"snapshot", "screenshot"}, []string{"missing_capability", "screenshot", "screenshot capability"}},
		{"bad token", asimConfig{token: codec.Some("right")}, []string{"-token", "wrong", "snapshot"}, []string{"bad_token"}},
		{"no token", asimConfig{}, []string{"-token", "needed", "snapshot"}, []string{"bad_token", "no token"}},
		{"format", asimConfig{}, []string{"screenshot", "format=webp"}, []string{"bad_request", "webp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			addr := asimStart(t, c.cfg)
			code, _, stderr := hostTestRun(t, "", append([]string{"-connect", addr}, c.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
			}
			for _, w := range c.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
		})
	}
	// The right token works.
	addr := asimStart(t, asimConfig{token: codec.Some("right")})
	if code, _, stderr := hostTestRun(t, "", "-connect", addr, "-token", "right", "device_info"); code != 0 {
		t.Fatalf("right token: exit %d, %q", code, stderr)
	}
}

func TestHostUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-connect", "10.0.0.1:7100", "snapshot"},
		{"snapshot"},
		{"-connect", "127.0.0.1:1", "fly"},
		{"-connect", "127.0.0.1:1", "tap", "1"},
		{"-connect", "127.0.0.1:1", "tap", "1", "2", "3"},
		{"-connect", "127.0.0.1:1", "snapshot", "max_nodes=x"},
		{"-connect", "127.0.0.1:1", "screenshot", "shiny=1"},
		{"-connect", "127.0.0.1:1", "bounds"},
		{"-connect", "127.0.0.1:1", "sleep", "forever"},
	} {
		code, _, stderr := hostTestRun(t, "", args...)
		if code != 2 || stderr == "" {
			t.Errorf("host %q: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}

func TestHostReadsCallsFromStdin(t *testing.T) {
	addr := asimStart(t, asimConfig{})
	code, lines, stderr := hostTestRun(t, "# a comment\ntype_text \"two words\"\n\nsnapshot max_nodes=3\n", "-connect", addr)
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, lines %v, stderr %q", code, lines, stderr)
	}
	trunc := uint32(lines[1]["result"].(map[string]any)["truncated"].(float64))
	if trunc != schema.TruncatedNodes {
		t.Fatalf("snapshot max_nodes=3 truncated %b", trunc)
	}
}

func TestHostParseCalls(t *testing.T) {
	calls, err := hostParseCalls([]string{"type_text", "snapshot", "swipe", "1", "2", "3", "4", "5", "rest=60", "long_press", "5", "6", "key", "4", "resync", "frames", "sleep", "10ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 6 {
		t.Fatalf("calls %+v", calls)
	}
	if p := calls[0].params.(*codec.TypeTextParams); p.Text != "snapshot" {
		t.Fatalf("type_text takes its text whatever it says: %+v", p)
	}
	if p := calls[1].params.(*codec.SwipeParams); p.X1 != 1 || p.Y2 != 4 || p.DurationMS != 5 || p.RestMS != codec.Some[uint32](60) {
		t.Fatalf("swipe %+v", p)
	}
	if p := calls[2].params.(*codec.LongPressParams); p.X != 5 || p.DurationMS != 600 {
		t.Fatalf("long_press %+v", p)
	}
	if p := calls[4].params.(*codec.ResyncParams); p.Stream != codec.StreamFrames {
		t.Fatalf("resync %+v", p)
	}
	if calls[5].sleep != 10*time.Millisecond {
		t.Fatalf("sleep %+v", calls[5])
	}
}

// TestHostAndAgentSimVerbsTogether runs both verbs as the command runs them, through
// run (main's dispatcher) with their flags, over a loopback TCP port:
// agent-sim -once serves the one host and exits.
func TestHostAndAgentSimVerbsTogether(t *testing.T) {
	pr, pw := io.Pipe()
	var simErr bytes.Buffer
	simDone := make(chan int, 1)
	go func() {
		code := run([]string{"agent-sim", "-listen", "127.0.0.1:0", "-once", "-seed", "9", "-token", "tok"}, nil, pw, &simErr)
		pw.Close()
		simDone <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("agent-sim printed no address: %v (stderr %q)", err, simErr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("agent-sim said %q", line)
	}
	go io.Copy(io.Discard, pr)
	shot := filepath.Join(t.TempDir(), "s.png")
	var out, errb bytes.Buffer
	code := run([]string{"host", "-connect", addr, "-token", "tok", "snapshot", "screenshot", "-o", shot, "tap", "500", "700"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("wire host: exit %d, stderr %q", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("wire host printed %d lines: %q", n, out.String())
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != 1080 || cfg.Height != 1920 {
		t.Fatalf("screenshot %+v %v", cfg, err)
	}
	select {
	case code := <-simDone:
		if code != 0 {
			t.Fatalf("agent-sim -once: exit %d, stderr %q", code, simErr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agent-sim -once did not exit after its connection")
	}
}

// hostCutRun runs wire host through a fault proxy in front of agent-sim
// with args, cutting the connection once the first result line is out,
// and returns the exit status, the result lines and stderr.
func hostCutRun(t *testing.T, args ...string) (int, []string, string) {
	t.Helper()
	p := linkProxy(t, asimStart(t, asimConfig{seed: 3}), faultproxy.Config{})
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runHost(append([]string{"-connect", p.Addr()}, args...), strings.NewReader(""), pw, &errb)
		pw.Close()
	}()
	var lines []string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) == 1 {
			p.Cut()
		}
	}
	return <-code, lines, errb.String()
}

func TestHostReconnectsAndSaysSo(t *testing.T) {
	code, lines, stderr := hostCutRun(t, "device_info", "sleep", "1s", "device_info")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, lines %q, stderr %q", code, lines, stderr)
	}
	for _, want := range []string{"session closed (end_of_stream)", "reconnecting in 100ms", "reconnected, session"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not say %q", stderr, want)
		}
	}
}

func TestHostNoReconnectEndsAtTheCut(t *testing.T) {
	code, lines, stderr := hostCutRun(t, "-no-reconnect", "device_info", "sleep", "1s", "device_info")
	if code != 1 || len(lines) != 1 || !strings.Contains(stderr, "session closed (end_of_stream)") || strings.Contains(stderr, "reconnecting") || strings.Contains(stderr, "reconnected") {
		t.Fatalf("exit %d, lines %q, stderr %q; want exit 1 at the close, no reconnection", code, lines, stderr)
	}
}

// TestHostWaitsForTheAgent: started before the agent listens, wire host
// keeps dialing, saying so, and connects once it does.
func TestHostWaitsForTheAgent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out, errb bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- runHost([]string{"-connect", addr, "device_info"}, strings.NewReader(""), &out, &errb) }()
	var ln2 net.Listener
	for ln2 == nil {
		time.Sleep(50 * time.Millisecond)
		ln2, _ = net.Listen("tcp", addr) // once the host has tried at least once
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- asimServe(ctx, ln2, asimTestDefaults(asimConfig{}), io.Discard)
	}()
	defer func() { cancel(); <-done }()
	if c := <-code; c != 0 || !strings.Contains(out.String(), `"device_info"`) {
		t.Fatalf("exit %d, out %q, stderr %q", c, out.String(), errb.String())
	}
}
