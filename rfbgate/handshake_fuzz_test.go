package rfbgate

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzClientHandshake feeds arbitrary server bytes to ClientHandshake: it
// must never panic, a refusal's reason stays within maxReasonLen, a
// password refusal is never retryable, and a success returns a ServerInit
// within its limit.
func FuzzClientHandshake(f *testing.F) {
	reason := func(s string) []byte { return append([]byte{0, 0, 0, byte(len(s))}, s...) }
	f.Add(append([]byte("RFB 003.003\n\x00\x00\x00\x00"), reason("Too many security failures")...))
	f.Add(append([]byte("RFB 003.008\n\x00"), reason("Too many security failures")...))
	f.Add(append(append([]byte("RFB 003.008\n\x01\x02"), make([]byte, 16)...), append([]byte{0, 0, 0, 1}, reason("Authentication failure")...)...))
	f.Add(append(append(append([]byte("RFB 003.008\n\x02\x13\x02"), make([]byte, 16)...), 0, 0, 0, 0), serverInit("desk")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		rw := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(data), io.Discard}
		init, err := ClientHandshake(rw, NewSecret("pw"))
		if err == nil {
			if len(init.Raw) < 24 || len(init.Raw) > 24+maxDesktopNameLen {
				t.Fatalf("ServerInit of %d bytes", len(init.Raw))
			}
			return
		}
		if !errors.Is(err, ErrHandshake) {
			t.Fatalf("error not of kind ErrHandshake: %v", err)
		}
		var re *RefusedError
		if errors.As(err, &re) && re.HasReason && len(re.Reason) > maxReasonLen {
			t.Fatalf("reason of %d bytes", len(re.Reason))
		}
		if errors.Is(err, ErrAuthFailed) && retryable(err) {
			t.Fatalf("a password refusal is retryable: %v", err)
		}
	})
}
