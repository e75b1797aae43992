package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Direction names one or both directions of the proxied connections.
type Direction uint8

// The directions: ToTarget carries what the client writes to the target
// (the server the proxy dials), ToClient what the target writes back.
const (
	ToTarget Direction = 1 << iota
	ToClient
	Both = ToTarget | ToClient
)

// Config configures a Proxy. The zero value is a plain relay.
type Config struct {
	// Chunk is the most the proxy reads at a time from either side; 0
	// means 16 KiB.
	Chunk int
	// Queue is how many chunks wait between a direction's reader and its
	// writer before the reader stops reading; 0 means 4.
	Queue int
	// ReadBuffer, when > 0, is the kernel receive buffer the proxy asks
	// for on both of its sockets: a small one keeps what waits in front of
	// a throttled direction small, as on a slow link, and makes the
	// sender feel the link's rate sooner.
	ReadBuffer int
	// DialTimeout bounds the dial to the target; 0 means 5 s.
	DialTimeout time.Duration
}

// Proxy relays every connection it accepts on its loopback address to
// the target, with the faults set on it.
type Proxy struct {
	cfg    Config
	target string
	ln     net.Listener

	mu     sync.Mutex
	faults [2]faults // by direction index: 0 to the target, 1 to the client
	change chan struct{}
	conns  map[*link]struct{}
	closed bool
	wg     sync.WaitGroup

	moved    [2]atomic.Int64
	writes   [2]atomic.Int64
	accepted atomic.Int64
}

// faults are one direction's settings.
type faults struct {
	rate    int // bytes a second; 0 for no limit
	delay   time.Duration
	split   int // write pieces of at most this many bytes; 0 for whole chunks
	stalled bool
}

// New listens on a free loopback port and relays to target.
func New(target string, cfg Config) (*Proxy, error) {
	return Listen("127.0.0.1:0", target, cfg)
}

// Listen listens on addr, which must be a loopback address, and relays
// to target.
func Listen(addr, target string, cfg Config) (*Proxy, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("faultproxy: listen address %q is not loopback", addr)
	}
	if cfg.Chunk <= 0 {
		cfg.Chunk = 16 << 10
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 4
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	p := &Proxy{cfg: cfg, target: target, ln: ln, change: make(chan struct{}), conns: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, for the client to dial.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Moved is the number of bytes the proxy has written in direction d
// (ToTarget or ToClient) over all its connections.
func (p *Proxy) Moved(d Direction) int64 { return p.moved[index(d)].Load() }

// Writes is the number of writes the proxy has made in direction d
// (ToTarget or ToClient) over all its connections.
func (p *Proxy) Writes(d Direction) int64 { return p.writes[index(d)].Load() }

// Accepted is the number of connections the proxy has accepted.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Open is the number of connections open now.
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

func index(d Direction) int {
	if d == ToClient {
		return 1
	}
	return 0
}

// set applies fn to the faults of the directions in d and wakes the
// writers so that they see the change.
func (p *Proxy) set(d Direction, fn func(*faults)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d&ToTarget != 0 {
		fn(&p.faults[0])
	}
	if d&ToClient != 0 {
		fn(&p.faults[1])
	}
	close(p.change)
	p.change = make(chan struct{})
}

// SetRate throttles d to bytesPerSecond (0 lifts the limit).
func (p *Proxy) SetRate(d Direction, bytesPerSecond int) {
	p.set(d, func(f *faults) { f.rate = max(bytesPerSecond, 0) })
}

// SetDelay delivers each chunk read in direction d no sooner than delay
// after it was read (0 for none); chunks keep their order.
func (p *Proxy) SetDelay(d Direction, delay time.Duration) {
	p.set(d, func(f *faults) { f.delay = max(delay, 0) })
}

// SetSplit writes what travels in direction d in pieces of at most n
// bytes, one Write each (0 for whole chunks).
func (p *Proxy) SetSplit(d Direction, n int) {
	p.set(d, func(f *faults) { f.split = max(n, 0) })
}

// Stall holds every byte travelling in direction d, with the
// connections open, until Resume.
func (p *Proxy) Stall(d Direction) { p.set(d, func(f *faults) { f.stalled = true }) }

// Resume ends a stall of direction d.
func (p *Proxy) Resume(d Direction) { p.set(d, func(f *faults) { f.stalled = false }) }

// Cut resets every open connection, both its sides, and returns how many
// there were. New connections are accepted as before.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	ls := make([]*link, 0, len(p.conns))
	for l := range p.conns {
		ls = append(ls, l)
	}
	p.mu.Unlock()
	for _, l := range ls {
		l.reset()
	}
	return len(ls)
}

// Close stops accepting, resets every open connection and waits for the
// proxy's goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Cut()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.serve(c)
	}
}

// link is one proxied connection.
type link struct {
	client, target net.Conn
	once           sync.Once
	dead           chan struct{} // closed by reset
}

// reset closes both sides with a reset, not a FIN.
func (l *link) reset() {
	l.once.Do(func() {
		close(l.dead)
		for _, c := range []net.Conn{l.client, l.target} {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
		}
	})
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	target, err := net.DialTimeout("tcp", p.target, p.cfg.DialTimeout)
	if err != nil {
		// The target is not there: the client sees its connection end.
		client.Close()
		return
	}
	for _, c := range []net.Conn{client, target} {
		if tc, ok := c.(*net.TCPConn); ok && p.cfg.ReadBuffer > 0 {
			_ = tc.SetReadBuffer(p.cfg.ReadBuffer)
		}
	}
	l := &link{client: client, target: target, dead: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.reset()
		return
	}
	p.conns[l] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(l, client, target, 0) }()
	go func() { defer wg.Done(); p.pipe(l, target, client, 1) }()
	wg.Wait()
	l.reset()
	p.mu.Lock()
	delete(p.conns, l)
	p.mu.Unlock()
}

// catchUp is how far behind its schedule a throttled direction may be
// and still catch up by writing at once.
const catchUp = 100 * time.Millisecond

// chunk is what a direction's reader hands its writer.
type chunk struct {
	b   []byte
	at  time.Time // when it was read
	err error     // the read's error, after the last chunk
}

// buffers are a direction's read buffers, made as the reader first needs
// them and handed back by the writer once it has written a chunk. There
// are Queue+2 of them at the most: the reader's, the Queue chunks waiting
// and the writer's, so the reader never waits for one; it waits, as
// without them, on a full queue.
type buffers struct {
	free chan []byte
	size int
}

func newBuffers(queue, size int) *buffers {
	return &buffers{free: make(chan []byte, queue+2), size: size}
}

// get returns a free buffer, or a new one.
func (b *buffers) get() []byte {
	select {
	case buf := <-b.free:
		return buf
	default:
		return make([]byte, b.size)
	}
}

// put hands back a buffer whose bytes have been written.
func (b *buffers) put(buf []byte) {
	select {
	case b.free <- buf[:cap(buf)]:
	default:
	}
}

// pipe relays src to dst under the faults of direction dir; when src
// ends it closes dst's writing side (a FIN), and when dst fails it
// resets the link.
func (p *Proxy) pipe(l *link, src, dst net.Conn, dir int) {
	q := make(chan chunk, p.cfg.Queue)
	bufs := newBuffers(p.cfg.Queue, p.cfg.Chunk)
	done := make(chan struct{})
	go func() {
		defer close(q)
		for {
			buf := bufs.get()
			n, err := src.Read(buf)
			if n > 0 {
				select {
				case q <- chunk{b: buf[:n], at: time.Now()}:
				case <-done:
					return
				}
			} else {
				bufs.put(buf)
			}
			if err != nil {
				select {
				case q <- chunk{err: err}:
				case <-done:
				}
				return
			}
		}
	}()
	defer close(done)
	var next time.Time // the throttle: when the next byte may go
	for c := range q {
		if c.err != nil {
			if errors.Is(c.err, io.EOF) {
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
					return
				}
			}
			l.reset()
			return
		}
		for b := c.b; len(b) > 0; {
			f, change, ok := p.await(l, dir, c.at)
			if !ok {
				return
			}
			n := len(b)
			if f.split > 0 {
				n = min(n, f.split)
			}
			if f.rate > 0 {
				// Pieces of at most 20 ms of the rate keep the flow even.
				n = min(n, max(f.rate/50, 1))
				// A writer that woke late catches up, but by no more than
				// catchUp: the rate holds on average on a busy machine,
				// and an idle direction does not save up a burst.
				if now := time.Now(); next.Before(now.Add(-catchUp)) {
					next = now.Add(-catchUp)
				}
				if wait := time.Until(next); wait > 0 {
					if changed, alive := p.sleep(l, wait, change); !alive {
						return
					} else if changed {
						continue // the faults changed: look again
					}
				}
				next = next.Add(time.Duration(n) * time.Second / time.Duration(f.rate))
			}
			// Counted first, so a reader that has the bytes sees them counted.
			p.moved[dir].Add(int64(n))
			p.writes[dir].Add(1)
			if _, err := dst.Write(b[:n]); err != nil {
				l.reset()
				return
			}
			b = b[n:]
		}
		bufs.put(c.b)
	}
}

// await waits until direction dir is not stalled and a chunk read at at
// has had its delay, and returns the faults then, with the channel that
// closes when they next change; false once the link is reset.
func (p *Proxy) await(l *link, dir int, at time.Time) (faults, <-chan struct{}, bool) {
	for {
		// The faults and their change channel in one look, so that a
		// change between the two (a Resume) cannot be missed.
		p.mu.Lock()
		f, change := p.faults[dir], p.change
		p.mu.Unlock()
		if f.stalled {
			if _, alive := p.sleep(l, -1, change); !alive {
				return f, change, false
			}
			continue
		}
		wait := time.Until(at.Add(f.delay))
		if wait <= 0 {
			return f, change, true
		}
		if _, alive := p.sleep(l, wait, change); !alive {
			return f, change, false
		}
	}
}

// sleep waits for d (d < 0: for ever) or until change closes, the faults
// having changed since it was read with them (changed), or the link is
// reset (!alive).
func (p *Proxy) sleep(l *link, d time.Duration, change <-chan struct{}) (changed, alive bool) {
	var tc <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-tc:
		return false, true
	case <-change:
		return true, true
	case <-l.dead:
		return false, false
	}
}
