//go:build race

package rfbgate

// raceEnabled: the race detector slows everything about tenfold.
const raceEnabled = true
