// Package count is the deterministic tier of the workbench: the
// instruction count of each benchmark's timed loop, taken under valgrind,
// written as Go benchmark text with the unit instructions/op beside a
// memory-aware figure, est-cycles/op, and the loop's allocs/op and B/op,
// and compared with a stored baseline.
//
// est-cycles/op (Row.Cycles) is the loop's estimated cycles under
// callgrind's cache simulation at a fixed geometry (CacheSim: the host's
// caches do not change it), weighted as iai-callgrind does (EstCycles:
// first-level hits + 5 × last-level hits + 35 × memory accesses), plus
// the collector's share of the bytes it allocates: B/op × the estimated
// cycles of one full collection, counted in the same process right after
// the row's first loop, per byte the program allocates between two
// collections (gcPerByte). At GOGC=100 a program runs a collection each
// time it has allocated as many bytes as the last one scanned (heap
// kept, stacks and globals), or, while its heap is under the runtime's
// 4 MiB least goal, when it reaches that goal; each byte carries that
// share. The heap is the benchmark's own: BenchmarkEncode and
// BenchmarkDecode hold only the message whose rows run (eachMessage in
// package bench builds each alone), so a row's charge does not grow with
// the messages listed beside it. Why so:
// instructions say our owned snapshot decode costs 1.06× the floor, time
// says 2.5-3×; the difference is memory, the fresh lines the decode
// writes (which the cache simulation charges: the count's loops get
// pages the OS zeroed, never in the cache, as a long-running program's
// allocations get memory that left the cache long ago) and the collector
// (a third of the decode's time in a profile). Counting with the
// collector on lets the wall clock decide when collections fall (1.5-4 %
// apart from process to process, and a pinned loop cannot start one);
// one forced collection a row, charged per byte, is as deterministic as
// the instruction count. What it cannot see: the host's real pipeline
// (the model charges an access a cycle, so a loop of simple instructions
// is overcharged and ratios are compressed), write barriers and assists
// during a collection, the zeroing of reused memory, page faults (the
// timed tier reports page-faults/op for those) and the collector's
// background worker on another core. reports/micro/README.md says which
// figure answers which question.
//
// How a count is taken (see Run): the bench test binary runs under
// `valgrind --tool=callgrind --instr-atstart=no` with support.CountEnv
// set, so that each timed loop (support.CountAllocs to Stop) is counted
// alone and dumped under its benchmark name and b.N. Every benchmark runs
// Rounds rounds (-test.count) of testing's two runs, b.N=1 and b.N=n, or
// more where its Class asks (fxamacker's small rows, TypeCacheSensitive);
// the first round warms pools, learned sizes and the heap, and the count
// is (min I(n) - min I(1)) / (n - 1) over the other rounds (PerOp): what the
// loop costs per iteration, with everything that runs once per loop (the
// start and stop of the count, the loop's own set-up) cancelled out.
//
// The runtime settings that make the count repeat are fixed in Env and in
// bench/support's count mode:
//   - the loops that never block (OneThread: Encode, Decode, Frame) run
//     pinned to their P, so that the scheduler cannot preempt them, and
//     are counted in their own thread alone (valgrind runs with
//     --separate-threads=yes). The runtime preempts a goroutine after
//     10 ms of wall time and its monitor thread wakes on the wall clock,
//     so a loop counted over all threads and preemptible counted more the
//     slower the host: under `yes` load the screenshot's memmove moved by
//     2 % and the snapshot_500's frame read by 1.4 %. Gate and Session
//     block on sockets and are counted unpinned over all threads;
//   - one P (GOMAXPROCS=1) and no asynchronous preemption;
//   - no collection during the loop (GOGC=off; testing collects before
//     every run, and n is kept small for the allocating loops, which
//     bounds the heap);
//   - no memory profiling (memprofilerate=0): the profiler samples an
//     allocation at random and takes its stack, thousands of instructions;
//   - the same heap before every loop: support collects and returns every
//     free page to the OS (debug.FreeOSMemory) before each counted run, so
//     that a loop's allocations get pages the OS zeroed whatever the heap's
//     history (setup code iterating maps in random order varies it from
//     process to process) and whatever the background scavenger did
//     meanwhile (its pace follows wall time); a loop that got reused pages
//     would pay their zeroing. Allocating loops are thus counted without
//     that zeroing; allocs/op and B/op stand beside every count;
//   - the x86-64 baseline code paths only (GODEBUG cpu.all=off): the
//     runtime's memmove, memclr and the like pick AVX2, ERMS or FSRM paths
//     by the host's CPU, which would make a count depend on the host;
//     valgrind 3.19 also lacks RDTSCP, which the runtime would otherwise use.
//
// What remains is per process: hash seeds are random. fxamacker's type
// caches are sync.Maps, hash tries in which a type sits a level deeper or
// shallower by the seed, each level 24 instructions a lookup: up to 1.6 %
// of its small rows, 0.5 % of its snapshot encode. Its rows
// (SeedSensitive) are therefore counted with every lookup at the top of
// its trie, the least a seed can give: valgrind dumps how often each
// instruction ran (--dump-instr=yes), which tells how many levels the
// lookups went down, and their instructions are taken out (TrieWalk, Walk,
// Levels). That takes no extra process, and every process gives the same.
//
// The heap's layout is per process too: an allocation of many pages
// searches the page allocator from the lowest free page, past the holes
// the setup left, and its cost moves with their layout, up to 0.5 % from
// process to process. The decodes that make such allocations
// (Class.HeapSensitive: ours of response_snapshot_500 and of the
// screenshot, fxamacker's of the screenshot) are counted in seven
// processes of their own and the median kept.
//
// A collector that would run during the loop is not counted in
// instructions/op: est-cycles/op charges it per allocated byte (above),
// and the allocations and bytes per op beside each count say what an
// allocating implementation leaves for the collector.
package count
