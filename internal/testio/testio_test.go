package testio

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

func TestSyncBuffer(t *testing.T) {
	var s SyncBuffer
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				s.Write([]byte("ab"))
			}
		}()
	}
	wg.Wait()
	if got := s.String(); got != strings.Repeat("ab", 800) {
		t.Fatalf("%d bytes, want 1600 of ab", len(got))
	}
}

func TestEmptyReads(t *testing.T) {
	r := EmptyReads(bytes.NewReader([]byte("xyz")))
	p := make([]byte, 2)
	var got []byte
	var empty int
	for i := 0; ; i++ {
		n, err := r.Read(p)
		if n == 0 && err == nil {
			if i%2 != 0 {
				t.Fatalf("read %d is empty; only every other one may be", i)
			}
			empty++
		}
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
	}
	if string(got) != "xyz" || empty < 2 {
		t.Fatalf("read %q with %d empty reads", got, empty)
	}
}

func TestServe(t *testing.T) {
	addr := Serve(t, func(c net.Conn) { c.Write([]byte("hi")) })
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(c) // Serve closes the connection after serve
		c.Close()
		if err != nil || string(b) != "hi" {
			t.Fatalf("connection %d read %q, %v", i, b, err)
		}
	}
}

func TestStuck(t *testing.T) {
	s := &Stuck{R: bytes.NewReader([]byte("ab"))}
	p := make([]byte, 1)
	var got []byte
	for range 10 {
		n, err := s.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p[:n]...)
	}
	if string(got) != "ab" || s.Empty != 8 {
		t.Fatalf("read %q with %d empty reads", got, s.Empty)
	}
}
