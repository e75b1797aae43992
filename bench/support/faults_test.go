//go:build linux

package support

import (
	"syscall"
	"testing"
)

// TestPageFaultsPerOp: every counted loop reports its minor page faults
// per iteration; a loop that maps fresh anonymous memory and touches each
// of its pages faults at least once a page, one that only computes does
// not fault every iteration.
func TestPageFaultsPerOp(t *testing.T) {
	const pages = 64
	size := pages * syscall.Getpagesize()
	mapping := testing.Benchmark(func(b *testing.B) {
		c := CountAllocs(b)
		for i := 0; i < b.N; i++ {
			m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
			if err != nil {
				b.Fatal(err)
			}
			for p := 0; p < size; p += syscall.Getpagesize() {
				m[p] = 1
			}
			if err := syscall.Munmap(m); err != nil {
				b.Fatal(err)
			}
		}
		c.Stop()
	})
	got, ok := mapping.Extra[UnitFaults]
	if !ok {
		t.Fatalf("no %s in %v", UnitFaults, mapping.Extra)
	}
	if got < pages {
		t.Errorf("%v %s for a loop touching %d fresh pages an op", got, UnitFaults, pages)
	}
	sum := 0
	computing := testing.Benchmark(func(b *testing.B) {
		c := CountAllocs(b)
		for i := 0; i < b.N; i++ {
			sum += i * i
		}
		c.Stop()
	})
	if got := computing.Extra[UnitFaults]; got >= 1 {
		t.Errorf("%v %s for a loop that touches no new memory", got, UnitFaults)
	}
}
