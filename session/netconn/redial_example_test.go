package netconn_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// flakyAgent serves each connection on ln with an agent; the first one
// it hangs up as soon as the handshake is done, the others answer
// device_info.
func flakyAgent(ln net.Listener) {
	for n := 1; ; n++ {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func(n int) {
			a := session.NewAgent(session.AgentConfig{Name: "flaky-agent/1"}, time.Now())
			d := netconn.New(c, a)
			defer d.Close()
			d.Run(context.Background(), func() bool {
				for ev, ok := a.PollEvent(); ok; ev, ok = a.PollEvent() {
					switch ev := ev.(type) {
					case *session.Welcomed:
						if n == 1 {
							return true // hang up
						}
					case *session.Incoming:
						a.Respond(time.Now(), ev.ID, &codec.Device{Model: "flaky", SDK: 34, ABI: "arm64-v8a"})
					case *session.Closed:
						return true
					}
				}
				return false
			})
		}(n)
	}
}

// A host kept connected by a Redialer: the agent hangs up the first
// connection, the Redialer says so and dials again after
// session.ResyncBackoff, and the request goes out on the new session.
func ExampleRedialer() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go flakyAgent(ln)

	rd := netconn.NewRedialer(netconn.RedialConfig{
		Dial: func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", ln.Addr().String())
		},
		Host: session.HostConfig{Session: 1},
	})
	defer rd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := false
	err = rd.Run(ctx, func() bool {
		for ev, ok := rd.PollEvent(); ok; ev, ok = rd.PollEvent() {
			switch ev := ev.(type) {
			case *netconn.Attempt:
				fmt.Println("dial", ev.N, "error:", ev.Err)
			case *session.Connected:
				fmt.Println("connected, session", ev.Session)
				if ev.Session == 2 {
					rd.Request(time.Now(), codec.MethodDeviceInfo, nil, 5*time.Second)
				}
			case *session.Closed:
				fmt.Println("closed:", ev.Reason)
			case *netconn.Redialing:
				fmt.Println("redialing in", ev.Retry)
				_, err := rd.Request(time.Now(), codec.MethodDeviceInfo, nil, 0)
				fmt.Println("a request meanwhile:", err.(*codec.Error).Code)
			case *session.Completed:
				fmt.Println("device:", ev.Result.(*codec.Device).Model)
				done = true
			}
		}
		return done
	})
	fmt.Println("run:", err)
	// Output:
	// dial 1 error: <nil>
	// connected, session 1
	// closed: end_of_stream
	// redialing in 100ms
	// a request meanwhile: disconnected
	// dial 1 error: <nil>
	// connected, session 2
	// device: flaky
	// run: <nil>
}
