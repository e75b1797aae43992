package rfbgate

import (
	"errors"
	"net/http"
)

// Refusals an operator watches for: tickets (and page resume credentials)
// refused at the stream upgrade, and control API or metrics calls without
// the admin token. Each is counted by its reason and logged at info with
// the client's address (clientaddr.go), never with the token.

// Ticket refusal reasons: glass_ticket_refusals_total's reason label.
const (
	refusedUnknown    = "unknown"     // never issued, or forgotten
	refusedReused     = "reused"      // presented before
	refusedExpired    = "expired"     // past its time
	refusedWrongAgent = "wrong_agent" // for another computer
)

// refusalReason names why a ticket was refused, with the JSON error code
// the upgrade answers.
func refusalReason(err error) (reason, code string) {
	switch {
	case errors.Is(err, ErrTicketReused):
		return refusedReused, "ticket_reused"
	case errors.Is(err, ErrTicketExpired):
		return refusedExpired, "ticket_expired"
	case errors.Is(err, ErrTicketWrongAgent):
		return refusedWrongAgent, "ticket_wrong_agent"
	}
	return refusedUnknown, "ticket_invalid"
}

// ticketRefused answers a refused stream upgrade with 403, and counts and
// logs it.
func (r *Relay) ticketRefused(w http.ResponseWriter, req *http.Request, err error) {
	kind := "ticket"
	if req.URL.Query().Get("ticket") == "" && req.URL.Query().Get("resume") != "" {
		kind = "resume"
	}
	reason, code := refusalReason(err)
	r.metrics.ticketRefused(kind, reason)
	r.log.Info("rfbgate: stream refused: "+err.Error(), "kind", kind, "reason", reason, "remote", r.clientAddr(req))
	writeError(w, http.StatusForbidden, code, err.Error())
}

// Reasons a call was refused for want of the admin token:
// glass_unauthorized_total's reason label.
const (
	unauthorizedMissing = "missing" // no bearer token
	unauthorizedWrong   = "wrong"   // a token that is not the admin token
)

// authorized checks req's bearer token against token; on a refusal it
// answers 401, and counts and logs it.
func (r *Relay) authorized(w http.ResponseWriter, req *http.Request, token string) bool {
	h := req.Header.Get("Authorization")
	if bearerOK(h, token) {
		return true
	}
	reason := unauthorizedWrong
	if h == "" {
		reason = unauthorizedMissing
	}
	r.metrics.unauthorized(reason)
	r.log.Info("rfbgate: call refused: no valid admin token", "reason", reason, "method", req.Method, "path", req.URL.Path, "remote", r.clientAddr(req))
	writeError(w, http.StatusUnauthorized, "unauthorized", "a bearer token is required")
	return false
}
