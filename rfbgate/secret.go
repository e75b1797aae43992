package rfbgate

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/wirebench/wirebench/internal/rfb"
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

// ReadPasswordFile reads a VNC password from a file in either form: the
// binary file vncpasswd writes for Xvnc's -rfbauth (8 bytes, DES-encrypted
// under VNC's fixed key; 16 with a view-only password, which is ignored),
// or text, whose first line without the line ending is the password. A
// file of 8 or 16 bytes that is not text (valid UTF-8 without control
// characters other than line endings and tabs) is read as vncpasswd's.
// Errors name the file, never its content.
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
	if !isText(b) {
		if len(b) != 8 && len(b) != 16 {
			return Secret{}, fmt.Errorf("rfbgate: password file %s: neither text nor a vncpasswd file (%d bytes of binary; vncpasswd writes 8 or 16)", path, len(b))
		}
		pw := rfb.DecryptPasswd(b[:8])
		if len(pw) == 0 {
			return Secret{}, fmt.Errorf("rfbgate: password file %s: a vncpasswd file holding an empty password", path)
		}
		return Secret{b: pw}, nil
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

// isText reports whether b reads as a text file: valid UTF-8 with no
// control characters but tab, CR and LF.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f {
			return false
		}
	}
	return true
}

// ExposedPasswordFileError says that a password file can be read by users
// other than its owner.
type ExposedPasswordFileError struct {
	Path string
	Mode fs.FileMode
}

// Error names the file, its mode and the fix.
func (e *ExposedPasswordFileError) Error() string {
	return fmt.Sprintf("password file %s can be read by group or others (mode %#o): chmod 600 it", e.Path, e.Mode.Perm())
}

// CheckPasswordFileMode returns an *ExposedPasswordFileError when the file
// at path can be read by its group or by others, nil when only its owner
// can read it, or the error of stat.
func CheckPasswordFileMode(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("rfbgate: password file: %w", err)
	}
	if st.Mode().Perm()&0o044 != 0 {
		return &ExposedPasswordFileError{Path: path, Mode: st.Mode()}
	}
	return nil
}

// VNCAuthResponse answers a VNC authentication challenge with pw
// (rfb.VNCAuthResponse).
func VNCAuthResponse(pw Secret, challenge [16]byte) [16]byte {
	return rfb.VNCAuthResponse(pw.b, challenge)
}
