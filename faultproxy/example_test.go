package faultproxy_test

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/wirebench/wirebench/faultproxy"
)

// A proxy in front of an echo server: the way back is split into
// single-byte writes and throttled, then stalled for a moment; the bytes
// still arrive whole and in order. Then a cut resets the connection.
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(c, c)
		}
	}()

	p, err := faultproxy.New(ln.Addr().String(), faultproxy.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	p.SetSplit(faultproxy.ToClient, 1)
	p.SetRate(faultproxy.ToClient, 1000) // bytes a second

	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	p.Stall(faultproxy.Both)
	c.Write([]byte("hello"))
	time.AfterFunc(50*time.Millisecond, func() { p.Resume(faultproxy.Both) })
	buf := make([]byte, 5)
	io.ReadFull(c, buf)
	fmt.Printf("%s in %d writes\n", buf, p.Writes(faultproxy.ToClient))

	fmt.Println("cut", p.Cut(), "connection")
	_, err = c.Read(buf)
	fmt.Println("then the read fails:", err != nil)
	// Output:
	// hello in 5 writes
	// cut 1 connection
	// then the read fails: true
}
