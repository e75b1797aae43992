package faultproxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/internal/testio"
)

func echo(c net.Conn) { io.Copy(c, c) }

func proxy(t testing.TB, target string, cfg Config) *Proxy {
	t.Helper()
	p, err := New(target, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t testing.TB, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads as many bytes back.
func roundTrip(t testing.TB, c net.Conn, msg []byte) []byte {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read back: %v", err)
	}
	return got
}

func TestRelayAndSplit(t *testing.T) {
	p := proxy(t, testio.Serve(t, echo), Config{})
	c := dial(t, p)
	msg := bytes.Repeat([]byte("0123456789"), 1000)
	if got := roundTrip(t, c, msg); !bytes.Equal(got, msg) {
		t.Fatal("relay changed the bytes")
	}
	if p.Moved(ToTarget) != 10000 || p.Moved(ToClient) != 10000 {
		t.Fatalf("moved %d and %d bytes, want 10000 each way", p.Moved(ToTarget), p.Moved(ToClient))
	}
	// Split the way to the target in 7-byte writes, and the way back in
	// single bytes: the bytes arrive whole, in as many writes.
	p.SetSplit(ToTarget, 7)
	p.SetSplit(ToClient, 1)
	w0, b0 := p.Writes(ToTarget), p.Writes(ToClient)
	msg = []byte(strings.Repeat("split writes ", 20))
	if got := roundTrip(t, c, msg); !bytes.Equal(got, msg) {
		t.Fatalf("split relay gave %q", got)
	}
	if w := p.Writes(ToTarget) - w0; w < int64((len(msg)+6)/7) {
		t.Fatalf("%d writes to the target for %d bytes split by 7", w, len(msg))
	}
	if w := p.Writes(ToClient) - b0; w != int64(len(msg)) {
		t.Fatalf("%d writes to the client for %d bytes split by 1", w, len(msg))
	}
}

// TestThrottleEachDirection: the way to the client at 64 KB/s takes at
// least its time for 64 KiB, while the way to the target, not
// throttled, carries 1 MiB meanwhile.
func TestThrottleEachDirection(t *testing.T) {
	const down, up = 64 << 10, 1 << 20
	got := make(chan int, 1)
	addr := testio.Serve(t, func(c net.Conn) {
		go func() {
			n, _ := io.Copy(io.Discard, c)
			got <- int(n)
		}()
		c.Write(make([]byte, down))
		c.(*net.TCPConn).CloseWrite()
		time.Sleep(time.Hour)
	})
	p := proxy(t, addr, Config{})
	p.SetRate(ToClient, 64<<10)
	c := dial(t, p)
	start := time.Now()
	upDone := make(chan time.Duration, 1)
	go func() {
		c.Write(make([]byte, up))
		c.(*net.TCPConn).CloseWrite()
		upDone <- time.Since(start)
	}()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := io.Copy(io.Discard, c)
	took := time.Since(start)
	if err != nil || n != down {
		t.Fatalf("read %d bytes, %v; want %d", n, err, down)
	}
	// A throttle never runs ahead of its rate by more than its catch-up
	// allowance and one 20 ms piece.
	if min := time.Second - catchUp - 20*time.Millisecond; took < min {
		t.Fatalf("64 KiB at 64 KB/s arrived in %v, under %v", took, min)
	}
	if r := <-got; r != up {
		t.Fatalf("the target got %d bytes, want %d", r, up)
	}
	if u := <-upDone; u > took {
		t.Fatalf("the unthrottled way took %v, longer than the throttled one's %v", u, took)
	}
}

func TestDelay(t *testing.T) {
	p := proxy(t, testio.Serve(t, echo), Config{})
	p.SetDelay(ToTarget, 150*time.Millisecond)
	p.SetDelay(ToClient, 100*time.Millisecond)
	c := dial(t, p)
	start := time.Now()
	if got := roundTrip(t, c, []byte("late")); string(got) != "late" {
		t.Fatalf("got %q", got)
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Fatalf("a round trip through 150 ms and 100 ms of delay took %v", took)
	}
	// Delay keeps order: many small writes come back in order.
	var want []byte
	for i := 0; i < 50; i++ {
		b := []byte{byte(i)}
		want = append(want, b...)
		c.Write(b)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("delayed bytes %v, %v", got, err)
	}
}

func TestStallHoldsBytesUntilResume(t *testing.T) {
	p := proxy(t, testio.Serve(t, echo), Config{})
	c := dial(t, p)
	roundTrip(t, c, []byte("warm"))
	p.Stall(Both)
	c.Write([]byte("held"))
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := c.Read(make([]byte, 4)); !isTimeout(err) || n != 0 {
		t.Fatalf("read %d bytes, %v through a stall", n, err)
	}
	if p.Open() != 1 {
		t.Fatalf("%d connections open during the stall, want 1", p.Open())
	}
	p.Resume(Both)
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "held" {
		t.Fatalf("after resume: %q, %v", got, err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestCutResetsOpenConnections(t *testing.T) {
	p := proxy(t, testio.Serve(t, echo), Config{})
	c := dial(t, p)
	roundTrip(t, c, []byte("up"))
	p.Stall(ToClient) // a cut also ends a stalled connection
	if n := p.Cut(); n != 1 {
		t.Fatalf("cut %d connections, want 1", n)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("read on a cut connection worked")
	}
	p.Resume(ToClient)
	if got := roundTrip(t, dial(t, p), []byte("again")); string(got) != "again" {
		t.Fatalf("after the cut: %q", got)
	}
	if p.Accepted() != 2 {
		t.Fatalf("accepted %d", p.Accepted())
	}
}

func TestTargetDownEndsTheClientsConnection(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	p := proxy(t, addr, Config{})
	c := dial(t, p)
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read %v, want io.EOF when the target is down", err)
	}
}

func TestListenOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", "nonsense"} {
		if _, err := Listen(addr, "127.0.0.1:1", Config{}); err == nil {
			t.Errorf("Listen(%q) worked", addr)
		}
	}
}

func TestCloseEndsEverything(t *testing.T) {
	p, err := New(testio.Serve(t, echo), Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p)
	roundTrip(t, c, []byte("x"))
	p.Stall(Both)
	c.Write([]byte("stuck"))
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return with a stalled connection open")
	}
	if _, err := net.Dial("tcp", p.Addr()); err == nil {
		t.Fatal("the proxy still accepts after Close")
	}
}

// BenchmarkRelay: 64 KiB to an echo server and back through the proxy,
// with its default chunk.
func BenchmarkRelay(b *testing.B) {
	p := proxy(b, testio.Serve(b, echo), Config{})
	c := dial(b, p)
	msg, got := make([]byte, 64<<10), make([]byte, 64<<10)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, got); err != nil {
			b.Fatal(err)
		}
	}
}
