// Package callgrind issues Valgrind client requests to the callgrind tool
// from Go, so that a benchmark can have valgrind count the instructions of
// its timed loop alone: Start switches instrumentation on and zeroes the
// counters right before the loop, Dump writes the counters under a name
// and Stop switches instrumentation off after it. make micro-count (see
// mk/count.mk) runs the benchmark binaries under
// `valgrind --tool=callgrind --instr-atstart=no` and reads the dumps.
//
// Outside valgrind a client request is a handful of instructions that
// leave every register as it was (the magic sequence of valgrind.h), so
// the calls are harmless in a plain run. On other architectures than
// amd64 they do nothing.
//
// Valgrind 3.19 (Debian 12) gives cachegrind no client requests (they came
// in 3.22), so the workbench counts with callgrind, valgrind's other
// instruction counter: without its cache simulation it counts the same
// instructions (Ir) cachegrind does.
package callgrind
