package rfbgate

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/wirebench/wirebench/internal/rfb"
)

// relayMetrics is a relay's Prometheus metrics, in a registry of its own
// (so many relays can live in one process, as in the tests). Events are
// counted as they happen; the per-byte and per-message counters are the
// viewers' own (atomics, the gate's and the filter's stats) and are summed
// at scrape time, with the totals of closed viewers folded in, so the hot
// paths pay nothing for them.
type relayMetrics struct {
	reg *prometheus.Registry

	opened        *prometheus.CounterVec
	closes        *prometheus.CounterVec
	writeTimeouts *prometheus.CounterVec
	rtt           *prometheus.HistogramVec
	leaseChanges  *prometheus.CounterVec
	dialAttempts  *prometheus.CounterVec
	ticketRefuse  *prometheus.CounterVec
	unauth        *prometheus.CounterVec

	mu     sync.Mutex
	closed map[string]*viewerTotals // by computer: viewers gone, and refusals
}

// viewerTotals is what viewers of one computer counted.
type viewerTotals struct {
	toViewer, toComputer, withheld, messages uint64
	passed, dropped, refused                 [256]uint64
	rects                                    [rfb.NumKinds]uint64 // rectangles framed, by kind
}

// add adds one open viewer's counters (under v.mu for its gate).
func (t *viewerTotals) add(v *viewer) {
	t.toViewer += v.toViewer.Load()
	t.toComputer += v.toComputer.Load()
	t.withheld += v.withheld.Load()
	t.messages += v.messages.Load()
	v.mu.Lock()
	st := &v.gate.stats
	for i := range st.PassedByType {
		t.passed[i] += st.PassedByType[i]
		t.dropped[i] += st.DroppedByType[i]
	}
	v.mu.Unlock()
	for k, n := range v.rects.Load() {
		t.rects[k] += n
	}
}

// merge adds o's counters to t.
func (t *viewerTotals) merge(o *viewerTotals) {
	t.toViewer += o.toViewer
	t.toComputer += o.toComputer
	t.withheld += o.withheld
	t.messages += o.messages
	for i := range t.passed {
		t.passed[i] += o.passed[i]
		t.dropped[i] += o.dropped[i]
		t.refused[i] += o.refused[i]
	}
	for k := range t.rects {
		t.rects[k] += o.rects[k]
	}
}

// Metric descriptions of the scrape-time collector.
var (
	descViewers = prometheus.NewDesc("glass_viewers", "Open viewers, by computer and role (holder: its input reaches the computer; watcher).",
		[]string{"computer", "role"}, nil)
	descBytes = prometheus.NewDesc("glass_bytes_total", "Bytes relayed: to_viewer is WebSocket payload sent to browsers, to_computer is bytes written to Xvnc.",
		[]string{"computer", "direction"}, nil)
	descClientMsgs = prometheus.NewDesc("glass_client_messages_total", "Browser RFB messages by type and the gate's verdict: passed, dropped (the viewer may not type, or over a limit) or refused (the viewer was closed with 1008).",
		[]string{"computer", "type", "verdict"}, nil)
	descWithheld = prometheus.NewDesc("glass_server_messages_withheld_total", "Server messages withheld from viewers without the keyboard (clipboard), counted once per viewer.",
		[]string{"computer", "type"}, nil)
	descMessages = prometheus.NewDesc("glass_viewer_messages_total", "WebSocket messages sent to viewers: each carries what Xvnc had ready, up to 1 MiB (glass_bytes_total{direction=\"to_viewer\"} over this is the batch size).",
		[]string{"computer"}, nil)
	descRects = prometheus.NewDesc("glass_rects_total", "Framebuffer rectangles relayed to viewers (each viewer counted), by encoding (raw, copyrect, zrle, tight, pseudo) and, for Tight, kind: fill, jpeg, or zlib pixels by filter (copy, palette, gradient).",
		[]string{"computer", "encoding", "kind"}, nil)
	descDialWaits = prometheus.NewDesc("glass_dial_limiter_waits_total", "Viewers that waited in line for a handshake slot with the computer's Xvnc.",
		[]string{"computer"}, nil)
	descDialTurnedAway = prometheus.NewDesc("glass_dial_turned_away_total", "Viewers closed with 1013 before reaching Xvnc: queue_full, or deadline (not connected within the dial wait).",
		[]string{"computer", "reason"}, nil)
	descClassViewers = prometheus.NewDesc("glass_viewers_by_class", "Open shared viewers by the quality class glass sends them in (lossless, raw, or q0 to q9, the JPEG quality level) and how it serves them: solo (Xvnc's own updates), in-step (every shared update as it comes) or pulling (the newest pixels of what they owe, when their link can take them).",
		[]string{"computer", "class", "mode"}, nil)
	descLinkRate = prometheus.NewDesc("glass_viewer_link_rate_bits", "Open shared viewers' link rates, as glass measures them from their own requests for updates, in bits a second (a viewer whose link keeps up counts with what the screen needed of it).",
		[]string{"computer"}, nil)
	descComputerUp = prometheus.NewDesc("glass_computer_up", "1 if glass's last handshake with the computer's Xvnc succeeded and its screen stream has not ended since, else 0 (down, or not dialled yet).",
		[]string{"computer"}, nil)
)

func newRelayMetrics(r *Relay) *relayMetrics {
	m := &relayMetrics{reg: prometheus.NewRegistry(), closed: make(map[string]*viewerTotals)}
	m.opened = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_viewers_opened_total",
		Help: "Viewers that completed the handshake and were counted open."}, []string{"computer"})
	m.closes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_viewer_closes_total",
		Help: "Viewers closed, by the WebSocket close code sent (1006: the connection was lost, none sent)."}, []string{"computer", "code"})
	m.writeTimeouts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_write_timeout_drops_total",
		Help: "Viewers dropped because a write to them took longer than the write timeout (they stopped reading)."}, []string{"computer"})
	m.rtt = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "glass_ping_rtt_seconds",
		Help:    "Round trip of the relay's WebSocket pings to viewers (queued behind screen data on a busy link).",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"computer"})
	m.leaseChanges = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_lease_changes_total",
		Help: "Keyboard lease changes, by cause: take-over, give-back, expiry, viewer-closed (the holder's viewer gone), reopened (a reload keeping it)."}, []string{"computer", "cause"})
	m.dialAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_dial_attempts_total",
		Help: "Handshakes the relay tried with a computer's Xvnc, by result (ok, or why it failed)."}, []string{"computer", "result"})
	m.ticketRefuse = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_ticket_refusals_total",
		Help: "Stream upgrades refused for their ticket (kind ticket) or a page's resume credential (kind resume), by reason: unknown, reused, expired, wrong_agent."}, []string{"kind", "reason"})
	m.unauth = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glass_unauthorized_total",
		Help: "Control API and metrics calls refused with 401, by reason: missing (no bearer token) or wrong (not the admin token)."}, []string{"reason"})
	for _, kind := range []string{"ticket", "resume"} {
		for _, reason := range []string{refusedUnknown, refusedReused, refusedExpired, refusedWrongAgent} {
			m.ticketRefuse.WithLabelValues(kind, reason)
		}
	}
	m.unauth.WithLabelValues(unauthorizedMissing)
	m.unauth.WithLabelValues(unauthorizedWrong)
	for name := range r.computers {
		m.opened.WithLabelValues(name)
		m.writeTimeouts.WithLabelValues(name)
		m.dialAttempts.WithLabelValues(name, dialOK)
		m.closed[name] = &viewerTotals{}
	}
	m.reg.MustRegister(m.opened, m.closes, m.writeTimeouts, m.rtt, m.leaseChanges, m.dialAttempts, m.ticketRefuse, m.unauth,
		&relayCollector{r: r, m: m},
		collectors.NewBuildInfoCollector(),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *relayMetrics) viewerOpened(agent string) { m.opened.WithLabelValues(agent).Inc() }

// viewerClosed counts a close of agent's viewer and folds its final
// counters into the computer's totals. Called under Relay.mu with the
// viewer leaving the viewer set, so a scrape counts it either open or
// closed, never both.
func (m *relayMetrics) viewerClosed(agent string, code websocket.StatusCode, final *viewerTotals) {
	m.closes.WithLabelValues(agent, strconv.Itoa(int(code))).Inc()
	m.mu.Lock()
	m.closed[agent].merge(final)
	m.mu.Unlock()
}

func (m *relayMetrics) refused(agent string, typ uint8) {
	m.mu.Lock()
	m.closed[agent].refused[typ]++
	m.mu.Unlock()
}

func (m *relayMetrics) writeTimeout(agent string) { m.writeTimeouts.WithLabelValues(agent).Inc() }

func (m *relayMetrics) ticketRefused(kind, reason string) {
	m.ticketRefuse.WithLabelValues(kind, reason).Inc()
}

func (m *relayMetrics) unauthorized(reason string) { m.unauth.WithLabelValues(reason).Inc() }

func (m *relayMetrics) pingRTT(agent string, d time.Duration) {
	m.rtt.WithLabelValues(agent).Observe(d.Seconds())
}

// leaseChanged counts a lease change by cause (leaseCause). A take-over
// from another surface is one change: its "moved" hand-back, cause "", is
// not counted again.
func (m *relayMetrics) leaseChanged(agent, cause string) {
	if cause == "" {
		return
	}
	m.leaseChanges.WithLabelValues(agent, cause).Inc()
}

// leaseCause names a lease event's cause for metrics and logs; "" for the
// hand-back half of a take-over.
func leaseCause(ev leaseEvent) string {
	switch {
	case ev.Reason == reasonReopened:
		return reasonReopened // a reload's stream adopting the keyboard, not a take-over
	case ev.Type == eventTakenOver:
		return "take-over"
	}
	switch ev.Reason {
	case reasonMoved:
		return ""
	case reasonGiveBack:
		return "give-back"
	case reasonExpired:
		return "expiry"
	}
	return ev.Reason
}

// dialAttempt counts one handshake attempt with agent's Xvnc by result
// (dialResult).
func (m *relayMetrics) dialAttempt(agent, result string) {
	m.dialAttempts.WithLabelValues(agent, result).Inc()
}

// relayCollector reports, at scrape time, what the open viewers and the
// dial limiters count.
type relayCollector struct {
	r *Relay
	m *relayMetrics
}

// Describe sends the collector's descriptions.
func (c *relayCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descViewers, descBytes, descMessages, descClientMsgs, descWithheld, descRects, descDialWaits, descDialTurnedAway, descComputerUp,
		descClassViewers, descLinkRate} {
		ch <- d
	}
}

// Collect sums closed viewers' totals and the open viewers' counters.
func (c *relayCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.r
	// Copy the totals and the open viewers together (under Relay.mu, as
	// viewerClosed folds), then read the viewers: one that closes meanwhile
	// is counted once, from its own counters.
	r.mu.Lock()
	open := make(map[string][]*viewer, len(r.computers))
	for agent, set := range r.viewers {
		for v := range set {
			open[agent] = append(open[agent], v)
		}
	}
	c.m.mu.Lock()
	totals := make(map[string]viewerTotals, len(c.m.closed))
	for agent, t := range c.m.closed {
		totals[agent] = *t
	}
	c.m.mu.Unlock()
	r.mu.Unlock()

	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for agent, t := range totals {
		holders, watchers := 0, 0
		for _, v := range open[agent] {
			t.add(v)
			if v.gate.HasKeyboard() {
				holders++
			} else {
				watchers++
			}
		}
		ch <- prometheus.MustNewConstMetric(descViewers, prometheus.GaugeValue, float64(holders), agent, roleHolder)
		ch <- prometheus.MustNewConstMetric(descViewers, prometheus.GaugeValue, float64(watchers), agent, roleWatcher)
		counter(descBytes, t.toViewer, agent, "to_viewer")
		counter(descBytes, t.toComputer, agent, "to_computer")
		counter(descMessages, t.messages, agent)
		counter(descWithheld, t.withheld, agent, "ServerCutText")
		for typ := range 256 {
			for _, vc := range []struct {
				verdict string
				n       uint64
			}{{"passed", t.passed[typ]}, {"dropped", t.dropped[typ]}, {"refused", t.refused[typ]}} {
				if vc.n > 0 {
					counter(descClientMsgs, vc.n, agent, messageName(uint8(typ)), vc.verdict)
				}
			}
		}
		for k, n := range t.rects {
			if n > 0 {
				counter(descRects, n, agent, rectKindLabels[k][0], rectKindLabels[k][1])
			}
		}
		up := 0.0
		if r.health(agent).State == stateUp {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(descComputerUp, prometheus.GaugeValue, up, agent)
		collectLinks(ch, agent, open[agent])
		ds := r.DialStats(agent)
		counter(descDialWaits, uint64(ds.Waits), agent)
		counter(descDialTurnedAway, uint64(ds.QueueFull), agent, "queue_full")
		counter(descDialTurnedAway, uint64(ds.Expired), agent, "deadline")
	}
}

// linkRateBuckets are glass_viewer_link_rate_bits' buckets: a phone's
// 256 kbit/s to a LAN's gigabit.
var linkRateBuckets = []float64{256e3, 512e3, 1e6, 2e6, 5e6, 10e6, 20e6, 50e6, 100e6, 1e9}

// collectLinks reports agent's shared viewers by class and mode, and the
// distribution of their link rates.
func collectLinks(ch chan<- prometheus.Metric, agent string, vs []*viewer) {
	type key struct{ class, mode string }
	counts := map[key]int{}
	buckets := make(map[float64]uint64, len(linkRateBuckets))
	var n uint64
	var sum float64
	for _, v := range vs {
		if v.share == nil {
			continue
		}
		var st ViewerStatus
		v.share.status(&st)
		counts[key{st.Class, st.Mode}]++
		if st.RateBps <= 0 {
			continue
		}
		n++
		sum += st.RateBps
		for _, b := range linkRateBuckets {
			if st.RateBps <= b {
				buckets[b]++
			}
		}
	}
	for k, c := range counts {
		ch <- prometheus.MustNewConstMetric(descClassViewers, prometheus.GaugeValue, float64(c), agent, k.class, k.mode)
	}
	ch <- prometheus.MustNewConstHistogram(descLinkRate, n, sum, buckets, agent)
}

// MetricsHandler serves the relay's metrics in the Prometheus text format
// (GET /metrics). It is guarded as the control API is, and more: with a
// token, every request needs "Authorization: Bearer TOKEN"; without one,
// only requests from a loopback address are served. A browser request from
// another origin is refused as on the control API.
func (r *Relay) MetricsHandler(token string) http.Handler {
	h := promhttp.HandlerFor(r.metrics.reg, promhttp.HandlerOpts{ErrorLog: slogPromLogger{r}})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", req.Method+" "+req.URL.Path+": use GET")
			return
		}
		if why := crossSiteRefusal(req, r.cfg.OriginPatterns); why != "" {
			writeError(w, http.StatusForbidden, "origin_forbidden", why)
			return
		}
		if token != "" {
			if !r.authorized(w, req, token) {
				return
			}
		} else if !fromLoopback(r.clientAddr(req)) {
			writeError(w, http.StatusForbidden, "loopback_only", "without an admin token the metrics are served to loopback clients only")
			return
		}
		h.ServeHTTP(w, req)
	})
}

// slogPromLogger sends promhttp's errors to the relay's log.
type slogPromLogger struct{ r *Relay }

// Println logs one promhttp error.
func (l slogPromLogger) Println(v ...any) {
	l.r.log.Warn("rfbgate: serving metrics", "err", fmt.Sprint(v...))
}
