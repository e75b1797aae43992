package rfbgate

import (
	"time"
)

// A shared viewer's status and link: how glass serves it now (solo,
// in-step or pulling), its class, what its pacer knows of its link, and
// whether a solo viewer keeps up with Xvnc. Its queue and the updates
// offered to it are shareviewer.go's; what it owes and pulls, sharepull.go's.

// modeLocked is how glass serves the viewer now (under sv.mu): "solo",
// Xvnc's own updates; "in-step", every shared update as it comes;
// "pulling", the newest pixels of what it owes when its link can take
// them.
func (sv *shareViewer) modeLocked() string {
	switch {
	case sv.solo:
		return "solo"
	case sv.synced:
		return "in-step"
	}
	return "pulling"
}

// mode is modeLocked, locking.
func (sv *shareViewer) mode() string {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.modeLocked()
}

// class is the class the viewer gets now.
func (sv *shareViewer) class() class { return class(sv.classNow.Load()) }

// status fills a viewer's link, mode and class in.
func (sv *shareViewer) status(vs *ViewerStatus) {
	sv.mu.Lock()
	mode := sv.modeLocked()
	rate, rtt := sv.pace.link()
	keeps := sv.pace.keepsUp(time.Now())
	c := sv.cls
	sv.mu.Unlock()
	vs.Mode, vs.Class, vs.Picture, vs.KeepsUp = mode, c.String(), c.picture(), keeps
	vs.RateBps, vs.LinkRTTms = rate*8, float64(rtt.Microseconds())/1e3
}

// pingRTT feeds a WebSocket ping's round trip to the pacer.
func (sv *shareViewer) pingRTT(d time.Duration) {
	sv.mu.Lock()
	sv.pace.sampleRTT(d, time.Now(), sv.pace.inflight <= pacerProbeWindow)
	sv.mu.Unlock()
}

// soloLagMax is how long, beyond the round trip, a solo viewer's updates
// may take to reach it, on average, before glass stops passing Xvnc's
// updates on whole and serves it from the framebuffer: a link that needs
// longer than that for an update does not keep up with Xvnc, and an
// update from the framebuffer can be cut to what it carries in time.
const soloLagMax = 50 * time.Millisecond

// soloLaggingLocked folds the time one of Xvnc's updates took to be
// acknowledged into the solo viewer's lag (under sv.mu), and reports
// whether it is over soloLagMax after enough updates to tell, and the
// last soloSlowAcks were each late: one late acknowledgement is a tab
// that paused a moment (a browser throttles a hidden tab), not a link
// that cannot keep up, and ending solo costs a new Xvnc connection.
func (sv *shareViewer) soloLaggingLocked(took time.Duration) bool {
	lag := max(took-sv.pace.rttOr(0), 0).Seconds()
	sv.soloAcks++
	if lag > soloLagMax.Seconds() {
		sv.soloSlow++
	} else {
		sv.soloSlow = 0
	}
	const alpha = 0.2
	sv.soloLag += alpha * (lag - sv.soloLag)
	return sv.soloAcks >= 8 && sv.soloSlow >= soloSlowAcks && sv.soloLag > soloLagMax.Seconds()
}

// soloSlowAcks is how many late acknowledgements in a row end solo.
const soloSlowAcks = 3
