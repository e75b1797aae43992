//go:build race

package allocbound

// Counted is false under the race detector, whose runtime allocates for
// itself: Check counts nothing there.
const Counted = false
