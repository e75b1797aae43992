// Package bench holds the workbench's Go benchmarks, all in _test.go files
// and run by make micro: the codec against github.com/fxamacker/cbor/v2
// (BenchmarkEncode, BenchmarkDecode: impl=codec|fxamacker, msg=name),
// framing (BenchmarkFrame: op=write|read|memmove|oversized, size=bytes),
// the RFB gate and relay, and sessions. Each codec benchmark prints an
// "allocations <name> <allocs per iteration> <bytes per iteration>" line
// after its result (see support.CountAllocs). The allocation budgets are
// tests beside them (budget_test.go), so plain `go test` enforces them.
// The seeded inputs live in package support.
package bench
