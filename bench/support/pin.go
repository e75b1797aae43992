package support

import (
	_ "unsafe" // go:linkname

	"github.com/wirebench/wirebench/bench/count"
)

// In a count, a loop that never blocks runs pinned to its P (the
// runtime's procPin, as sync.Pool pins itself): the scheduler cannot
// preempt it. Unpinned, the runtime's monitor thread (sysmon) asks a
// goroutine that has run 10 ms of wall time to yield (asynchronous
// preemption is off in a count, so it yields at its next function call),
// and the scheduler then runs, on the counted thread, whatever other
// goroutine is ready: the sweeper, the scavenger and the work-buffer
// freeing the collection before the loop woke. How often that happens
// follows the wall clock, which valgrind stretches and a loaded host
// stretches more: one such yield added 1.6 k to 3.3 k instructions to a
// loop of 1.6 M, and the Frame rows of the snapshot_500 and the screenshot
// moved by up to 1.4 % between a quiet and a loaded run. Pinned, the
// request costs the loop a stack check that finds it cannot yield (tens
// of instructions) and nothing else runs.
//
// A pinned goroutine must not block (the scheduler throws "holding
// locks"), so only the benchmarks whose loops never block are pinned
// (count.OneThread: the codec's encode, decode and frame loops), and
// their count is the pinned thread's alone. Gate and Session move bytes
// through sockets and other goroutines, and are counted unpinned.

// pinLoop reports whether the loop of the benchmark of full name runs
// pinned in a count.
func pinLoop(name string) bool { return counting && count.OneThread.MatchString(name) }

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
