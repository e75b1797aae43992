//go:build !unix

package support

// minorFaults returns -1: the platform has no getrusage.
func minorFaults() int64 { return -1 }
