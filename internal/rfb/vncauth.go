package rfb

import (
	"bytes"
	"crypto/des"
	"math/bits"
)

// VNC authentication (security type 2) is DES: the server sends a 16-byte
// challenge, the client answers with each 8-byte half encrypted under a
// key made of the password. vncpasswd stores a password the same way,
// under a fixed key.

// passwdKey is the fixed DES key under which vncpasswd stores a password
// (TigerVNC's d3des "fixedkey", before VNC's bit reversal).
var passwdKey = []byte{23, 82, 107, 6, 35, 78, 88, 7}

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

// VNCAuthResponse answers a VNC authentication challenge with password
// (only its first 8 bytes count): DES-ECB of each 8-byte half under the
// password's key.
func VNCAuthResponse(password []byte, challenge [16]byte) [16]byte {
	c, err := des.NewCipher(vncKey(password))
	if err != nil { // only for a key length other than 8, which vncKey never makes
		panic("rfb: DES key: " + err.Error())
	}
	var out [16]byte
	c.Encrypt(out[:8], challenge[:8])
	c.Encrypt(out[8:], challenge[8:])
	return out
}

// DecryptPasswd recovers the password of an 8-byte vncpasswd block (the
// file Xvnc's -rfbauth reads), without its zero padding.
func DecryptPasswd(block []byte) []byte {
	c, err := des.NewCipher(vncKey(passwdKey))
	if err != nil {
		panic("rfb: DES key: " + err.Error())
	}
	out := make([]byte, 8)
	c.Decrypt(out, block[:8])
	return bytes.TrimRight(out, "\x00")
}
