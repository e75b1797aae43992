package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// captureLine is a line of `wire decode -in pcap`.
type captureLine struct {
	Conn    int             `json:"conn"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	Message json.RawMessage `json:"message"`
}

// parseCaptureLines parses decode's output and groups the messages by
// direction ("conn from > to"), each as `wire decode` prints it alone.
func parseCaptureLines(t *testing.T, out []byte) (order []string, byDir map[string][]byte) {
	t.Helper()
	byDir = map[string][]byte{}
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var l captureLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		dir := fmt.Sprintf("%d %s > %s", l.Conn, l.From, l.To)
		order = append(order, dir)
		byDir[dir] = append(append(byDir[dir], l.Message...), '\n')
	}
	return order, byDir
}

// decodedFrames is `wire decode` of frames back to back.
func decodedFrames(t *testing.T, frames [][]byte) []byte {
	t.Helper()
	code, out, errs := vtRun(t, bytes.Join(frames, nil), "decode")
	if code != 0 {
		t.Fatalf("decode of the frames: %s", errs)
	}
	return out
}

func captureFile(t *testing.T, name string) string {
	return filepath.Join("testdata", "capture", name)
}

// TestDecodeCapture: each direction of each connection of a capture is
// reassembled and decoded as that direction's frames alone are, and
// labelled; messages come in the order the capture has them; the
// pcapng form of the same packets decodes the same.
func TestDecodeCapture(t *testing.T) {
	host, agent := goldenSplit(t)
	code, out, errs := vtRun(t, nil, "decode", "-in", "pcap", captureFile(t, "session.pcap"))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, %q", code, errs)
	}
	order, byDir := parseCaptureLines(t, out)
	ping, pong := vtSample(t, "ping"), vtSample(t, "pong")
	for dir, frames := range map[string][][]byte{
		"1 127.0.0.1:40001 > 127.0.0.1:5555": host,
		"1 127.0.0.1:5555 > 127.0.0.1:40001": agent,
		"2 127.0.0.1:40002 > 127.0.0.1:5555": {ping, ping, ping},
		"2 127.0.0.1:5555 > 127.0.0.1:40002": {pong, pong, pong},
	} {
		if want := decodedFrames(t, frames); !bytes.Equal(byDir[dir], want) {
			t.Errorf("%s: %d bytes of messages, want %d", dir, len(byDir[dir]), len(want))
		}
	}
	if len(byDir) != 4 {
		t.Errorf("%d directions", len(byDir))
	}
	// The capture interleaves the directions frame by frame.
	if len(order) < 2 || order[0] != "1 127.0.0.1:40001 > 127.0.0.1:5555" || order[1] != "1 127.0.0.1:5555 > 127.0.0.1:40001" {
		t.Errorf("order %q", order[:min(len(order), 2)])
	}

	// The same packets in pcapng.
	b := newCapBuilder(t, layers.LinkTypeEthernet)
	b.pkts = readPackets(t, captureFile(t, "session.pcap"))
	ng := filepath.Join(t.TempDir(), "session.pcapng")
	if err := os.WriteFile(ng, b.pcapng(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out2, errs := vtRun(t, nil, "decode", "-in", "pcap", ng); code != 0 || !bytes.Equal(out2, out) {
		t.Errorf("pcapng: exit %d, %q", code, errs)
	}

	// diag labels its lines the same way.
	code, dout, errs := vtRun(t, nil, "diag", "-in", "pcap", captureFile(t, "session.pcap"))
	if code != 0 || !strings.HasPrefix(string(dout), "conn 1 127.0.0.1:40001 > 127.0.0.1:5555: {") || bytes.Count(dout, []byte("\n")) != len(order) {
		t.Errorf("diag: exit %d, %q, %.80q", code, errs, dout)
	}
}

// TestDecodeCaptureMidstream: a capture started inside a connection, with
// a lost segment and cut off inside a frame: -resync finds each
// direction's first frame and says how far it skipped; the gap is
// reported, the frame it cuts too, and decoding resumes after it; the
// truncated last frame is reported and the frames before it are kept.
func TestDecodeCaptureMidstream(t *testing.T) {
	_, skip, gap, hostFrames, agentFrames := midstreamCapture(t)
	host, _ := goldenSplit(t)
	code, out, errs := vtRun(t, nil, "decode", "-in", "pcap", "-resync", captureFile(t, "midstream.pcapng"))
	_, byDir := parseCaptureLines(t, out)
	hostDir, agentDir := "1 [::1]:40003 > [::1]:5555", "1 [::1]:5555 > [::1]:40003"
	if want := decodedFrames(t, hostFrames); !bytes.Equal(byDir[hostDir], want) {
		t.Errorf("host: %s\nwant %s", byDir[hostDir], want)
	}
	if want := decodedFrames(t, agentFrames); !bytes.Equal(byDir[agentDir], want) {
		t.Errorf("agent: %s\nwant %s", byDir[agentDir], want)
	}
	gapAt := len(bytes.Join(agentFrames[:4], nil)) + 3
	for _, want := range []string{
		fmt.Sprintf("conn 1 [::1]:40003 > [::1]:5555: resync: skipped %d bytes: the first frame is at stream offset %d", len(host[0])-skip, len(host[0])-skip),
		fmt.Sprintf("conn 1 [::1]:5555 > [::1]:40003: %d bytes are missing from the capture at stream offset %d (a gap in the TCP sequence)", gap, gapAt),
		fmt.Sprintf("conn 1 [::1]:5555 > [::1]:40003: frame 4 at stream offset %d: field length header: truncated", gapAt-3),
		fmt.Sprintf("resync: skipped 0 bytes: the first frame is at stream offset %d", gapAt+gap),
		// Frames are counted as captured: the one cut by the gap too.
		fmt.Sprintf("conn 1 [::1]:5555 > [::1]:40003: frame %d at stream offset %d: field payload: truncated", len(agentFrames)+1, gapAt+gap+len(bytes.Join(agentFrames[4:], nil))),
		"inside a frame's payload; the frames before it are kept",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	// Without -resync the host's direction is read from its first byte,
	// the middle of a frame, and fails there.
	code, _, errs = vtRun(t, nil, "decode", "-in", "pcap", captureFile(t, "midstream.pcapng"))
	if code != 1 || !strings.Contains(errs, "conn 1 [::1]:40003 > [::1]:5555: frame 0 at stream offset 0") ||
		!strings.Contains(errs, "conn 1 [::1]:40003 > [::1]:5555: the capture starts inside this connection (its SYN is not in it)") {
		t.Errorf("without -resync: exit %d, %s", code, errs)
	}
}

// TestDecodeCaptureTruncated: a capture file cut anywhere inside a packet
// record is reported, and the messages before the cut are printed as the
// whole file prints them.
func TestDecodeCaptureTruncated(t *testing.T) {
	whole, err := os.ReadFile(captureFile(t, "session.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	_, full, _ := vtRun(t, whole, "decode", "-in", "pcap")
	for _, cut := range []int{len(whole) / 3, len(whole) / 2, len(whole) - 1} {
		code, out, errs := vtRun(t, whole[:cut], "decode", "-in", "pcap")
		if code != 1 || !strings.Contains(errs, "truncated: the capture ends inside it; the packets before it are decoded") {
			t.Errorf("cut at %d: exit %d, %q", cut, code, errs)
		}
		if len(out) == 0 || !bytes.HasPrefix(full, out) {
			t.Errorf("cut at %d: %d bytes of output, not a prefix of the whole's", cut, len(out))
		}
	}
}

// TestDecodeCaptureLinks: the link types of Linux captures (Ethernet on
// lo, cooked SLL and SLL2 for -i any), BSD loopback and raw IP decode
// alike; another link type is reported by name.
func TestDecodeCaptureLinks(t *testing.T) {
	ping := vtSample(t, "ping")
	want := decodedFrames(t, [][]byte{ping, ping})
	lo := net.IPv4(127, 0, 0, 1).To4()
	for _, link := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeRaw, layers.LinkTypeNull} {
		b := newCapBuilder(t, layers.LinkTypeRaw)
		c := b.connect(&capEnd{ip: lo, port: 1, seq: 1}, &capEnd{ip: lo, port: 2, seq: 1}, true)
		c.stream(true, append(append([]byte{}, ping...), ping...), 5)
		var out bytes.Buffer
		w := pcapWriter(t, &out, uint32(link))
		for _, p := range b.pkts {
			data := p.data
			switch link {
			case layers.LinkTypeEthernet:
				data = append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00}, data...)
			case layers.LinkTypeLinuxSLL:
				data = append([]byte{0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00}, data...)
			case layers.LinkTypeNull:
				data = append([]byte{2, 0, 0, 0}, data...) // AF_INET, host order
			}
			w(data)
		}
		_, byDir := parseCaptureLines(t, runCapture(t, out.Bytes(), 0))
		if got := byDir["1 127.0.0.1:1 > 127.0.0.1:2"]; !bytes.Equal(got, want) {
			t.Errorf("%s: %q", link, got)
		}
	}
	// SLL2 (276), which gopacket's 8-bit LinkType cannot name.
	b := newCapBuilder(t, layers.LinkTypeRaw)
	c := b.connect(&capEnd{ip: lo, port: 1, seq: 1}, &capEnd{ip: lo, port: 2, seq: 1}, true)
	c.stream(true, append(append([]byte{}, ping...), ping...), 5)
	var out bytes.Buffer
	w := pcapWriter(t, &out, 276)
	for _, p := range b.pkts {
		w(append([]byte{0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 0x04, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0}, p.data...))
	}
	_, byDir := parseCaptureLines(t, runCapture(t, out.Bytes(), 0))
	if got := byDir["1 127.0.0.1:1 > 127.0.0.1:2"]; !bytes.Equal(got, want) {
		t.Errorf("SLL2: %q", got)
	}
	// Token ring: named, and nothing decoded.
	out.Reset()
	w = pcapWriter(t, &out, 6)
	w([]byte{1, 2, 3})
	code, _, errs := vtRun(t, out.Bytes(), "decode", "-in", "pcap")
	if code != 1 || !strings.Contains(errs, "link type") || !strings.Contains(errs, "(6) is not read: want Ethernet") || !strings.Contains(errs, "no TCP payload in 1 packet records") {
		t.Errorf("token ring: exit %d, %q", code, errs)
	}
}

// runCapture decodes a capture given on stdin and fails the test on
// errors unless code says otherwise.
func runCapture(t *testing.T, file []byte, code int, args ...string) []byte {
	t.Helper()
	c, out, errs := vtRun(t, file, append([]string{"decode", "-in", "pcap"}, args...)...)
	if c != code {
		t.Fatalf("exit %d, %s", c, errs)
	}
	return out
}

// pcapWriter writes a pcap header of any link type, then returns a
// function that writes a packet record.
func pcapWriter(t testing.TB, w *bytes.Buffer, link uint32) func([]byte) {
	h := make([]byte, 24)
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535)
	binary.LittleEndian.PutUint32(h[20:], link)
	w.Write(h)
	return func(data []byte) {
		r := make([]byte, 16)
		binary.LittleEndian.PutUint32(r[8:], uint32(len(data)))
		binary.LittleEndian.PutUint32(r[12:], uint32(len(data)))
		w.Write(r)
		w.Write(data)
	}
}

// TestDecodeCaptureBadFiles: what is not a capture, or claims more than
// it holds, is refused in words, without allocating what it claims.
func TestDecodeCaptureBadFiles(t *testing.T) {
	session, err := os.ReadFile(captureFile(t, "session.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	mid, err := os.ReadFile(captureFile(t, "midstream.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	// A pcap record claiming 4 GiB.
	huge := append([]byte{}, session[:24]...)
	huge = binary.LittleEndian.AppendUint32(huge, 0)
	huge = binary.LittleEndian.AppendUint32(huge, 0)
	huge = binary.LittleEndian.AppendUint32(huge, 0xffffffff)
	huge = binary.LittleEndian.AppendUint32(huge, 0xffffffff)
	// The same with a file header whose snap length claims 4 GiB too.
	hugeSnap := append([]byte{}, huge...)
	binary.LittleEndian.PutUint32(hugeSnap[16:], 0xffffffff)
	// A pcapng enhanced packet block claiming 4 GiB: the first EPB of the
	// file with its captured length raised.
	ngHuge := append([]byte{}, mid...)
	epb := bytes.Index(ngHuge, []byte{6, 0, 0, 0})
	binary.LittleEndian.PutUint32(ngHuge[epb+20:], 0xfffffff0)
	// A block length that is no multiple of 4.
	ngOdd := append([]byte{}, mid...)
	binary.LittleEndian.PutUint32(ngOdd[epb+4:], 37)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "not a pcap or pcapng capture: 0 bytes"},
		{"text", []byte("hello, world, this is no capture\n"), "not a pcap or pcapng capture (it starts 68 65 6c 6c): Unknown magic"},
		{"raw frames", goldenStream(t), "not a pcap or pcapng capture"},
		{"pcap record of 4 GiB", huge, "packet record 0: capture length exceeds snap length: 4294967295 > 65535"},
		{"pcap snap length of 4 GiB", hugeSnap, "packet record 0: capture length exceeds snap length: 4294967295 > 262144"},
		{"pcapng packet of 4 GiB", ngHuge, "packet block claims a packet of 4294967280 bytes in a block with room for"},
		{"pcapng odd block", ngOdd, "block length 37: want a multiple of 4, at least 12"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, errs := vtRun(t, c.in, "decode", "-in", "pcap")
		runtime.ReadMemStats(&after)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q (want %q)", c.name, code, errs, c.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, alloc)
		}
	}
}

// TestDecodeCaptureStreamLimit: at most maxStreams directions are
// decoded at once; the next is reported, not decoded.
func TestDecodeCaptureStreamLimit(t *testing.T) {
	ping := vtSample(t, "ping")
	b := newCapBuilder(t, layers.LinkTypeEthernet)
	lo := net.IPv4(127, 0, 0, 1).To4()
	var conns []*capConn
	for i := range maxStreams/2 + 1 {
		conns = append(conns, b.connect(&capEnd{ip: lo, port: uint16(41000 + i), seq: 1}, &capEnd{ip: lo, port: 5555, seq: 1}, true))
	}
	for _, c := range conns {
		c.stream(true, ping, 1400)
	}
	code, out, errs := vtRun(t, b.pcap(), "decode", "-in", "pcap")
	// maxStreams/2 connections fill the limit with their two directions
	// (a SYN opens each); the last connection's are refused.
	last := maxStreams/2 + 1
	if code != 1 || bytes.Count(out, []byte("\n")) != maxStreams/2 ||
		!strings.Contains(errs, fmt.Sprintf("conn %d 127.0.0.1:%d > 127.0.0.1:5555: not decoded: %d streams are being decoded already", last, 41000+last-1, maxStreams)) {
		t.Errorf("exit %d, %d messages, %q", code, bytes.Count(out, []byte("\n")), errs)
	}
}

// readPackets reads the packets of a pcap file.
func readPackets(t *testing.T, path string) []capPacket {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, _, err := openCapture(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	var pkts []capPacket
	for {
		data, ci, err := ps.ZeroCopyReadPacketData()
		if err != nil {
			return pkts
		}
		pkts = append(pkts, capPacket{ci, bytes.Clone(data)})
	}
}

// FuzzCaptureInput: any file given as -in pcap is decoded or refused in
// words, without a panic, allocating no more than a constant and a
// multiple of its size, whatever its headers claim.
func FuzzCaptureInput(f *testing.F) {
	for _, name := range []string{"session.pcap", "midstream.pcapng"} {
		data, err := os.ReadFile(filepath.Join("testdata", "capture", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 4000)])
	}
	var tiny bytes.Buffer
	w := pcapWriter(nil, &tiny, 276)
	w([]byte{0x08, 0x00})
	f.Add(tiny.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var errb bytes.Buffer
		code := run([]string{"decode", "-in", "pcap", "-resync", "-max-frame", "4096"}, bytes.NewReader(data), io.Discard, &errb)
		runtime.ReadMemStats(&after)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d", code)
		}
		if strings.Contains(errb.String(), "panic") {
			t.Fatal(errb.String())
		}
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(16<<20+256*len(data)); alloc > bound {
			t.Fatalf("%d bytes allocated for a file of %d, over %d", alloc, len(data), bound)
		}
	})
}

// TestDecodeRealCapture: captures made once by tcpdump of a real session
// over loopback, `wire host` against `wire agent-sim`, on lo (Ethernet)
// and on any (Linux cooked v2):
//
//	tcpdump -i lo --immediate-mode -U -w agent-sim-lo.pcap 'tcp port 7126' &
//	tcpdump -i any --immediate-mode -U -w agent-sim-any.pcap 'tcp port 7126' &
//	wire agent-sim -listen 127.0.0.1:7126 -once -size 108x192 -tick 50ms -token tok-26 &
//	printf 'snapshot\ntap 10 20\nkey 4\ndevice_info\nscreenshot format=jpeg quality=30 scale=10\nbounds 1\ntype_text hi\n' |
//		wire host -connect 127.0.0.1:7126 -token tok-26 -watch -for 300ms > agent-sim-host.jsonl
//
// Both decode alike, without an error; every result and event the host
// printed is in the agent's direction, each response with the id and
// method of the host's request for it.
func TestDecodeRealCapture(t *testing.T) {
	code, out, errs := vtRun(t, nil, "decode", "-in", "pcap", captureFile(t, "agent-sim-lo.pcap"))
	if code != 0 || errs != "" {
		t.Fatalf("lo: exit %d, %q", code, errs)
	}
	if code, any, errs := vtRun(t, nil, "decode", "-in", "pcap", captureFile(t, "agent-sim-any.pcap")); code != 0 || !bytes.Equal(any, out) {
		t.Errorf("any (SLL2): exit %d, %q, same output %v", code, errs, bytes.Equal(any, out))
	}
	type msg struct {
		Kind   string          `json:"kind"`
		ID     uint64          `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	var requests, responses []msg
	var events []string
	var agentPort string
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var l captureLine
		var m msg
		if err := json.Unmarshal(line, &l); err != nil || json.Unmarshal(l.Message, &m) != nil {
			t.Fatalf("%s", line)
		}
		if l.Conn != 1 {
			t.Fatalf("connection %d", l.Conn)
		}
		switch m.Kind {
		case "request":
			requests = append(requests, m)
		case "response":
			responses = append(responses, m)
			agentPort = l.From
		case "event":
			events = append(events, string(l.Message))
		}
	}
	if agentPort != "127.0.0.1:7126" {
		t.Errorf("responses from %s", agentPort)
	}
	host, err := os.ReadFile(captureFile(t, "agent-sim-host.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	var hostEvents []string
	for _, line := range bytes.Split(bytes.TrimSpace(host), []byte("\n")) {
		var h struct {
			Call   string          `json:"call"`
			ID     uint64          `json:"id"`
			Result json.RawMessage `json:"result"`
			Kind   string          `json:"kind"`
		}
		if err := json.Unmarshal(line, &h); err != nil {
			t.Fatal(err)
		}
		switch {
		case h.Call != "":
			if calls >= len(responses) || calls >= len(requests) {
				t.Fatalf("call %d (%s) has no response in the capture", calls, h.Call)
			}
			req, resp := requests[calls], responses[calls]
			if req.ID != h.ID || resp.ID != h.ID || req.Method != h.Call || resp.Method != h.Call || !jsonEqual(t, resp.Result, h.Result) {
				t.Errorf("call %s id %d: request %s %d, response %s %d %s", h.Call, h.ID, req.Method, req.ID, resp.Method, resp.ID, resp.Result)
			}
			calls++
		case h.Kind == "event":
			hostEvents = append(hostEvents, string(line))
		}
	}
	if calls != 7 || len(responses) != 7 {
		t.Errorf("%d calls, %d responses", calls, len(responses))
	}
	if len(hostEvents) == 0 || len(events) < len(hostEvents) {
		t.Fatalf("%d events decoded, the host printed %d", len(events), len(hostEvents))
	}
	for i, e := range hostEvents {
		if !jsonEqual(t, []byte(events[i]), []byte(e)) {
			t.Errorf("event %d: %s, the host printed %s", i, events[i], e)
		}
	}
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestDecodeCapturePacketLimit: a packet of maxPacket bytes is read, one
// byte more is refused, in pcap (whatever the snap length claims) and in
// pcapng.
func TestDecodeCapturePacketLimit(t *testing.T) {
	for _, size := range []int{maxPacket, maxPacket + 1} {
		// pcap, the snap length claiming 4 GiB: Ethernet frames of
		// zeros, which are no IP.
		var pc bytes.Buffer
		w := pcapWriter(t, &pc, uint32(layers.LinkTypeEthernet))
		binary.LittleEndian.PutUint32(pc.Bytes()[16:], 0xffffffff)
		w(make([]byte, size))
		code, _, errs := vtRun(t, pc.Bytes(), "decode", "-in", "pcap")
		refused := strings.Contains(errs, fmt.Sprintf("packet record 0: capture length exceeds snap length: %d > %d", size, maxPacket))
		if code != 1 || refused != (size > maxPacket) || !strings.Contains(errs, "no TCP payload") {
			t.Errorf("pcap, %d bytes: exit %d, %q", size, code, errs)
		}
		// pcapng.
		var ng bytes.Buffer
		nw, err := pcapgo.NewNgWriter(&ng, layers.LinkTypeEthernet)
		if err != nil {
			t.Fatal(err)
		}
		if err := nw.WritePacket(gopacket.CaptureInfo{CaptureLength: size, Length: size}, make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		if err := nw.Flush(); err != nil {
			t.Fatal(err)
		}
		code, _, errs = vtRun(t, ng.Bytes(), "decode", "-in", "pcap")
		refused = strings.Contains(errs, fmt.Sprintf("packet block claims a packet of %d bytes", size))
		if code != 1 || refused != (size > maxPacket) {
			t.Errorf("pcapng, %d bytes: exit %d, %q", size, code, errs)
		}
	}
}
