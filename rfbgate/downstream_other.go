//go:build !linux

package rfbgate

import "net"

// downstream is the browser's side of pumpServer. Elsewhere than Linux the
// relay cannot ask a socket how much it can take: every batch may be
// serverBatchMax, and a viewer whose write blocks holds its batch until
// the write ends or WriteTimeout drops it.
type downstream struct{}

func newDownstream(net.Conn) *downstream { return &downstream{} }

// wait returns serverBatchMax at once.
func (d *downstream) wait() (int, error) { return serverBatchMax, nil }

// spend records bytes written (nothing to track here).
func (d *downstream) spend(int) {}

// kernelLink is what the kernel knows of the connection (nothing here).
func kernelLink(net.Conn) (tcpLink, bool) { return tcpLink{}, false }
