package zerocopy

// The golden frames the tests check the views against, read from the
// repository's golden/ directory.

import (
	"os"
	"path/filepath"
	"testing"
)

type goldenFrame struct {
	name    string
	payload []byte
}

// goldenFrames reads ../golden/*.bin; the payload follows the 4-byte
// length header.
func goldenFrames(t testing.TB) []goldenFrame {
	t.Helper()
	files, err := filepath.Glob("../../golden/*.bin")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden frames: %v", err)
	}
	var out []goldenFrame
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 4 {
			t.Fatalf("%s: short frame", f)
		}
		out = append(out, goldenFrame{filepath.Base(f), b[4:]})
	}
	return out
}

// goldenPayload is the payload of the golden frame called name.
func goldenPayload(t testing.TB, name string) []byte {
	t.Helper()
	for _, g := range goldenFrames(t) {
		if g.name == name {
			return g.payload
		}
	}
	t.Fatalf("no %s", name)
	return nil
}
