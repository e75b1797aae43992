// Package testio holds io helpers the tests of several packages share, in
// the manner of testing/iotest: a buffer that goroutines may write at once,
// a reader that returns nothing, without an error, on every other Read (or,
// Stuck, on every Read once its input is done), a loopback server for
// a test's lifetime, and the files of a testdata directory: read by name,
// or checked against what the test makes.
package testio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// SyncBuffer is a bytes.Buffer behind a mutex: a log destination that
// several goroutines write while a test reads it. The zero value is empty
// and ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// EmptyReads returns a reader that returns 0 bytes and no error on every
// other Read (the first included) and reads r on the others: the empty
// reads io.Reader allows and a reader must survive.
func EmptyReads(r io.Reader) io.Reader { return &emptyReads{r: r} }

type emptyReads struct {
	r    io.Reader
	skip bool
}

func (e *emptyReads) Read(p []byte) (int, error) {
	if e.skip = !e.skip; e.skip {
		return 0, nil
	}
	return e.r.Read(p)
}

// Stuck reads R, then answers every Read with no bytes and no error for
// ever, counting those empty reads in Empty: a stream that hangs without
// closing, which a reader must give up on.
type Stuck struct {
	R     io.Reader
	Empty int
}

func (s *Stuck) Read(p []byte) (int, error) {
	if n, err := s.R.Read(p); n > 0 || (err != nil && err != io.EOF) {
		return n, err
	}
	s.Empty++
	return 0, nil
}

// ReadFiles returns the files of dir whose names end in ext, by name less
// ext. It fails tb when dir has none or one cannot be read.
func ReadFiles(tb testing.TB, dir, ext string) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no %s files in %s: %v", ext, dir, err)
	}
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ext)] = b
	}
	return out
}

// Fixture checks that the file at path holds want, or, when write is set,
// writes want there (making its directory) instead. how says how to
// write it again, for the failure's message.
func Fixture(tb testing.TB, path string, want []byte, write bool, how string) {
	tb.Helper()
	if write {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (%s)", err, how)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s is not what the test makes (%s)", path, how)
	}
}
