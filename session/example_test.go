package session_test

import (
	"fmt"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/session"
)

// A host and an agent driven by hand, their bytes passed from one to the
// other in memory and the clock moved by the caller: the handshake, then
// one request and its answer. A program does the same over a socket, or
// lets package session/netconn do it.
func ExampleHost() {
	now := time.Unix(1_700_000_000, 0) // the caller's clock
	agent := session.NewAgent(session.AgentConfig{Name: "demo-agent 1.0", Capabilities: codec.CapInput}, now)
	host := session.NewHost(session.HostConfig{Session: 42}, now)

	// pump moves every queued byte both ways until neither side has more.
	pump := func() {
		for moved := true; moved; {
			a, h := agent.PollTransmit(), host.PollTransmit()
			moved = len(a) > 0 || len(h) > 0
			host.Receive(now, a)
			agent.Receive(now, h)
		}
	}

	pump() // the agent speaks first; the host answers with a welcome
	for ev, ok := host.PollEvent(); ok; ev, ok = host.PollEvent() {
		if c, ok := ev.(*session.Connected); ok {
			fmt.Printf("host: connected to %s, version %d, session %d\n", c.Agent, c.Version, c.Session)
		}
	}

	now = now.Add(10 * time.Millisecond)
	id, err := host.Request(now, codec.MethodTap, &codec.TapParams{X: 10, Y: 20}, time.Second)
	if err != nil {
		panic(err)
	}
	pump()
	for ev, ok := agent.PollEvent(); ok; ev, ok = agent.PollEvent() {
		if in, ok := ev.(*session.Incoming); ok {
			fmt.Printf("agent: request %d, %s %+v\n", in.ID, in.Method, *in.Params.(*codec.TapParams))
			if err := agent.Respond(now, in.ID, &codec.Empty{}); err != nil {
				panic(err)
			}
		}
	}
	pump()
	for ev, ok := host.PollEvent(); ok; ev, ok = host.PollEvent() {
		if c, ok := ev.(*session.Completed); ok && c.ID == id {
			fmt.Printf("host: request %d done, error %v\n", c.ID, c.Err)
		}
	}
	// Output:
	// host: connected to demo-agent 1.0, version 1, session 42
	// agent: request 1, tap {X:10 Y:20}
	// host: request 1 done, error <nil>
}
