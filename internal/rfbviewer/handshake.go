package rfbviewer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/wirebench/wirebench/internal/framebuffer"
	"github.com/wirebench/wirebench/internal/rfb"
)

// ServerInit is what the server's ServerInit message says.
type ServerInit struct {
	Width, Height int
	Format        framebuffer.PixelFormat // the server's own format, before SetPixelFormat; any format is accepted
	Name          string
}

// MaxNameLen bounds the desktop name ReadServerInit accepts.
const MaxNameLen = 4096

// maxReasonLen bounds the failure reason a refusing server sends that is
// read and quoted; the rest is not read.
const maxReasonLen = 1024

// ErrHandshake is the kind of every handshake failure (errors.Is).
var ErrHandshake = errors.New("rfbviewer: handshake failed")

// handshakeError says at which step the handshake failed.
type handshakeError struct {
	step string
	err  error
}

func (e *handshakeError) Error() string {
	return fmt.Sprintf("rfbviewer: handshake: %s: %v", e.step, e.err)
}
func (e *handshakeError) Unwrap() error        { return e.err }
func (e *handshakeError) Is(target error) bool { return target == ErrHandshake }

func hsErr(step string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &handshakeError{step, err}
}

// Handshake runs the client's side of the RFB handshake with security
// type None over rw (RFB 3.3, 3.7 or 3.8, answered with the same version,
// 3.8 for anything later), sends ClientInit asking to share the desktop,
// and returns ServerInit.
func Handshake(rw io.ReadWriter) (ServerInit, error) {
	var ver [12]byte
	if _, err := io.ReadFull(rw, ver[:]); err != nil {
		return ServerInit{}, hsErr("ProtocolVersion", err)
	}
	var major, minor int
	if n, _ := fmt.Sscanf(string(ver[:]), "RFB %03d.%03d\n", &major, &minor); n != 2 || ver[11] != '\n' || major != 3 || minor < 3 {
		return ServerInit{}, hsErr("ProtocolVersion", fmt.Errorf("server sent %q, want RFB 003.00x", ver[:]))
	}
	switch {
	case minor >= 8:
		minor = 8
	case minor == 7:
	default:
		minor = 3
	}
	if _, err := fmt.Fprintf(rw, "RFB 003.%03d\n", minor); err != nil {
		return ServerInit{}, hsErr("ProtocolVersion", err)
	}
	if minor == 3 { // the server picks: u32 type, 0 followed by a reason
		var b [4]byte
		if _, err := io.ReadFull(rw, b[:]); err != nil {
			return ServerInit{}, hsErr("security type", err)
		}
		switch t := binary.BigEndian.Uint32(b[:]); t {
		case rfb.SecurityNone:
		case 0:
			return ServerInit{}, hsErr("security type", fmt.Errorf("server refused: %s", reason(rw)))
		default:
			return ServerInit{}, hsErr("security type", fmt.Errorf("server chose security type %d, only None (1) is supported", t))
		}
	} else {
		var n [1]byte
		if _, err := io.ReadFull(rw, n[:]); err != nil {
			return ServerInit{}, hsErr("security types", err)
		}
		if n[0] == 0 {
			return ServerInit{}, hsErr("security types", fmt.Errorf("server refused: %s", reason(rw)))
		}
		types := make([]byte, n[0])
		if _, err := io.ReadFull(rw, types); err != nil {
			return ServerInit{}, hsErr("security types", err)
		}
		none := false
		for _, t := range types {
			none = none || t == rfb.SecurityNone
		}
		if !none {
			return ServerInit{}, hsErr("security types", fmt.Errorf("server offers %v, not None (1)", types))
		}
		if _, err := rw.Write([]byte{rfb.SecurityNone}); err != nil {
			return ServerInit{}, hsErr("security type", err)
		}
	}
	if minor == 8 { // SecurityResult even for None
		var b [4]byte
		if _, err := io.ReadFull(rw, b[:]); err != nil {
			return ServerInit{}, hsErr("SecurityResult", err)
		}
		if r := binary.BigEndian.Uint32(b[:]); r != 0 {
			return ServerInit{}, hsErr("SecurityResult", fmt.Errorf("failed (%d): %s", r, reason(rw)))
		}
	}
	if _, err := rw.Write([]byte{1}); err != nil { // ClientInit, shared
		return ServerInit{}, hsErr("ClientInit", err)
	}
	return ReadServerInit(rw)
}

// reason reads a failure reason (u32 length, text), quoting at most
// maxReasonLen bytes of it.
func reason(r io.Reader) string {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "(no reason)"
	}
	n := binary.BigEndian.Uint32(b[:])
	buf := make([]byte, min(n, maxReasonLen))
	k, _ := io.ReadFull(r, buf)
	return fmt.Sprintf("%q", buf[:k])
}

// ReadServerInit reads a ServerInit message: the framebuffer's size, the
// server's pixel format and the desktop name (at most MaxNameLen bytes).
func ReadServerInit(r io.Reader) (ServerInit, error) {
	var b [24]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return ServerInit{}, hsErr("ServerInit", err)
	}
	si := ServerInit{Width: int(binary.BigEndian.Uint16(b[0:])), Height: int(binary.BigEndian.Uint16(b[2:]))}
	f := b[4:20]
	si.Format = framebuffer.PixelFormat{
		BitsPerPixel: f[0], Depth: f[1], BigEndian: f[2] != 0, TrueColour: f[3] != 0,
		RedMax: binary.BigEndian.Uint16(f[4:]), GreenMax: binary.BigEndian.Uint16(f[6:]), BlueMax: binary.BigEndian.Uint16(f[8:]),
		RedShift: f[10], GreenShift: f[11], BlueShift: f[12],
	}
	n := binary.BigEndian.Uint32(b[20:])
	if n > MaxNameLen {
		return ServerInit{}, hsErr("ServerInit", fmt.Errorf("desktop name of %d bytes, at most %d accepted", n, MaxNameLen))
	}
	name := make([]byte, n)
	if _, err := io.ReadFull(r, name); err != nil {
		return ServerInit{}, hsErr("ServerInit name", err)
	}
	si.Name = string(name)
	return si, nil
}
