//go:build unix

package support

import "syscall"

// minorFaults returns the process's minor page faults so far
// (getrusage(RUSAGE_SELF).ru_minflt), or -1 when it cannot tell.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Minflt)
}
