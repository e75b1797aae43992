// Package bench holds the workbench's Go benchmarks, all in _test.go files
// and run by make micro (timed) and make micro-count (instruction counts):
// the codec against github.com/fxamacker/cbor/v2 and github.com/tinylib/msgp
// (both through the one set of twins of package twins) and the floor
// (package floor) (BenchmarkEncode, BenchmarkDecode:
// impl=codec|zerocopy|fxamacker|msgp|floor, msg=name),
// framing (BenchmarkFrame: op=write|read|memmove|oversized, msg=name),
// the RFB gate and relay, and sessions. Each codec benchmark prints an
// "allocations <name> <allocs per iteration> <bytes per iteration>" line
// after its result (see support.CountAllocs). The allocation budgets are
// tests beside them (budget_test.go), so plain `go test` enforces them.
// The seeded inputs live in package support.
package bench
