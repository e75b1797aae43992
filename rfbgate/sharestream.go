package rfbgate

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// serveShared runs one viewer of a computer's hub to its end: the same
// gate, leases, pings and close rules as a viewer with its own connection
// (serveViewer), but its screen comes from the hub's shared log and its
// input goes whole into the hub's connection.
func (r *Relay) serveShared(ctx context.Context, ws *websocket.Conn, raw net.Conn, remote string, comp Computer, o opening, log *slog.Logger) {
	h, ok := r.joinHub(ctx, ws, comp, log)
	if !ok {
		return
	}
	var sv *shareViewer
	defer func() { h.leave(sv) }()

	connCtx, connCancel := context.WithCancel(context.Background())
	defer connCancel()
	ws.SetReadLimit(maxClientMessage)
	init := h.serverInit()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v := r.newViewer(o, comp, ws, raw, remote, cancel)
	sv = newShareViewer(v, h, int(init.Width), int(init.Height))
	v.share = sv
	v.server = newShareInput(sv, r.cfg.Limits)
	client := &clientStream{ws: ws, text: v.pageText}
	if !r.viewerHandshake(v, client, init, log, func() error {
		if !h.add(sv) {
			return errors.New("the computer's connection ended")
		}
		r.addViewer(v)
		return nil
	}) {
		return
	}
	log.Info("rfbgate: viewer open", "role", v.role(), "remote", remote, "width", init.Width, "height", init.Height, "upstream", "hub")

	var wg sync.WaitGroup
	wg.Add(4)
	go func() { // its link, to its page
		defer wg.Done()
		sv.reportLink(cctx)
	}()
	go func() { // the shared log to the browser
		defer wg.Done()
		v.pumpShared(cctx, sv)
	}()
	readDone := make(chan struct{})
	go func() { // client to the hub: through the gate
		defer wg.Done()
		defer close(readDone)
		v.pumpClient(client)
	}()
	go func() {
		defer wg.Done()
		v.pingLoop(cctx, connCtx)
	}()
	<-cctx.Done()
	if r.ctx.Err() != nil {
		v.end(websocket.StatusGoingAway, reasonShutdown)
	}
	v.settle(readDone)
	role := v.role()
	v.releaseOnClose()
	by, code, reason := v.closeStatus()
	sent := v.closeViewer(code, reason)
	connCancel()
	wg.Wait()
	log.Info("rfbgate: viewer closed", "role", role, "remote", remote, "by", by, "code", int(code), "reason", reason, "close_sent", sent,
		"duration", time.Since(v.opened).Round(time.Millisecond), "bytes_to_viewer", v.toViewer.Load(), "bytes_to_computer", v.toComputer.Load(),
		"skipped_updates", sv.skipped.Load(), "upstream", "hub", "mode", sv.mode(), "class", sv.class().String())
	r.removeViewer(v, code)
}

// linkReportEvery is how often a viewer's page is told its link as glass
// measures it (and at once when its class changes).
const linkReportEvery = 2 * time.Second

// reportLink tells the viewer's page, every linkReportEvery and when its
// class changes, its link as glass measures it and the quality glass
// sends it at, until ctx ends; a change of class is logged.
func (sv *shareViewer) reportLink(ctx context.Context) {
	t := time.NewTicker(linkReportEvery)
	defer t.Stop()
	last := class(-3)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-sv.classed:
		}
		sv.mu.Lock()
		rate, rtt := sv.pace.link()
		keeps := sv.pace.keepsUp(time.Now())
		c, mode := sv.cls, sv.modeLocked()
		sv.mu.Unlock()
		if c != last && last != -3 {
			sv.h.log.Info("rfbgate: viewer's class", "surface", sv.v.surface, "stream", sv.v.stream, "class", c.String(), "was", last.String(),
				"mode", mode, "rate_bps", int64(rate*8), "rtt", rtt)
		}
		last = c
		if rate <= 0 {
			continue // not measured yet
		}
		level := int(c)
		if c < 0 {
			level = 9
		}
		sv.v.notify(newLinkEvent(int64(rate*8), rtt, c.picture(), level, keeps))
	}
}

// pumpShared writes what the viewer's place at the hub gives it (next) to
// the browser, until the viewer ends, each item as one message: the
// viewer's pacer keeps what is in flight to about a round trip of its
// link (what the viewer owes waits at the hub, where it is pulled fresh),
// and the kernel keeps few bytes unsent (downstream's TCP_NOTSENT_LOWAT).
func (v *viewer) pumpShared(ctx context.Context, sv *shareViewer) {
	v.stall = time.AfterFunc(time.Hour, v.stalled)
	v.stall.Stop()
	defer v.stall.Stop()
	// The socket's TCP_NOTSENT_LOWAT keeps the kernel's queue short; the
	// pacer keeps what is in flight to about a round trip, so each item
	// goes whole, as one message, with no measure of the socket first.
	newDownstream(v.raw)
	var counts rectCounts
	for {
		items, ok := sv.next(ctx.Done())
		if !ok {
			return
		}
		for _, it := range items {
			seq := sv.sending(it)
			if !v.sendBatch(it.b) {
				return
			}
			sv.written(it, seq)
			if it.kinds != nil {
				for k, n := range it.kinds {
					counts[k] += n
				}
				v.rects.store(&counts)
			}
		}
	}
}
