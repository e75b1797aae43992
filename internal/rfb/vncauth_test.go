package rfb

import (
	"bytes"
	"crypto/des"
	"os/exec"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/internal/peertest"
)

// TestDecryptPasswdKnownAnswer: what TigerVNC's own vncpasswd writes
// decrypts to the password (its first 8 bytes).
func TestDecryptPasswdKnownAnswer(t *testing.T) {
	bin := peertest.Program(t, "vncpasswd")
	for _, pw := range []string{"glass-pw", "12345678", "a", "longer-than-eight"} {
		cmd := exec.Command(bin, "-f")
		cmd.Stdin = strings.NewReader(pw + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vncpasswd -f: %v", err)
		}
		if got, want := DecryptPasswd(out), pw[:min(len(pw), 8)]; string(got) != want {
			t.Fatalf("%q: decrypted %q", pw, got)
		}
	}
}

// TestVNCAuthResponse: each half of the challenge is DES-encrypted under
// the password's bit-reversed key, and only 8 bytes of password count.
func TestVNCAuthResponse(t *testing.T) {
	ch := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	// "pw" reversed bit by bit: 'p' 0x70 -> 0x0e, 'w' 0x77 -> 0xee.
	c, _ := des.NewCipher([]byte{0x0e, 0xee, 0, 0, 0, 0, 0, 0})
	var want [16]byte
	c.Encrypt(want[:8], ch[:8])
	c.Encrypt(want[8:], ch[8:])
	if got := VNCAuthResponse([]byte("pw"), ch); got != want {
		t.Fatalf("got %x, want %x", got, want)
	}
	if VNCAuthResponse([]byte("12345678"), ch) != VNCAuthResponse([]byte("123456789"), ch) {
		t.Fatal("a ninth byte changed the answer")
	}
	if bytes.Equal(want[:8], want[8:]) {
		t.Fatal("the halves are not encrypted apart")
	}
}
