// Package benchcount is the deterministic tier of the workbench: the
// instruction count of each benchmark's timed loop, taken under valgrind,
// written as Go benchmark text with the unit instructions/op beside the
// loop's allocs/op and B/op, and compared with a stored baseline.
//
// How a count is taken (see Run): the bench test binary runs under
// `valgrind --tool=callgrind --instr-atstart=no` with support.CountEnv
// set, so that each timed loop (support.CountAllocs to Stop) is counted
// alone and dumped under its benchmark name and b.N. Every benchmark runs
// two rounds (-test.count=2) of testing's two runs, b.N=1 and b.N=n; the
// first round warms pools, learned sizes and the heap, and the count is
// the second round's (I(n) - I(1)) / (n - 1): what the loop costs per
// iteration, with everything that runs once per loop (the start and stop
// of the count, the loop's own set-up) cancelled out.
//
// The runtime settings that make the count repeat are fixed in Env:
// one P, no collection during the loop (GOGC=off; testing collects before
// every run, and the heap stays bounded because n is kept small for the
// allocating loops, with GOMEMLIMIT as a backstop), no asynchronous
// preemption, and the x86-64 baseline code paths only (GODEBUG
// cpu.all=off: the runtime's memmove, memclr and the like pick AVX2,
// ERMS or FSRM paths by the host's CPU, which would make a count depend
// on the host; valgrind 3.19 also lacks RDTSCP, which the runtime would
// otherwise use). A
// collector that would run during the loop is thereby not counted: the
// allocations and bytes per op beside each count say what an allocating
// implementation leaves for the collector.
package benchcount
