package rfb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// fakeServer scripts the server side of an RFB handshake.
func fakeServer(t *testing.T, script func(c net.Conn)) net.Conn {
	a, b := net.Pipe()
	go func() { defer b.Close(); script(b) }()
	a.SetDeadline(time.Now().Add(5 * time.Second))
	t.Cleanup(func() { a.Close() })
	return a
}

// serverInit is a ServerInit for a 640x480 desktop in 32-bit true colour
// (Xvnc's format; a relayed viewer's serverFilter needs a framable one).
func serverInit(name string) []byte {
	b := []byte{2, 128, 1, 224, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	return append(b, name...)
}

func TestClientHandshakeChoosesVNCAuth(t *testing.T) {
	pw := []byte("pw")
	var chosen byte
	var shared byte
	conn := fakeServer(t, func(c net.Conn) {
		c.Write([]byte("RFB 003.008\n"))
		io.ReadFull(c, make([]byte, 12))
		c.Write([]byte{2, 19, 2}) // VeNCrypt first, as Xvnc offers
		var b [1]byte
		io.ReadFull(c, b[:])
		chosen = b[0]
		ch := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
		c.Write(ch[:])
		var resp [16]byte
		io.ReadFull(c, resp[:])
		if resp != VNCAuthResponse(pw, ch) {
			c.Write([]byte{0, 0, 0, 1})
			return
		}
		c.Write([]byte{0, 0, 0, 0})
		io.ReadFull(c, b[:])
		shared = b[0]
		c.Write(serverInit("desk"))
	})
	init, err := ClientHandshake(conn, pw)
	if err != nil || chosen != SecurityVNCAuth || shared != 1 || init.Name != "desk" || init.Width != 640 || !bytes.Equal(init.Raw, serverInit("desk")) {
		t.Fatalf("init %+v, chosen %d, shared %d, err %v", init, chosen, shared, err)
	}
}

func TestClientHandshakeErrors(t *testing.T) {
	reason := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	cases := []struct {
		name, want string
		script     func(c net.Conn)
	}{
		{"not-rfb", "not an RFB server", func(c net.Conn) { c.Write([]byte("SSH-2.0-xxxx")) }},
		{"old", "need 3.8", func(c net.Conn) { c.Write([]byte("RFB 003.003\n")) }},
		{"refused", `"too many"`, func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			c.Write(append([]byte{0}, reason("too many")...))
		}},
		{"no-vnc-auth", "not VNC authentication", func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			c.Write([]byte{1, 19})
		}},
		{"auth-failed", `VNC authentication refused (result 1): "Authentication failure"`, func(c net.Conn) {
			fakeVNCChallenge(c)
			c.Write(append([]byte{0, 0, 0, 1}, reason("Authentication failure")...))
		}},
		{"reason-over-limit", "over the 4096-byte limit", func(c net.Conn) {
			c.Write([]byte("RFB 003.008\n"))
			io.ReadFull(c, make([]byte, 12))
			c.Write([]byte{0, 0, 0, 0x10, 1})
		}},
		{"name-over-limit", "desktop name of 65536 bytes", func(c net.Conn) {
			fakeVNCAuthOK(c)
			b := serverInit("")
			binary.BigEndian.PutUint32(b[20:], 65536)
			c.Write(b)
		}},
		{"cut-short", "unexpected EOF", func(c net.Conn) { c.Write([]byte("RFB 003.008\n")); io.ReadFull(c, make([]byte, 12)) }},
	}
	for _, c := range cases {
		_, err := ClientHandshake(fakeServer(t, c.script), []byte("pw"))
		if !errors.Is(err, ErrHandshake) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestServeClientHandshake(t *testing.T) {
	init := &ServerInit{Raw: serverInit("desk")}
	a, b := net.Pipe()
	defer a.Close()
	a.SetDeadline(time.Now().Add(5 * time.Second))
	errc := make(chan error, 1)
	go func() { errc <- ServeClientHandshake(b, init, nil) }()
	var ver [12]byte
	io.ReadFull(a, ver[:])
	a.Write([]byte("RFB 003.008\n"))
	var types [2]byte
	io.ReadFull(a, types[:])
	if types != [2]byte{1, SecurityNone} {
		t.Fatalf("offered %v", types)
	}
	a.Write([]byte{SecurityNone})
	var res [4]byte
	io.ReadFull(a, res[:])
	a.Write([]byte{0})
	got := make([]byte, len(init.Raw))
	io.ReadFull(a, got)
	if err := <-errc; err != nil || res != [4]byte{} || !bytes.Equal(got, init.Raw) || string(ver[:]) != "RFB 003.008\n" {
		t.Fatalf("err %v, result %v, init %x", err, res, got)
	}

	// A client choosing VNC auth is told why and refused.
	a2, b2 := net.Pipe()
	defer a2.Close()
	a2.SetDeadline(time.Now().Add(5 * time.Second))
	go func() { errc <- ServeClientHandshake(b2, init, nil); b2.Close() }()
	io.ReadFull(a2, ver[:])
	a2.Write([]byte("RFB 003.008\n"))
	io.ReadFull(a2, types[:])
	a2.Write([]byte{SecurityVNCAuth})
	rest, _ := io.ReadAll(a2)
	if err := <-errc; !errors.Is(err, ErrHandshake) || !bytes.HasPrefix(rest, []byte{0, 0, 0, 1}) || !bytes.Contains(rest, []byte("only security type None")) {
		t.Fatalf("err %v, sent %q", err, rest)
	}
}

func TestHandshakeLimitsAt(t *testing.T) {
	// A reason string of exactly MaxReasonLen bytes is read and reported.
	long := strings.Repeat("r", MaxReasonLen)
	_, err := ClientHandshake(fakeServer(t, func(c net.Conn) {
		c.Write([]byte("RFB 003.008\n"))
		io.ReadFull(c, make([]byte, 12))
		c.Write(append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(long))), long...))
	}), []byte("pw"))
	if err == nil || !strings.Contains(err.Error(), long) {
		t.Fatalf("reason at the limit: %.200v", err)
	}
	// A desktop name of exactly MaxDesktopNameLen bytes is accepted.
	name := strings.Repeat("n", MaxDesktopNameLen)
	init, err := ClientHandshake(fakeServer(t, func(c net.Conn) {
		fakeVNCAuthOK(c)
		c.Write(serverInit(name))
	}), nil)
	if err != nil || init.Name != name {
		t.Fatalf("name at the limit: %v", err)
	}
}

// fakeVNCChallenge plays a VNC server's side of RFB 3.8 up to the
// client's answer to the VNC authentication challenge: version, the
// security type, the challenge. The SecurityResult is the caller's.
func fakeVNCChallenge(c net.Conn) {
	c.Write([]byte("RFB 003.008\n"))
	io.ReadFull(c, make([]byte, 12))
	c.Write([]byte{1, 2})
	io.ReadFull(c, make([]byte, 1))
	c.Write(make([]byte, 16))
	io.ReadFull(c, make([]byte, 16))
}

// fakeVNCAuthOK plays a VNC server's side of RFB 3.8 up to a passed VNC
// authentication: fakeVNCChallenge, the SecurityResult OK, then the
// client's ClientInit. ServerInit is the caller's to write.
func fakeVNCAuthOK(c net.Conn) {
	fakeVNCChallenge(c)
	c.Write([]byte{0, 0, 0, 0})
	io.ReadFull(c, make([]byte, 1))
}

// FuzzClientHandshake feeds arbitrary server bytes to ClientHandshake: it
// must never panic, a refusal's reason stays within MaxReasonLen, a
// password refusal is never a RefusedError, and a success returns a ServerInit
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
		init, err := ClientHandshake(rw, []byte("pw"))
		if err == nil {
			if len(init.Raw) < 24 || len(init.Raw) > 24+MaxDesktopNameLen {
				t.Fatalf("ServerInit of %d bytes", len(init.Raw))
			}
			return
		}
		if !errors.Is(err, ErrHandshake) {
			t.Fatalf("error not of kind ErrHandshake: %v", err)
		}
		var re *RefusedError
		if errors.As(err, &re) && re.HasReason && len(re.Reason) > MaxReasonLen {
			t.Fatalf("reason of %d bytes", len(re.Reason))
		}
		// A password refusal is never a RefusedError and is told at
		// SecurityResult, so glass's dialer never retries it.
		var he *HandshakeError
		if errors.Is(err, ErrAuthFailed) && (errors.As(err, &re) || !errors.As(err, &he) || he.Step != "SecurityResult") {
			t.Fatalf("a password refusal not at SecurityResult, or taken for a refusal: %v", err)
		}
	})
}
