package main

// `-in pcap`: frames from a pcap or pcapng capture of TCP traffic (an
// `adb forward` port captured with tcpdump, say). Each direction of each
// connection is reassembled by gopacket's tcpassembly and decoded as a
// stream of its own; the messages carry their connection and direction.
// gopacket's pcapgo, layers and tcpassembly are pure Go: no libpcap.
// Linking them costs every wire process about 8 MiB of resident memory
// from the start (gopacket/layers fills enum tables of 65,536 entries in
// its init): `wire help` peaks at 5.0 MiB without them, 13.3 MiB with them.

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"slices"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/google/gopacket/tcpassembly"
)

// Bounds of a capture's memory, whatever its headers claim: the largest
// packet read, the reassembler's buffered out-of-order segments, and the
// directions decoded at once (each holds at most a frame, max-frame
// bytes, and its read-ahead; with -resync three times that).
const (
	maxPacket        = 256 << 10
	maxPagesTotal    = 4096 // tcpassembly pages of about 1,900 bytes: 8 MB
	maxPagesPerConn  = 1024
	maxStreams       = 16
	captureReadAhead = 1 << 20
	// gapWait is how long, in capture time, reassembly waits for a
	// missing segment before it skips it.
	gapWait = 2 * time.Second
)

// Link types as the file has them: gopacket v1.1.19's layers.LinkType is
// 8 bits, too narrow for LINKTYPE_LINUX_SLL2 (276, what `tcpdump -i any`
// writes), for which it has no layer either.
type linkType uint32

const linkTypeLinuxSLL2 linkType = 276

func (lt linkType) String() string {
	if lt == linkTypeLinuxSLL2 {
		return "LinuxSLL2"
	}
	if lt > 255 {
		return "unknown"
	}
	return layers.LinkType(lt).String()
}

// streamLabel names one direction of a captured TCP connection.
type streamLabel struct {
	Conn int    `json:"conn"` // connections numbered from 1 in the order they appear
	From string `json:"from"` // host:port
	To   string `json:"to"`
}

func (l *streamLabel) String() string { return fmt.Sprintf("conn %d %s > %s", l.Conn, l.From, l.To) }

// packetSource is pcapgo's Reader or NgReader.
type packetSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// scanCapture decodes every TCP stream of one capture file. A capture
// that ends inside a packet record is reported, and what came before is
// decoded.
func scanCapture(rep *reporter, src string, in io.Reader, opts inputOpts, each eachFunc) error {
	// The file's empty reads are retried once, by progressReader: the
	// frames of its streams come from segmentReaders, which never read
	// empty.
	br := bufio.NewReaderSize(&progressReader{r: in}, captureReadAhead)
	ps, linkOf, err := openCapture(br)
	if err != nil {
		if errors.Is(err, io.ErrNoProgress) {
			return fmt.Errorf("%s: the input is stuck before the capture's header: it gave only empty reads (%w)", src, err)
		}
		rep.reportf("%s: %v", src, err)
		return nil
	}
	c := &capture{rep: rep, src: src, opts: opts, each: each, conns: map[[2]string]*connRef{}}
	asm := tcpassembly.NewAssembler(tcpassembly.NewStreamPool(c))
	asm.MaxBufferedPagesTotal = maxPagesTotal
	asm.MaxBufferedPagesPerConnection = maxPagesPerConn
	defer c.stopAll()

	var (
		packets, skipped int
		lastFlush        time.Time
		unsupported      = map[linkType]bool{}
	)
	for c.err == nil {
		data, ci, err := readPacket(ps)
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrNoProgress) {
				c.err = fmt.Errorf("%s: the input is stuck in packet record %d: it gave only empty reads (%w)", src, packets, err)
				break
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				rep.reportf("%s: packet record %d: truncated: the capture ends inside it; the packets before it are decoded", src, packets)
			} else {
				rep.reportf("%s: packet record %d: %v; the packets before it are decoded", src, packets, err)
			}
			break
		}
		packets++
		lt := linkOf(ci)
		netFlow, tcp, ok := tcpOf(lt, data)
		if !ok {
			skipped++
			if !linkSupported(lt) && !unsupported[lt] {
				unsupported[lt] = true
				rep.reportf("%s: packet record %d: link type %s (%d) is not read: want Ethernet, Linux cooked (SLL, SLL2), BSD loopback or raw IP", src, packets-1, lt, int(lt))
			}
			continue
		}
		asm.AssembleWithTimestamp(netFlow, tcp, ci.Timestamp)
		c.replay()
		if ci.Timestamp.Sub(lastFlush) > gapWait/2 {
			// Segments missing for gapWait are given up on: what follows
			// them is decoded after the gap.
			asm.FlushWithOptions(tcpassembly.FlushOptions{T: ci.Timestamp.Add(-gapWait)})
			c.replay()
			lastFlush = ci.Timestamp
		}
	}
	if c.err == nil {
		asm.FlushAll()
		c.replay()
	}
	if c.err == nil && c.nconn == 0 {
		rep.reportf("%s: no TCP payload in %d packet records", src, packets)
	} else if skipped > 0 {
		note(rep, "%s: %d of %d packet records were not TCP over IPv4 or IPv6 (or did not decode), skipped", src, skipped, packets)
	}
	return c.err
}

// readPacket reads the next packet record. pcapgo v1.1.19 panics on some
// malformed pcapng blocks (an interface's timestamp resolution of 2^-64
// divides by zero, a short option is sliced past its end): that is an
// error here, which ends the reading of the capture.
func readPacket(ps packetSource) (data []byte, ci gopacket.CaptureInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed, the pcap reader failed on it (%v)", p)
		}
	}()
	return ps.ZeroCopyReadPacketData()
}

// openCapture reads a pcap or pcapng file header; linkOf tells a packet's
// link type.
func openCapture(br *bufio.Reader) (packetSource, func(gopacket.CaptureInfo) linkType, error) {
	head, err := br.Peek(24)
	if errors.Is(err, io.ErrNoProgress) {
		return nil, nil, err
	}
	if len(head) < 4 {
		return nil, nil, fmt.Errorf("not a pcap or pcapng capture: %d bytes", len(head))
	}
	if string(head[:4]) == "\x0a\x0d\x0d\x0a" {
		g := &ngGuard{r: br}
		ng, err := newNgReader(g)
		if err != nil {
			return nil, nil, fmt.Errorf("pcapng: %w", err)
		}
		return ng, func(ci gopacket.CaptureInfo) linkType {
			return g.linkType(ci.InterfaceIndex)
		}, nil
	}
	r, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, nil, fmt.Errorf("not a pcap or pcapng capture (it starts % x): %w", head[:4], err)
	}
	if r.Snaplen() > maxPacket || r.Snaplen() == 0 {
		r.SetSnaplen(maxPacket) // a record claiming more is an error, not an allocation
	}
	// The link type in full, from the header NewReader read (not gzipped:
	// then the 8 bits pcapgo keeps).
	lt := linkType(r.LinkType())
	if len(head) == 24 && head[0] != 0x1f {
		order := binary.ByteOrder(binary.LittleEndian)
		if head[0] == 0xa1 {
			order = binary.BigEndian
		}
		lt = linkType(order.Uint32(head[20:]) & 0x0fffffff) // the top bits tell of an FCS
	}
	return r, func(gopacket.CaptureInfo) linkType { return lt }, nil
}

// newNgReader is pcapgo.NewNgReader, with its panics on malformed
// blocks (see readPacket) made errors.
func newNgReader(r io.Reader) (ng *pcapgo.NgReader, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed, the pcapng reader failed on it (%v)", p)
		}
	}()
	return pcapgo.NewNgReader(r, pcapgo.NgReaderOptions{WantMixedLinkType: true})
}

// linkSupported reports the link types tcpOf reads.
func linkSupported(lt linkType) bool {
	switch lt {
	case linkTypeLinuxSLL2, linkType(layers.LinkTypeEthernet), linkType(layers.LinkTypeLinuxSLL), linkType(layers.LinkTypeNull),
		linkType(layers.LinkTypeLoop), linkType(layers.LinkTypeRaw), linkType(layers.LinkTypeIPv4), linkType(layers.LinkTypeIPv6):
		return true
	}
	return false
}

// tcpOf decodes a packet down to its TCP segment.
func tcpOf(lt linkType, data []byte) (gopacket.Flow, *layers.TCP, bool) {
	if !linkSupported(lt) {
		return gopacket.Flow{}, nil, false
	}
	var dec gopacket.Decoder
	switch lt {
	case linkTypeLinuxSLL2:
		// protocol (2), reserved (2), interface (4), ARPHRD (2), packet
		// type (1), address length (1), address (8)
		if len(data) < 20 {
			return gopacket.Flow{}, nil, false
		}
		dec, data = layers.EthernetType(uint16(data[0])<<8|uint16(data[1])), data[20:]
	case linkType(layers.LinkTypeIPv4), linkType(layers.LinkTypeIPv6):
		dec = layers.LinkTypeRaw
	default:
		dec = layers.LinkType(lt)
	}
	p := gopacket.NewPacket(data, dec, gopacket.DecodeOptions{Lazy: true, NoCopy: true})
	nl := p.NetworkLayer()
	tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
	if nl == nil || !ok {
		return gopacket.Flow{}, nil, false
	}
	return nl.NetworkFlow(), tcp, true
}

// capture is the tcpassembly.StreamFactory of one capture file.
type capture struct {
	rep   *reporter
	src   string
	opts  inputOpts
	each  eachFunc
	conns map[[2]string]*connRef // by endpoints, the lower first
	nconn int
	live  int          // streams being decoded
	dirty []*capStream // streams with reassembled data to decode
	all   []*capStream // for stopAll
	err   error        // the first error that ends the run (a failed write)
}

// connRef is the number of a connection and how many of its directions
// are open.
type connRef struct {
	id   int
	open int
}

// New makes the stream of one direction of a connection.
func (c *capture) New(netFlow, tcpFlow gopacket.Flow) tcpassembly.Stream {
	from := net.JoinHostPort(netFlow.Src().String(), tcpFlow.Src().String())
	to := net.JoinHostPort(netFlow.Dst().String(), tcpFlow.Dst().String())
	key := [2]string{min(from, to), max(from, to)}
	ref := c.conns[key]
	if ref == nil {
		c.nconn++
		ref = &connRef{id: c.nconn}
		c.conns[key] = ref
	}
	ref.open++
	s := &capStream{c: c, ref: ref, key: key, label: &streamLabel{Conn: ref.id, From: from, To: to}}
	if c.live >= maxStreams {
		c.rep.reportf("%s: %s: not decoded: %d streams are being decoded already (the most at once)", c.src, s.label, maxStreams)
		s.dropped = true
		return s
	}
	c.live++
	s.next, s.stop = iter.Pull(s.consume)
	c.all = append(c.all, s)
	return s
}

// replay decodes what reassembly gave since the last call, stream by
// stream in the order of their connections and directions: tcpassembly
// flushes its connections in map order.
func (c *capture) replay() {
	slices.SortFunc(c.dirty, func(a, b *capStream) int {
		return cmp.Or(cmp.Compare(a.label.Conn, b.label.Conn), cmp.Compare(a.label.From, b.label.From))
	})
	for _, s := range c.dirty {
		s.decode()
	}
	c.dirty = c.dirty[:0]
}

// stopAll ends the decoding of streams left open (after a failed write).
func (c *capture) stopAll() {
	for _, s := range c.all {
		s.stop()
	}
}

// capStream is one direction of a connection. Its frames are decoded by
// scanStream in a coroutine (iter.Pull) that runs while it has bytes, so
// the capture is read once and in order.
type capStream struct {
	c       *capture
	ref     *connRef
	key     [2]string
	label   *streamLabel
	dropped bool

	next    func() (struct{}, bool)
	stop    func()
	done    bool // the coroutine returned
	started bool // the coroutine has run

	queue []segment // reassembled, not yet decoded
	cur   []byte    // the segment being read
	gap   int64     // before the next bytes: -1 unknown, or how many bytes were lost; 0 none
	ended bool      // the direction is complete
	noSYN bool      // its first bytes came without a SYN: the capture started inside it
	off   int64     // stream offset of cur[0]
}

// segment is what one Reassembly gave.
type segment struct {
	bytes []byte
	skip  int
	end   bool
}

// Reassembled queues the bytes (they are reused after the call) for the
// next replay.
func (s *capStream) Reassembled(rs []tcpassembly.Reassembly) {
	if s.dropped {
		return
	}
	for _, r := range rs {
		s.queue = append(s.queue, segment{bytes: slices.Clone(r.Bytes), skip: r.Skip})
	}
	s.mark()
}

// ReassemblyComplete queues the end of the direction.
func (s *capStream) ReassemblyComplete() {
	if s.ref.open--; s.ref.open == 0 {
		delete(s.c.conns, s.key) // the same endpoints later are a new connection
	}
	if s.dropped {
		return
	}
	s.queue = append(s.queue, segment{end: true})
	s.mark()
}

func (s *capStream) mark() {
	if !slices.Contains(s.c.dirty, s) {
		s.c.dirty = append(s.c.dirty, s)
	}
}

// decode runs the coroutine over the queued segments.
func (s *capStream) decode() {
	for len(s.queue) > 0 && !s.done && s.c.err == nil {
		g := s.queue[0]
		s.queue = s.queue[1:]
		switch {
		case g.end:
			s.ended = true
			s.c.live--
		case g.skip < 0 && s.off == 0 && s.next != nil && !s.started:
			s.noSYN = true
		case g.skip != 0 && (g.skip > 0 || s.off > 0):
			// Bytes lost mid-stream (a first segment without the SYN,
			// skip -1, is where the capture starts, not a gap).
			s.gap = int64(g.skip)
		}
		s.cur = g.bytes
		s.started = true
		if _, ok := s.next(); !ok {
			s.done = true
		}
	}
	if len(s.queue) == 0 {
		s.queue = nil
	}
}

// consume is the coroutine: the stream's frames, segment by segment
// between gaps, until the direction ends.
func (s *capStream) consume(yield func(struct{}) bool) {
	in := &segmentReader{s: s, yield: yield}
	opts := s.c.opts
	at := &streamAt{label: s.label}
	src := s.c.src + ": " + s.label.String()
	if s.noSYN && !opts.resync {
		note(s.c.rep, "%s: the capture starts inside this connection (its SYN is not in it): its frames are read from the first byte captured; -resync finds the first frame head instead", src)
	}
	for {
		err := scanStream(s.c.rep, src, in, opts, at, s.c.each)
		if err != nil {
			if !errors.Is(err, errStopped) && s.c.err == nil {
				s.c.err = err
			}
			return
		}
		if !in.atGap {
			return
		}
		in.atGap = false
		if s.gap > 0 {
			s.off += s.gap
		}
		s.gap = 0
		opts.resync, at.base = true, s.off
	}
}

// reportGap reports the gap before the next bytes, as the stream's
// decoding meets it: before the frame it cuts is reported.
func (s *capStream) reportGap() {
	lost := "an unknown number of bytes are"
	if s.gap > 0 {
		lost = fmt.Sprintf("%d bytes are", s.gap)
	}
	s.c.rep.reportf("%s: %s: %s missing from the capture at stream offset %d (a gap in the TCP sequence): decoding resumes at the next frame head followed by a decodable message", s.c.src, s.label, lost, s.off)
}

// errStopped ends a coroutine that is stopped before its stream ends.
var errStopped = errors.New("stopped")

// segmentReader is a capStream's bytes as an io.Reader: it waits (yields)
// for the next segment, and ends (io.EOF) at a gap, for the decoding
// after it to resync, and at the end of the direction.
type segmentReader struct {
	s     *capStream
	yield func(struct{}) bool
	atGap bool // the last io.EOF was a gap's
}

func (r *segmentReader) Read(p []byte) (int, error) {
	s := r.s
	for len(s.cur) == 0 && s.gap == 0 {
		if s.ended {
			return 0, io.EOF
		}
		if !r.yield(struct{}{}) {
			return 0, errStopped
		}
	}
	if s.gap != 0 {
		if !r.atGap {
			r.atGap = true
			s.reportGap()
		}
		return 0, io.EOF
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	s.off += int64(n)
	return n, nil
}
