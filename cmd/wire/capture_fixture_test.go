package main

// The capture files of testdata/capture, built with pcapgo's writers from
// the frames of the golden samples. TestCaptureFixtures checks that the
// committed files are what this code writes; `go test -run
// TestCaptureFixtures -update-captures` writes them again.

import (
	"bytes"
	"encoding/binary"
	"flag"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/golden"
	"github.com/wirebench/wirebench/internal/testio"
)

var updateCaptures = flag.Bool("update-captures", false, "write testdata/capture again")

// capEnd is one end of a TCP connection in a built capture.
type capEnd struct {
	ip   net.IP
	port uint16
	seq  uint32 // the next sequence number it sends
}

// capBuilder writes TCP segments as packets of one link type.
type capBuilder struct {
	t    testing.TB
	link layers.LinkType // Ethernet or LinuxSLL
	ts   time.Time
	pkts []capPacket
}

type capPacket struct {
	ci   gopacket.CaptureInfo
	data []byte
}

func newCapBuilder(t testing.TB, link layers.LinkType) *capBuilder {
	return &capBuilder{t: t, link: link, ts: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}
}

// send writes a segment from one end to the other; lost segments advance
// the sequence without being written.
func (b *capBuilder) send(from, to *capEnd, payload []byte, syn, fin, lost bool) {
	b.t.Helper()
	tcp := &layers.TCP{SrcPort: layers.TCPPort(from.port), DstPort: layers.TCPPort(to.port), Seq: from.seq, Ack: to.seq,
		SYN: syn, FIN: fin, ACK: !syn || to.seq != 0, PSH: len(payload) > 0, Window: 65535}
	from.seq += uint32(len(payload))
	if syn || fin {
		from.seq++
	}
	b.ts = b.ts.Add(time.Millisecond)
	if lost {
		return
	}
	var net gopacket.NetworkLayer
	var ethType layers.EthernetType
	if from.ip.To4() != nil {
		net = &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: from.ip, DstIP: to.ip}
		ethType = layers.EthernetTypeIPv4
	} else {
		net = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: from.ip, DstIP: to.ip}
		ethType = layers.EthernetTypeIPv6
	}
	if err := tcp.SetNetworkLayerForChecksum(net); err != nil {
		b.t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	ls := []gopacket.SerializableLayer{net.(gopacket.SerializableLayer), tcp, gopacket.Payload(payload)}
	if b.link == layers.LinkTypeEthernet {
		ls = append([]gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: net0, DstMAC: net0, EthernetType: ethType}}, ls...)
	}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		b.t.Fatal(err)
	}
	data := buf.Bytes()
	if b.link == layers.LinkTypeLinuxSLL {
		// The cooked header (gopacket v1.1.19 does not write it): packet
		// type, ARPHRD_LOOPBACK, address length, address, protocol.
		sll := make([]byte, 16, 16+len(data))
		binary.BigEndian.PutUint16(sll[2:], 772)
		binary.BigEndian.PutUint16(sll[14:], uint16(ethType))
		data = append(sll, data...)
	}
	b.pkts = append(b.pkts, capPacket{gopacket.CaptureInfo{Timestamp: b.ts, CaptureLength: len(data), Length: len(data)}, data})
}

var net0 = net.HardwareAddr{0, 0, 0, 0, 0, 0}

// pcap writes the packets as a pcap file.
func (b *capBuilder) pcap() []byte {
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, b.link); err != nil {
		b.t.Fatal(err)
	}
	for _, p := range b.pkts {
		if err := w.WritePacket(p.ci, p.data); err != nil {
			b.t.Fatal(err)
		}
	}
	return out.Bytes()
}

// pcapng writes the packets as a pcapng file.
func (b *capBuilder) pcapng() []byte {
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&out, pcapgo.NgInterface{Name: "lo", LinkType: b.link, SnapLength: 65535},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "wirebench capture fixtures"}})
	if err != nil {
		b.t.Fatal(err)
	}
	for _, p := range b.pkts {
		if err := w.WritePacket(p.ci, p.data); err != nil {
			b.t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.t.Fatal(err)
	}
	return out.Bytes()
}

// capConn is a connection being built: the frames each way, and the
// frames a decoder must find.
type capConn struct {
	b              *capBuilder
	client, server *capEnd
}

func (b *capBuilder) connect(client, server *capEnd, handshake bool) *capConn {
	c := &capConn{b: b, client: client, server: server}
	if handshake {
		b.send(client, server, nil, true, false, false)
		b.send(server, client, nil, true, false, false)
	}
	return c
}

// stream sends data from one end in segments of the given sizes, in turn
// (the last size repeats), at most 1,400 bytes each.
func (c *capConn) stream(fromClient bool, data []byte, sizes ...int) {
	from, to := c.client, c.server
	if !fromClient {
		from, to = to, from
	}
	for i := 0; len(data) > 0; i++ {
		n := min(sizes[min(i, len(sizes)-1)], len(data), 1400)
		c.b.send(from, to, data[:n], false, false, false)
		data = data[n:]
	}
}

func (c *capConn) close() {
	c.b.send(c.client, c.server, nil, false, true, false)
	c.b.send(c.server, c.client, nil, false, true, false)
}

// goldenSplit is the frames of the golden samples, those a host sends
// (requests, pings) and those an agent sends (the rest); each side starts
// with a hello.
func goldenSplit(t testing.TB) (host, agent [][]byte) {
	for _, s := range golden.Samples() {
		f := vtFrame(t, s.Msg)
		switch s.Msg.Kind() {
		case codec.KindRequest, codec.KindPing:
			host = append(host, f)
		case codec.KindHello:
			host = append(host, f)
			agent = append(agent, f)
		default:
			agent = append(agent, f)
		}
	}
	return host, agent
}

// sessionCapture is testdata/capture/session.pcap: two connections over
// Ethernet and IPv4 loopback, each direction's frames cut into segments
// of odd sizes (a frame over several segments, several frames in one),
// the directions interleaved, then closed; and a second short connection.
func sessionCapture(t testing.TB) []byte {
	host, agent := goldenSplit(t)
	b := newCapBuilder(t, layers.LinkTypeEthernet)
	lo := net.IPv4(127, 0, 0, 1).To4()
	c := b.connect(&capEnd{ip: lo, port: 40001, seq: 1000}, &capEnd{ip: lo, port: 5555, seq: 9000}, true)
	for i := 0; i < max(len(host), len(agent)); i++ {
		if i < len(host) {
			c.stream(true, host[i], 3, 1400)
		}
		if i < len(agent) {
			c.stream(false, agent[i], 37, 1, 400)
		}
	}
	c.close()
	ping, pong := vtSample(t, "ping"), vtSample(t, "pong")
	c2 := b.connect(&capEnd{ip: lo, port: 40002, seq: 7}, &capEnd{ip: lo, port: 5555, seq: 70000}, true)
	c2.stream(true, bytes.Repeat(ping, 3), 1400)
	c2.stream(false, bytes.Repeat(pong, 3), 1400)
	c2.close()
	return b.pcap()
}

// midstreamCapture is testdata/capture/midstream.pcapng: one connection
// over Linux cooked capture and IPv6 loopback, captured from its middle
// (no SYN: the host's direction starts 5 bytes into a frame), with a lost
// segment in the agent's direction (a frame cut by the gap), and cut off
// inside the agent's last frame. It returns what a decoder must see:
// the bytes the host's direction skips to its first frame, the gap's
// size, and the frames decoded each way with -resync.
func midstreamCapture(t testing.TB) (file []byte, skip, gap int, hostFrames, agentFrames [][]byte) {
	host, agent := goldenSplit(t)
	host, agent = host[:10], agent[:12]
	b := newCapBuilder(t, layers.LinkTypeLinuxSLL)
	lo := net.IPv6loopback
	c := b.connect(&capEnd{ip: lo, port: 40003, seq: 1 << 31}, &capEnd{ip: lo, port: 5555, seq: 5}, false)
	hostStream := bytes.Join(host, nil)
	skip = 5
	c.stream(true, hostStream[skip:], 7, 1400)
	hostFrames = host[1:]

	// The agent's frames: 0-3 whole, 4 cut by the lost segment, then the
	// rest after it, the last cut off by the end of the capture.
	before := bytes.Join(agent[:4], nil)
	c.stream(false, before, 1400)
	lostFrame := agent[4]
	c.stream(false, lostFrame[:3], 1400)
	gap = len(lostFrame) - 3
	b.send(c.server, c.client, lostFrame[3:], false, false, true)
	after := bytes.Join(agent[5:], nil)
	last := agent[len(agent)-1]
	c.stream(false, after[:len(after)-len(last)/2], 1400)
	agentFrames = append(append([][]byte{}, agent[:4]...), agent[5:len(agent)-1]...)
	return b.pcapng(), skip, gap, hostFrames, agentFrames
}

// TestCaptureFixtures: the committed capture files are what the code
// above writes.
func TestCaptureFixtures(t *testing.T) {
	mid, _, _, _, _ := midstreamCapture(t)
	for name, want := range map[string][]byte{
		"session.pcap":     sessionCapture(t),
		"midstream.pcapng": mid,
	} {
		testio.Fixture(t, filepath.Join("testdata", "capture", name), want, *updateCaptures, "write it again with -update-captures")
	}
}
