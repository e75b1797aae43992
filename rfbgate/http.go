package rfbgate

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxSurfaceLen bounds agent and surface names in API requests.
const maxSurfaceLen = 128

// HandlerOptions configures the HTTP surface.
type HandlerOptions struct {
	// AdminToken, if set, is required as "Authorization: Bearer TOKEN" on
	// the control API (/v1/tools/..., /v1/computers/..., /v1/events). The
	// stream upgrade is authorised by its ticket alone.
	AdminToken string
	// NoVNCDir, if set, is a noVNC 1.7 package directory (node_modules/
	// @novnc/novnc) whose files the viewer page loads (at /glass/novnc/)
	// instead of the copy vendored into glass.
	NoVNCDir string
}

//go:embed viewer.html
var viewerPage []byte

// NewHandler returns the relay's HTTP surface:
//
//	POST /v1/tools/computers.watch      {"agent","surface"[,"access","name"]} -> {"ticket","expires_at","stream","access","name","link"}
//	POST /v1/tools/computers.takeover   {"agent","surface"[,"stream"]} -> {"expires_at","ttl_ms","stream","clipboard"}
//	POST /v1/tools/computers.renew      {"agent","surface"[,"stream"]} -> {"expires_at","ttl_ms"}
//	POST /v1/tools/computers.giveback   {"agent","surface"} -> {}
//	GET  /v1/computers                  -> {"computers":[{"name","computer","computer_reason"}]}
//	GET  /v1/computers/NAME             -> {"keyboard","keyboard_stream","keyboard_since","viewers","computer","computer_reason","lease_ttl_ms","lease_grace_ms"}
//	GET  /v1/events                     server-sent lease events
//	GET  /v1/streams/computers/glass?ticket=T   WebSocket (RFB)
//	GET  /healthz                       {"status":"ok"}, with no token
//	GET  /glass/                        the viewer page; noVNC's files at /glass/novnc/
//	GET  /                              a redirect to /glass/
//
// computers.watch mints a one-use ticket: access "control" (the default)
// may take the keyboard, "watch" never can; name is the display name the
// page, the events and the status show for the viewer. Its link is the
// viewer page's address with the ticket (relative to glass).
//
// A take-over or renewal needs an open viewer of the surface (409
// "no_viewer" otherwise), which is not watch-only (403 "watch_only"). The keyboard always goes to one viewer stream:
// the one named (the stream computers.watch returned), or, when the
// take-over names none, the newest open viewer of the surface; the answer
// says which. So of two tabs of one surface only one types, whoever calls.
// When the holding viewer closes, the keyboard is handed back after
// Config.LeaseGrace unless the surface opens a viewer again.
//
// The tools take only application/json bodies of at most maxRequestBody
// bytes; a browser request from an origin that is neither the relay's own
// nor allowed by Config.OriginPatterns is refused (403 "origin_forbidden"),
// so a page on another site cannot move the keyboard. A wrong method gets
// 405 with Allow. Errors are JSON {"error": CODE, "message": TEXT}.
func NewHandler(r *Relay, opt HandlerOptions) http.Handler {
	h := &handler{r: r, opt: opt}
	mux := http.NewServeMux()
	mux.Handle("/v1/tools/computers.watch", h.guard(http.MethodPost, h.watch))
	mux.Handle("/v1/tools/computers.takeover", h.guard(http.MethodPost, h.takeover))
	mux.Handle("/v1/tools/computers.renew", h.guard(http.MethodPost, h.renew))
	mux.Handle("/v1/tools/computers.giveback", h.guard(http.MethodPost, h.giveback))
	mux.Handle("/v1/computers", h.guard(http.MethodGet, h.list))
	mux.Handle("/v1/computers/{name}", h.guard(http.MethodGet, h.status))
	mux.Handle("/v1/events", h.guard(http.MethodGet, h.events))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/v1/streams/computers/glass", func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "the stream is a WebSocket upgrade (GET)")
			return
		}
		r.ServeStream(w, req)
	})
	mux.HandleFunc("GET /glass/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(viewerPage)
	})
	mux.Handle("GET /glass/novnc/", http.StripPrefix("/glass/novnc/", filesOnly(noVNCFiles(opt.NoVNCDir))))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "/glass/", http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	})
	return mux
}

type handler struct {
	r   *Relay
	opt HandlerOptions
}

// writeError writes the JSON error shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	json.NewEncoder(w).Encode(v)
}

type target struct {
	Agent   string `json:"agent"`
	Surface string `json:"surface"`
	Stream  string `json:"stream,omitempty"` // optional: the viewer stream (take-over, renewal)
}

// watchRequest is computers.watch's body.
type watchRequest struct {
	Agent   string `json:"agent"`
	Surface string `json:"surface"`
	Access  Access `json:"access,omitempty"`
	Name    string `json:"name,omitempty"`
}

// readBody decodes the request's JSON object into v, refusing unknown
// fields and anything after it; it writes the error (what says what the
// body must be).
func readBody(w http.ResponseWriter, req *http.Request, v any, what string) bool {
	raw, err := io.ReadAll(req.Body) // bounded by guard's MaxBytesReader
	if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the body is over %d bytes", maxRequestBody))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err == nil {
		err = dec.Decode(v)
	}
	if err == nil && dec.More() {
		err = errors.New("data after the object")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("body must be %s: %v", what, err))
		return false
	}
	return true
}

// checkTarget checks the agent, surface and (optional) stream of a
// request; it writes the error.
func (h *handler) checkTarget(w http.ResponseWriter, agent, surface, stream string) bool {
	if len(stream) > maxSurfaceLen || strings.ContainsAny(stream, "\x00\r\n") {
		writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("stream must be at most %d printable characters", maxSurfaceLen))
		return false
	}
	for _, err := range []error{checkID("agent", agent), checkID("surface", surface)} {
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", err.Error())
			return false
		}
	}
	if !h.r.Known(agent) {
		writeError(w, http.StatusNotFound, "unknown_computer", "no computer named "+agent)
		return false
	}
	return true
}

// readTarget decodes and checks {"agent","surface"[,"stream"]}; it writes
// the error.
func (h *handler) readTarget(w http.ResponseWriter, req *http.Request) (target, bool) {
	var t target
	if !readBody(w, req, &t, `{"agent": NAME, "surface": ID}`) || !h.checkTarget(w, t.Agent, t.Surface, t.Stream) {
		return t, false
	}
	return t, true
}

func (h *handler) watch(w http.ResponseWriter, req *http.Request) {
	var t watchRequest
	if !readBody(w, req, &t, `{"agent": NAME, "surface": ID[, "access": "watch" | "control", "name": TEXT]}`) || !h.checkTarget(w, t.Agent, t.Surface, "") {
		return
	}
	g := Grant{Surface: t.Surface, Access: t.Access, Name: t.Name}
	if err := g.check(); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	tk, err := h.r.Issue(t.Agent, g)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "ticket_unavailable", err.Error())
		return
	}
	writeJSON(w, map[string]string{"ticket": tk.Token, "expires_at": tk.ExpiresAt.UTC().Format(time.RFC3339), "stream": streamID(tk.Token),
		"access": string(tk.Access), "name": tk.Name, "link": ticketLink(tk)})
}

// ticketLink is the viewer page's address (relative to glass) that opens
// tk: the ticket rides in the fragment, which the browser never sends in
// a request, and the page takes it out of its address at once.
func ticketLink(tk Ticket) string {
	return "/glass/?agent=" + url.QueryEscape(tk.Agent) + "#ticket=" + tk.Token
}

// leaseRefused writes the refusal of a take-over or renewal.
func leaseRefused(w http.ResponseWriter, t target, err error) {
	switch {
	case errors.Is(err, ErrWatchOnly):
		writeError(w, http.StatusForbidden, "watch_only", "the viewer of surface "+t.Surface+" was opened with a watch-only ticket: it can never take the keyboard")
	case errors.Is(err, ErrNoViewer):
		writeError(w, http.StatusConflict, "no_viewer", "surface "+t.Surface+" has no open viewer of "+t.Agent+": the keyboard goes only to an open viewer")
	default:
		writeError(w, http.StatusConflict, "not_holder", "surface "+t.Surface+" does not hold the keyboard of "+t.Agent)
	}
}

func (h *handler) takeover(w http.ResponseWriter, req *http.Request) {
	h.lease(w, req, h.r.takeOver, true)
}

func (h *handler) renew(w http.ResponseWriter, req *http.Request) {
	h.lease(w, req, func(agent, surface, stream string) (time.Time, string, error) {
		exp, err := h.r.Renew(agent, surface, stream)
		return exp, stream, err
	}, false)
}

// lease runs do (a take-over or a renewal) for the target the request
// names and answers it; withClipboard makes it a take-over's answer, which
// names the stream given the keyboard and carries the computer's clipboard.
func (h *handler) lease(w http.ResponseWriter, req *http.Request, do func(agent, surface, stream string) (time.Time, string, error), withClipboard bool) {
	t, ok := h.readTarget(w, req)
	if !ok {
		return
	}
	exp, stream, err := do(t.Agent, t.Surface, t.Stream)
	if err != nil {
		leaseRefused(w, t, err)
		return
	}
	m := map[string]any{"expires_at": exp.UTC().Format(time.RFC3339Nano), "ttl_ms": h.r.leases.TTL().Milliseconds()}
	if withClipboard {
		// A take-over's answer: the stream that holds the keyboard (the one
		// named, or the newest open viewer of the surface), and the
		// computer's clipboard as glass last saw it (absent when glass has
		// not seen its current text).
		m["stream"] = stream
		if clip := h.r.clipboardFor(t.Agent, t.Surface, stream); clip != nil {
			m["clipboard"] = *clip
		}
	}
	writeJSON(w, m)
}

func (h *handler) giveback(w http.ResponseWriter, req *http.Request) {
	t, ok := h.readTarget(w, req)
	if !ok {
		return
	}
	if err := h.r.GiveBack(t.Agent, t.Surface); errors.Is(err, ErrNotHolder) {
		writeError(w, http.StatusConflict, "not_holder", "surface "+t.Surface+" does not hold the keyboard of "+t.Agent)
		return
	}
	writeJSON(w, struct{}{})
}

func (h *handler) status(w http.ResponseWriter, req *http.Request) {
	st, err := h.r.Status(req.PathValue("name"))
	if err != nil {
		writeError(w, http.StatusNotFound, "unknown_computer", "no computer named "+req.PathValue("name"))
		return
	}
	writeJSON(w, struct {
		ComputerStatus
		LeaseTTLms   int64 `json:"lease_ttl_ms"`
		LeaseGraceMs int64 `json:"lease_grace_ms"`
	}{st, h.r.leases.TTL().Milliseconds(), h.r.cfg.LeaseGrace.Milliseconds()})
}

// list names the computers a page may open, with their state.
func (h *handler) list(w http.ResponseWriter, _ *http.Request) {
	type entry struct {
		Name string `json:"name"`
		Health
	}
	out := struct {
		Computers []entry `json:"computers"`
	}{Computers: []entry{}}
	for _, n := range h.r.Names() {
		out.Computers = append(out.Computers, entry{n, h.r.health(n)})
	}
	writeJSON(w, out)
}

// eventBuffer is how many events an /v1/events stream may fall behind
// before it is ended with a "dropped" event.
const eventBuffer = 64

// eventDropped is the last event of an /v1/events stream that fell
// eventBuffer events behind: it missed events, and ends.
const eventDropped = "dropped"

// events streams lease events as server-sent events until the client goes.
func (h *handler) events(w http.ResponseWriter, req *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "no_streaming", "the server cannot stream")
		return
	}
	ch, cancel := h.r.leases.Subscribe(eventBuffer)
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": lease events\n\n")
	fl.Flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-req.Context().Done():
			return
		case <-h.r.ctx.Done():
			return
		case <-keep.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
		case ev, ok := <-ch:
			if !ok { // fell behind: say so and end; the client reconnects and re-reads the status
				fmt.Fprintf(w, "event: %s\ndata: {\"type\":%q,\"message\":\"this stream fell %d events behind and missed some; reconnect and read the status\"}\n\n", eventDropped, eventDropped, eventBuffer)
				fl.Flush()
				return
			}
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Type, b)
			fl.Flush()
		}
	}
}
