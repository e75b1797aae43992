package testio

import (
	"net"
	"testing"
)

// Serve listens on a free loopback TCP port until the test ends, runs
// serve on each connection it accepts in a goroutine of its own (closing
// the connection when serve returns), and returns the address.
func Serve(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}
