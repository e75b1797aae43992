package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const header = "goos: linux\nUnit instructions/op assume=exact\n\n"

func writeCounts(t *testing.T, name, lines string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(header+lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckAndSame(t *testing.T) {
	base := writeCounts(t, "base.txt", "BenchmarkDecode/impl=codec/msg=a\t400\t1000 instructions/op\t1 allocs/op\t48 B/op\n")
	within := writeCounts(t, "within.txt", "BenchmarkDecode/impl=codec/msg=a\t400\t1019 instructions/op\t1 allocs/op\t48 B/op\n")
	grown := writeCounts(t, "grown.txt", "BenchmarkDecode/impl=codec/msg=a\t400\t1030 instructions/op\t1 allocs/op\t48 B/op\n")
	alloc := writeCounts(t, "alloc.txt", "BenchmarkDecode/impl=codec/msg=a\t400\t900 instructions/op\t2 allocs/op\t96 B/op\n")
	for _, c := range []struct {
		args []string
		fail bool
		say  string
	}{
		{[]string{"check", "-baseline", base, within}, false, "1 rows within 2%"},
		{[]string{"check", "-baseline", base, grown}, true, "instructions +3.0%"},
		{[]string{"check", "-baseline", base, alloc}, true, "allocs 1 -> 2"},
		{[]string{"same", base, base}, false, "agree within ±0.5%"},
		{[]string{"same", base, within}, true, "differ by more than ±0.5%"},
	} {
		var out bytes.Buffer
		err := run(c.args, &out, &out)
		if c.fail != errors.Is(err, errFailed) || (!c.fail && err != nil) {
			t.Errorf("%v: %v, want failed=%v\n%s", c.args, err, c.fail, out.String())
		}
		if !strings.Contains(out.String(), c.say) {
			t.Errorf("%v: no %q in\n%s", c.args, c.say, out.String())
		}
	}
	var out bytes.Buffer
	if err := run([]string{"check", "-baseline", filepath.Join(t.TempDir(), "none.txt"), within}, &out, &out); err == nil || errors.Is(err, errFailed) {
		t.Errorf("a missing baseline: %v, want a usage error", err)
	}
}
