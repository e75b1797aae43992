package codec

import (
	"math/bits"
	"strconv"
	"strings"
)

// Capabilities is the agent's capability bitmask. Bits this version does
// not define survive a round trip.
type Capabilities uint32

// The capability bits of docs/protocol.md section 3.
const (
	CapTree       Capabilities = 1 << 0 // snapshot
	CapInput      Capabilities = 1 << 1 // tap, long_press, swipe, key, type_text
	CapScreenshot Capabilities = 1 << 2 // screenshot
	CapFrames     Capabilities = 1 << 3 // frames_start, frames_stop
	CapEvents     Capabilities = 1 << 4 // resync and the tree stream
	CapTextSet    Capabilities = 1 << 5 // set_text
	CapBounds     Capabilities = 1 << 6 // bounds

	// CapAll is every capability this version defines.
	CapAll = CapTree | CapInput | CapScreenshot | CapFrames | CapEvents | CapTextSet | CapBounds
)

var capNames = [...]string{"tree", "input", "screenshot", "frames", "events", "text_set", "bounds"}

// Has reports whether every bit of c2 is set in c.
func (c Capabilities) Has(c2 Capabilities) bool { return c&c2 == c2 }

// Names lists the set bits by name, unknown bits as "bit N".
func (c Capabilities) Names() []string {
	var out []string
	for v := uint32(c); v != 0; v &= v - 1 {
		i := bits.TrailingZeros32(v)
		if i < len(capNames) {
			out = append(out, capNames[i])
		} else {
			out = append(out, "bit "+strconv.Itoa(i))
		}
	}
	return out
}

// String lists the set bits joined with "|", or "none".
func (c Capabilities) String() string {
	if c == 0 {
		return "none"
	}
	return strings.Join(c.Names(), "|")
}

// ParseCapability returns the capability bit named s ("tree", ..., or
// "bit N").
func ParseCapability(s string) (Capabilities, bool) {
	for i, n := range capNames {
		if n == s {
			return 1 << i, true
		}
	}
	if rest, ok := strings.CutPrefix(s, "bit "); ok {
		if i, err := strconv.Atoi(rest); err == nil && i >= 0 && i < 32 {
			return 1 << i, true
		}
	}
	return 0, false
}
