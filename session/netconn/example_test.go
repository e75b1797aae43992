package netconn_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/codec/zerocopy"
	"github.com/wirebench/wirebench/session"
	"github.com/wirebench/wirebench/session/netconn"
)

// screen is the example agent's screen: one window holding a button.
func screen() *codec.Snapshot {
	return &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.Button"},
		Windows: []codec.Window{{
			ID: 1, Type: 1, Bounds: codec.Bounds{Right: 1080, Bottom: 2400}, Flags: schema.WindowActive,
			Root: &codec.Node{ID: 1, Class: 0, Bounds: codec.Bounds{Right: 1080, Bottom: 2400}, Flags: schema.NodeVisible,
				Children: []codec.Node{{ID: 2, Class: 1, Bounds: codec.Bounds{Left: 40, Top: 2200, Right: 1040, Bottom: 2360},
					Flags: schema.NodeClickable | schema.NodeVisible, Text: "OK"}}},
		}},
	}
}

// serveAgent accepts one connection on ln and runs an agent on it until
// the host leaves: it answers snapshot and tap, and refuses the rest.
func serveAgent(ln net.Listener, done chan<- error) {
	c, err := ln.Accept()
	if err != nil {
		done <- err
		return
	}
	a := session.NewAgent(session.AgentConfig{Capabilities: codec.CapTree | codec.CapInput, Name: "example-agent/1"}, time.Now())
	d := netconn.New(c, a)
	defer d.Close()
	err = d.Run(context.Background(), func() bool {
		for ev, ok := a.PollEvent(); ok; ev, ok = a.PollEvent() {
			switch ev := ev.(type) {
			case *session.Incoming:
				switch p := ev.Params.(type) {
				case *codec.SnapshotParams:
					_ = a.Respond(time.Now(), ev.ID, screen())
				case *codec.TapParams:
					fmt.Printf("agent: tap at %d,%d\n", p.X, p.Y)
					_ = a.Respond(time.Now(), ev.ID, &codec.Empty{})
				default:
					_ = a.Fail(time.Now(), ev.ID, codec.NewError(codec.CodeInternal, ev.Method.String()+" is not served here"))
				}
			case *session.Closed:
				return true // the host left
			}
		}
		return false
	})
	done <- err
}

// callAgent listens on a loopback port, serves one connection there with
// serveAgent, makes one request to it with call, and returns the
// request's outcome and, once the host has left, how the agent ended.
func callAgent(m codec.Method, p codec.Params) (res *session.Completed, agentErr, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	done := make(chan error, 1)
	go serveAgent(ln, done)
	if res, err = call(ln.Addr().String(), m, p); err != nil {
		return nil, nil, err
	}
	return res, <-done, nil
}

// call connects a host to addr, makes one request once the handshake is
// done, and returns its outcome.
func call(addr string, m codec.Method, p codec.Params) (*session.Completed, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	h := session.NewHost(session.HostConfig{Session: 1}, time.Now())
	d := netconn.New(c, h)
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var id uint64
	var out *session.Completed
	err = d.Run(ctx, func() bool {
		for ev, ok := h.PollEvent(); ok; ev, ok = h.PollEvent() {
			switch ev := ev.(type) {
			case *session.Connected:
				fmt.Println("host: connected to", ev.Agent)
				if id, err = h.Request(time.Now(), m, p, 5*time.Second); err != nil {
					return true
				}
			case *session.Completed:
				if ev.ID == id {
					out = ev
				}
			case *session.Closed:
				err = ev.Err
				return true
			}
		}
		return out != nil
	})
	return out, err
}

// A host asks an agent for a snapshot over a TCP connection and prints
// the windows' nodes.
func Example_host() {
	res, agentErr, err := callAgent(codec.MethodSnapshot, &codec.SnapshotParams{Evict: []uint32{}})
	if err != nil || res.Err != nil {
		fmt.Println(err, res)
		return
	}
	snap := res.Result.(*codec.Snapshot)
	for _, w := range snap.Windows {
		var walk func(n *codec.Node, depth int)
		walk = func(n *codec.Node, depth int) {
			fmt.Printf("%snode %d %s %q\n", strings.Repeat("  ", depth), n.ID, snap.Strings[n.Class], n.Text)
			for i := range n.Children {
				walk(&n.Children[i], depth+1)
			}
		}
		fmt.Printf("window %d\n", w.ID)
		walk(w.Root, 1)
	}
	fmt.Println("agent:", agentErr)
	// Output:
	// host: connected to example-agent/1
	// window 1
	//   node 1 android.widget.FrameLayout ""
	//     node 2 android.widget.Button "OK"
	// agent: <nil>
}

// An agent answers a host's tap: serveAgent above is the agent's side of
// the connection, its loop reading the session's events and answering
// each Incoming request with Respond or Fail.
func Example_agent() {
	res, agentErr, err := callAgent(codec.MethodTap, &codec.TapParams{X: 540, Y: 2280})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("host: tap answered with %T\n", res.Result)
	fmt.Println("agent:", agentErr)
	// Output:
	// host: connected to example-agent/1
	// agent: tap at 540,2280
	// host: tap answered with *codec.Empty
	// agent: <nil>
}

// A receive loop reads frames from a connection and routes them by their
// envelope with the zerocopy views, allocating nothing per frame: a
// snapshot response is walked in place, an event read in place, and each
// frame released once handled (its views are valid until then).
func Example_receiveLoop() {
	server, client := net.Pipe()
	go func() {
		w := codec.NewWriter(server, schema.DefaultMaxFrame)
		for _, m := range []codec.Message{
			&codec.Response{ID: 7, Method: codec.MethodSnapshot, Result: screen()},
			&codec.Event{Stream: codec.StreamTree, Seq: 1, Type: codec.TypeContentChanged, Body: &codec.ContentChanged{Window: 1, Node: 2, Change: schema.ContentText}},
			&codec.Ping{Nonce: 9},
		} {
			if err := w.WriteMessage(m); err != nil {
				fmt.Println(err)
			}
		}
		server.Close()
	}()

	r := codec.NewReader(client, schema.DefaultMaxFrame)
	var snap zerocopy.Snapshot
	var walker zerocopy.Walker
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		h, err := zerocopy.Header(f.Payload)
		switch {
		case err != nil:
			fmt.Println("bad frame:", err)
		case h.Kind == codec.KindResponse && h.Method == codec.MethodSnapshot && h.HasResult:
			if err := snap.Parse(f.Payload); err != nil {
				fmt.Println(err)
				break
			}
			fmt.Printf("response %d: snapshot of %d nodes\n", h.ID, snap.NumNodes())
			for walker.Reset(&snap); walker.Next(); {
				if n := walker.Node(); n != nil && n.Text.Ok {
					fmt.Printf("  node %d %s %q\n", n.ID, n.ClassName, n.Text.Val)
				}
			}
		case h.Kind == codec.KindEvent:
			ev, err := zerocopy.ParseEvent(f.Payload)
			if err != nil {
				fmt.Println(err)
				break
			}
			fmt.Printf("event %s #%d: window %d node %d\n", codec.EventTypeName(ev.Stream, ev.Type), ev.Seq, ev.Window, ev.Node)
		default:
			fmt.Println(h.Kind)
		}
		f.Release()
	}
	// Output:
	// response 7: snapshot of 2 nodes
	//   node 2 android.widget.Button "OK"
	// event content_changed #1: window 1 node 2
	// ping
}
