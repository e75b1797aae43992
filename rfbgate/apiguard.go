package rfbgate

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// maxRequestBody bounds a control API request body. A longer one is refused
// with 413 "too_large".
const maxRequestBody = 4096

// originAllowed reports whether a browser origin ("scheme://host[:port]")
// may drive the relay: the relay's own origin (same host as the request's
// Host) or one matching a pattern. Patterns are matched as coder/websocket
// matches OriginPatterns, so one -origins list governs the API and the
// stream upgrade alike: case-insensitive path.Match against the origin's
// host, or against "scheme://host" when the pattern names a scheme.
func originAllowed(origin, host string, patterns []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // includes the opaque origin "null"
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, err := path.Match(strings.ToLower(p), strings.ToLower(target)); err == nil && ok {
			return true
		}
	}
	return false
}

// crossSiteRefusal says why a request from a browser on another origin is
// refused, or "" when it may proceed. A request without Origin and without
// Sec-Fetch-Site (curl, a local tool) proceeds. With an Origin, that origin
// must be allowed. Without one, Sec-Fetch-Site must be "same-origin" or
// "none" (typed into the address bar): a browser that sends the header but no
// Origin is doing a cross-origin navigation or no-cors load.
func crossSiteRefusal(req *http.Request, patterns []string) string {
	if o := req.Header.Get("Origin"); o != "" {
		if originAllowed(o, req.Host, patterns) {
			return ""
		}
		return "origin " + o + " may not use this relay (allow it with -origins)"
	}
	switch site := req.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
		return ""
	default:
		return "a " + site + " request without an allowed Origin is refused"
	}
}

// guard wraps a control API handler with, in order: the method check (405
// with Allow), the cross-origin check (403 "origin_forbidden"), the admin
// token (401) and, for POST, the JSON content type (415) and body limit.
// Every refusal is the JSON error shape.
func (h *handler) guard(method string, next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", req.Method+" "+req.URL.Path+": use "+method)
			return
		}
		if why := crossSiteRefusal(req, h.r.cfg.OriginPatterns); why != "" {
			writeError(w, http.StatusForbidden, "origin_forbidden", why)
			return
		}
		if h.opt.AdminToken != "" && !h.r.authorized(w, req, h.opt.AdminToken) {
			return
		}
		if method == http.MethodPost {
			mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be application/json")
				return
			}
			req.Body = http.MaxBytesReader(w, req.Body, maxRequestBody)
		}
		next(w, req)
	})
}

// bearerOK checks "Authorization: Bearer TOKEN"; the scheme is
// case-insensitive (RFC 9110 section 11.1), the token is compared in
// constant time.
func bearerOK(header, token string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimLeft(got, " ")), []byte(token)) == 1
}

// upgradeAllowed checks a stream upgrade before its ticket is used: that it
// is a WebSocket upgrade and that its origin is allowed. It writes the JSON
// error and reports false on refusal (so coder/websocket's plain-text
// refusals are never reached for these cases).
func (r *Relay) upgradeAllowed(w http.ResponseWriter, req *http.Request) bool {
	if !headerHasToken(req.Header, "Connection", "upgrade") || !headerHasToken(req.Header, "Upgrade", "websocket") {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "websocket")
		writeError(w, http.StatusUpgradeRequired, "upgrade_required", "this endpoint is a WebSocket (RFB, subprotocol binary)")
		return false
	}
	if req.Header.Get("Sec-WebSocket-Key") == "" {
		writeError(w, http.StatusBadRequest, "bad_websocket_key", "Sec-WebSocket-Key is missing")
		return false
	}
	if req.Header.Get("Sec-WebSocket-Version") != "13" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		writeError(w, http.StatusBadRequest, "bad_websocket_version", "WebSocket version 13 is required")
		return false
	}
	if o := req.Header.Get("Origin"); o != "" && !originAllowed(o, req.Host, r.cfg.OriginPatterns) {
		writeError(w, http.StatusForbidden, "origin_forbidden", "origin "+o+" may not open streams (allow it with -origins)")
		return false
	}
	return true
}

// headerHasToken reports whether a comma-separated header holds token
// (case-insensitive).
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
