package codec_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/internal/testio"
)

// TestReaderStuckStream: a stream that gives nothing but empty reads,
// wherever it sticks (between frames, inside a header, inside a small
// payload read through the read-ahead, inside a large payload read in
// place), ends with io.ErrNoProgress after maxEmptyReads empty reads,
// never spins.
func TestReaderStuckStream(t *testing.T) {
	big := frameOf(t, bigResponse(t, 1, 64<<10))
	for name, prefix := range map[string][]byte{
		"at the start":         nil,
		"inside a header":      {0, 0},
		"inside a small frame": frameOf(t, &codec.Ping{Nonce: 1})[:6],
		"inside a large frame": big[:len(big)/2],
	} {
		s := &testio.Stuck{R: bytes.NewReader(prefix)}
		r := codec.NewReader(s, schema.DefaultMaxFrame)
		_, err := r.Next()
		if !errors.Is(err, io.ErrNoProgress) {
			t.Errorf("%s: %v, want io.ErrNoProgress", name, err)
		}
		if s.Empty != 100 {
			t.Errorf("%s: gave up after %d empty reads, want 100", name, s.Empty)
		}
	}
}
