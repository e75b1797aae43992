package rfbgate

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Access is what a viewer opened with a ticket may do. The caller that
// mints the ticket (the control API, with the admin token) decides; glass
// enforces what the ticket says for as long as the viewer lives, and a
// page's reconnection keeps it.
type Access string

// Accesses.
const (
	// AccessControl watches and may take the keyboard (Relay.Watch's).
	AccessControl Access = "control"
	// AccessWatch watches only: its viewer is never given the keyboard,
	// and nothing it sends reaches the computer as input, whatever it
	// sends (keys, pointer, clipboard, a take-over on its stream or
	// naming its stream through the API).
	AccessWatch Access = "watch"
)

// Grant is what a ticket opens: a viewer of one surface, with an access
// and a display name ("Ana's phone") that the page, the events and the
// status show instead of the surface id.
type Grant struct {
	Surface string
	Access  Access // AccessControl when empty
	Name    string // at most MaxNameRunes printable characters; empty: unnamed
}

// MaxNameRunes bounds a display name.
const MaxNameRunes = 64

func (g Grant) withDefaults() Grant {
	if g.Access == "" {
		g.Access = AccessControl
	}
	return g
}

// check says what is wrong with g, or nil.
func (g Grant) check() error {
	if err := checkID("surface", g.Surface); err != nil {
		return err
	}
	switch g.Access {
	case "", AccessControl, AccessWatch:
	default:
		return fmt.Errorf("access %q: want %q or %q", g.Access, AccessWatch, AccessControl)
	}
	return checkName(g.Name)
}

// checkID checks an agent, surface or stream name of the API: 1 to
// maxSurfaceLen bytes, no NUL or line break.
func checkID(what, s string) error {
	if s == "" || len(s) > maxSurfaceLen {
		return fmt.Errorf("%s must be 1 to %d printable characters", what, maxSurfaceLen)
	}
	for _, c := range s {
		if c == 0 || c == '\r' || c == '\n' {
			return fmt.Errorf("%s must be 1 to %d printable characters", what, maxSurfaceLen)
		}
	}
	return nil
}

// checkName checks a display name: valid UTF-8, at most MaxNameRunes
// characters, none of them a control or format character (no line
// breaks, no bidirectional overrides or invisible joiners that would make
// one name pass for another). Names are text: every place that shows one
// escapes it (the page sets textContent; JSON and the logs quote it).
func checkName(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > MaxNameRunes {
		return fmt.Errorf("name has %d characters; at most %d", n, MaxNameRunes)
	}
	for _, c := range s {
		if unicode.Is(unicode.Cc, c) || unicode.Is(unicode.Cf, c) {
			return fmt.Errorf("name holds the control or format character %U", c)
		}
	}
	return nil
}

// displayName is how a viewer is named to others: its name, or its
// surface when it has none.
func displayName(name, surface string) string {
	if name != "" {
		return name
	}
	return surface
}
