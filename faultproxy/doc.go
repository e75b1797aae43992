// Package faultproxy is a TCP proxy on loopback that puts a bad link
// between two real peers: it can throttle each direction separately,
// delay it, split its writes into small pieces, stall it (hold every byte
// while the connection stays open, as a pulled cable does), and cut
// every connection (a reset). The faults can change at any time and
// apply at once to the connections already open.
//
// A test starts the server it wants to reach (an agent, say), puts a
// Proxy in front of it, and connects its client to Proxy.Addr:
//
//	p, err := faultproxy.New(agentAddr, faultproxy.Config{})
//	defer p.Close()
//	p.SetRate(faultproxy.ToClient, 8<<10) // the server's replies at 8 KB/s
//	p.Stall(faultproxy.Both)              // nothing moves either way...
//	p.Resume(faultproxy.Both)             // ...until now
//	p.Cut()                               // every open connection reset
//
// Each direction of each connection is a reader and a writer goroutine
// with a bounded queue of chunks between them, so a stalled or throttled
// direction pushes back on its sender through TCP, as a slow link does,
// and the proxy's memory stays bounded.
package faultproxy
