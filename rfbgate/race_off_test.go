//go:build !race

package rfbgate

const raceEnabled = false
