package netconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSession records what the driver does to it. Run's goroutine is the
// only one that calls it, so it needs no lock; the test reads it after
// Run returns.
type fakeSession struct {
	got      bytes.Buffer
	out      []byte
	ended    int
	closed   int
	timeouts int
	at       time.Time // the timeout to report; zero for none
}

func (f *fakeSession) Receive(now time.Time, b []byte) { f.got.Write(b) }
func (f *fakeSession) EndOfStream(now time.Time)       { f.ended++ }
func (f *fakeSession) HandleTimeout(now time.Time) {
	f.timeouts++
	f.at = time.Time{}
}
func (f *fakeSession) PollTransmitAt(now time.Time, max int) []byte {
	b := f.out
	f.out = nil
	return b
}
func (f *fakeSession) PollTimeout() (time.Time, bool) { return f.at, !f.at.IsZero() }
func (f *fakeSession) Close(now time.Time) {
	f.closed++
	f.out = append(f.out, "bye"...)
}

func pipe(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestRunFeedsAndWrites: what the peer writes reaches Receive, what the
// session queues reaches the peer, and Run returns once step says so.
func TestRunFeedsAndWrites(t *testing.T) {
	c, peer := pipe(t)
	s := &fakeSession{out: []byte("hello")}
	d := New(c, s)
	defer d.Close()
	go func() {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != "hello" {
			t.Errorf("peer read %q, %v", buf, err)
		}
		peer.Write([]byte("world"))
	}()
	err := d.Run(context.Background(), func() bool { return s.got.String() == "world" })
	if err != nil || s.got.String() != "world" {
		t.Fatalf("Run: %v, session got %q", err, s.got.String())
	}
}

// TestRunTimer: the session's timeout fires HandleTimeout.
func TestRunTimer(t *testing.T) {
	c, _ := pipe(t)
	s := &fakeSession{at: time.Now().Add(10 * time.Millisecond)}
	d := New(c, s)
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Run(ctx, func() bool { return s.timeouts > 0 }); err != nil || s.timeouts != 1 {
		t.Fatalf("Run: %v after %d timeouts", err, s.timeouts)
	}
	// A timeout already past fires at once.
	s.at = time.Now().Add(-time.Second)
	if err := d.Run(ctx, func() bool { return s.timeouts > 1 }); err != nil || s.timeouts != 2 {
		t.Fatalf("Run: %v after %d timeouts", err, s.timeouts)
	}
}

// TestRunContext: Run returns ctx.Err() when ctx ends, and Close then
// closes the session, writes what it queued and closes the connection.
func TestRunContext(t *testing.T) {
	c, peer := pipe(t)
	s := &fakeSession{}
	d := New(c, s)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	if err := d.Run(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if b := <-got; string(b) != "bye" || s.closed != 1 {
		t.Fatalf("peer read %q after Close, session closed %d times", b, s.closed)
	}
	if err := d.Close(); err != nil || s.closed != 1 {
		t.Fatalf("a second Close: %v, session closed %d times", err, s.closed)
	}
}

// TestRunEndOfStream: the peer's close reaches EndOfStream, and Run
// returns io.EOF when step does not end it; Close then leaves the
// session alone.
func TestRunEndOfStream(t *testing.T) {
	c, peer := pipe(t)
	s := &fakeSession{}
	d := New(c, s)
	peer.Close()
	if err := d.Run(context.Background(), func() bool { return false }); err != io.EOF || s.ended != 1 {
		t.Fatalf("Run: %v, EndOfStream %d times", err, s.ended)
	}
	// step sees the end: Run returns nil when it says so.
	if err := d.Run(context.Background(), func() bool { return s.ended == 1 }); err != nil {
		t.Fatalf("Run after the end: %v", err)
	}
	d.Close()
	if s.closed != 0 {
		t.Fatalf("Close after the end closed the session %d times", s.closed)
	}
}

// failWrites is a connection whose writes fail and whose reads wait.
type failWrites struct{ net.Conn }

var errWrite = errors.New("the link is gone")

func (failWrites) Write([]byte) (int, error) { return 0, errWrite }

// TestRunWriteError: a failed write ends the stream (the session sees
// EndOfStream) and Run with the write's error.
func TestRunWriteError(t *testing.T) {
	c, _ := pipe(t)
	s := &fakeSession{}
	d := New(failWrites{c}, s)
	defer d.Close()
	s.out = []byte("x")
	if err := d.Run(context.Background(), nil); !errors.Is(err, errWrite) || s.ended != 1 {
		t.Fatalf("Run: %v, EndOfStream %d times; want the write's error once", err, s.ended)
	}
}

// slowSession queues a long take at first, and a short one whenever a
// ping is due; it records the order the peer reads them in.
type slowSession struct {
	fakeSession
	takes [][]byte
}

func (f *slowSession) PollTransmitAt(now time.Time, max int) []byte {
	if len(f.takes) == 0 {
		return nil
	}
	b := f.takes[0]
	f.takes = f.takes[1:]
	return b
}

// TestRunKeepsGoingWhileAWriteWaits: while the peer takes nothing, Run
// still reads, fires timers and runs posted functions.
func TestRunKeepsGoingWhileAWriteWaits(t *testing.T) {
	c, peer := pipe(t) // net.Pipe: a write waits until the peer reads
	s := &slowSession{takes: [][]byte{[]byte("bulk")}}
	s.at = time.Now().Add(20 * time.Millisecond)
	d := New(c, s)
	defer d.Close()
	go peer.Write([]byte("ping"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Run(ctx, func() bool { return s.got.String() == "ping" && s.timeouts == 1 }); err != nil {
		t.Fatalf("Run: %v (got %q, %d timeouts) while its write waited", err, s.got.String(), s.timeouts)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(peer, buf); err != nil || string(buf) != "bulk" {
		t.Fatalf("peer read %q, %v", buf, err)
	}
}

// TestPost: a posted function runs on Run's goroutine, between waits.
func TestPost(t *testing.T) {
	c, _ := pipe(t)
	s := &fakeSession{}
	d := New(c, s)
	var ran atomic.Int32
	go d.Post(func() {
		ran.Add(1)
		s.out = []byte{} // the session is Run's to touch
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Run(ctx, func() bool { return ran.Load() == 1 }); err != nil {
		t.Fatalf("Run: %v", err)
	}
	d.Close()
	d.Post(func() { t.Error("ran after Close") }) // dropped, and does not block
}

// orderSession records the order of reads and timeouts.
type orderSession struct {
	fakeSession
	order []string
}

func (o *orderSession) Receive(now time.Time, b []byte) { o.order = append(o.order, "read") }
func (o *orderSession) HandleTimeout(now time.Time) {
	o.order = append(o.order, "timeout")
	o.at = time.Time{}
}

// readSignal is a net.Conn that closes done when its first Read returns
// bytes.
type readSignal struct {
	net.Conn
	once sync.Once
	done chan struct{}
}

func (r *readSignal) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	if n > 0 {
		r.once.Do(func() { close(r.done) })
	}
	return n, err
}

// TestReadsAreHeardBeforeTimers: when Run was held up and finds both bytes
// read and its timer due, the bytes reach the session first, so it never
// closes as Silent with the peer's bytes waiting.
func TestReadsAreHeardBeforeTimers(t *testing.T) {
	for i := 0; i < 20; i++ {
		c, peer := pipe(t)
		s := &orderSession{}
		s.at = time.Now().Add(time.Hour)
		read := &readSignal{Conn: c, done: make(chan struct{})}
		d := New(read, s)
		go func() {
			peer.Write([]byte("x"))
			io.Copy(io.Discard, peer) // what Close writes
		}()
		// Hold the loop until the read goroutine has the byte and waits to
		// offer it (however long a loaded machine takes to schedule it),
		// then make the timer due: Run finds both at once. (Posted before
		// Run, so the loop is held from its first wait; the read may come
		// first, which is the order wanted too.)
		d.Post(func() {
			<-read.done
			if len(s.order) == 0 {
				waitReadLoops(t, 1)
			}
			s.at = time.Now()
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := d.Run(ctx, func() bool { return len(s.order) == 2 })
		cancel()
		d.Close()
		if err != nil || len(s.order) != 2 || s.order[0] != "read" {
			t.Fatalf("round %d: %v, order %v; want the read before the timeout", i, err, s.order)
		}
		waitReadLoops(t, 0) // this round's read goroutine has ended
	}
}

// waitReadLoops waits until n read goroutines (Conn.readLoop) wait in
// their select, offering what they read, and no other exists (n 0: none
// exists), as the runtime's goroutine dump shows them.
func waitReadLoops(t *testing.T, n int) {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		dump := string(buf[:runtime.Stack(buf, true)])
		all, waiting := 0, 0
		for _, g := range strings.Split(dump, "\n\n") {
			if strings.Contains(g, "netconn.(*Conn).readLoop") {
				all++
				if first, _, _ := strings.Cut(g, "\n"); strings.Contains(first, "[select") {
					waiting++
				}
			}
		}
		if all == n && waiting == n {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after 10 s, %d read goroutines, %d of them waiting in select; want %d", all, waiting, n)
			return
		}
	}
}
