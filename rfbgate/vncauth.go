package rfbgate

import (
	"bytes"
	"crypto/des"
	"fmt"
	"io"
	"math/bits"
	"os"
)

// redacted is what a Secret prints as, in every format.
const redacted = "[redacted]"

// Secret is a VNC password. It prints, formats and marshals as "[redacted]",
// so it cannot reach a log line, an error or an API result by accident.
type Secret struct{ b []byte }

// NewSecret wraps a password.
func NewSecret(password string) Secret { return Secret{b: []byte(password)} }

// String returns "[redacted]".
func (Secret) String() string { return redacted }

// GoString returns "[redacted]".
func (Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (Secret) Format(f fmt.State, _ rune) { io.WriteString(f, redacted) }

// MarshalJSON writes "[redacted]".
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText writes "[redacted]".
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return len(s.b) == 0 }

// maxPasswordFile bounds a password file; VNC uses only 8 bytes anyway.
const maxPasswordFile = 4096

// ReadPasswordFile reads a VNC password from a text file: its first line,
// without the line ending. Errors name the file, never its content.
func ReadPasswordFile(path string) (Secret, error) {
	f, err := os.Open(path)
	if err != nil {
		return Secret{}, fmt.Errorf("rfbgate: password file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPasswordFile+1))
	if err != nil {
		return Secret{}, fmt.Errorf("rfbgate: password file %s: %w", path, err)
	}
	if len(b) > maxPasswordFile {
		return Secret{}, fmt.Errorf("rfbgate: password file %s: longer than %d bytes", path, maxPasswordFile)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return Secret{}, fmt.Errorf("rfbgate: password file %s: empty first line", path)
	}
	return Secret{b: b}, nil
}

// vncKey is the DES key VNC derives from a password: cut or zero-padded to
// 8 bytes, each byte bit-reversed (VNC's DES takes key bits low bit first).
func vncKey(pw []byte) []byte {
	k := make([]byte, 8)
	copy(k, pw)
	for i := range k {
		k[i] = bits.Reverse8(k[i])
	}
	return k
}

// VNCAuthResponse answers a VNC authentication challenge: DES-ECB of each
// 8-byte half under the password's key.
func VNCAuthResponse(pw Secret, challenge [16]byte) [16]byte {
	c, err := des.NewCipher(vncKey(pw.b))
	if err != nil { // only for a key length other than 8, which vncKey never makes
		panic("rfbgate: DES key: " + err.Error())
	}
	var out [16]byte
	c.Encrypt(out[:8], challenge[:8])
	c.Encrypt(out[8:], challenge[8:])
	return out
}
