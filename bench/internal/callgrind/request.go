package callgrind

import (
	"bytes"
	"runtime"
)

// toolBase is VG_USERREQ_TOOL_BASE('C','T'), callgrind's request numbers.
const toolBase = uintptr('C')<<24 | uintptr('T')<<16

// The requests of valgrind/callgrind.h, in its order.
const (
	reqDumpStats            = toolBase + iota // VG_USERREQ__DUMP_STATS
	reqZeroStats                              // VG_USERREQ__ZERO_STATS
	reqToggleCollect                          // VG_USERREQ__TOGGLE_COLLECT
	reqDumpStatsAt                            // VG_USERREQ__DUMP_STATS_AT
	reqStartInstrumentation                   // VG_USERREQ__START_INSTRUMENTATION
	reqStopInstrumentation                    // VG_USERREQ__STOP_INSTRUMENTATION
)

// reqRunningOnValgrind is VG_USERREQ__RUNNING_ON_VALGRIND of valgrind.h.
const reqRunningOnValgrind = 0x1001

// Running reports whether the process runs under valgrind (any tool).
func Running() bool {
	args := [6]uintptr{reqRunningOnValgrind}
	return request(&args, 0) != 0
}

// Start switches callgrind's instrumentation on (a no-op when it is on)
// and zeroes its counters: what runs from here on is counted.
func Start() {
	args := [6]uintptr{reqStartInstrumentation}
	request(&args, 0)
	args[0] = reqZeroStats
	request(&args, 0)
}

// Dump writes callgrind's counters since the last Start or Dump as a dump
// whose description ends in name, then zeroes them. name is a C string:
// it ends in its first NUL byte, which it must have. Dump allocates
// nothing, so that a dump inside a counted region counts no allocation.
func Dump(name []byte) {
	if bytes.IndexByte(name, 0) < 0 {
		panic("callgrind: Dump: the name is not NUL-terminated")
	}
	args := [6]uintptr{reqDumpStatsAt, uintptr(pointer(name))}
	request(&args, 0)
	runtime.KeepAlive(name)
}

// Stop switches callgrind's instrumentation off: what runs from here on
// runs at valgrind's least slowdown and is not counted.
func Stop() {
	args := [6]uintptr{reqStopInstrumentation}
	request(&args, 0)
}
