package framebuffer

import (
	"encoding/binary"
	"fmt"
)

// PixelFormat is the RFB PIXEL_FORMAT structure (16 bytes on the wire).
type PixelFormat struct {
	BitsPerPixel, Depth             uint8
	BigEndian, TrueColour           bool
	RedMax, GreenMax, BlueMax       uint16
	RedShift, GreenShift, BlueShift uint8
}

// NoVNCFormat is the pixel format noVNC asks for with SetPixelFormat, the
// only one this package decodes into.
var NoVNCFormat = PixelFormat{
	BitsPerPixel: 32, Depth: 24, TrueColour: true,
	RedMax: 255, GreenMax: 255, BlueMax: 255,
	RedShift: 0, GreenShift: 8, BlueShift: 16,
}

// BytesPerPixel is the size of one pixel in the framebuffer and on the wire.
const BytesPerPixel = 4

// ParsePixelFormat reads a 16-byte PIXEL_FORMAT (as in ServerInit and
// SetPixelFormat) and refuses, naming the field, any format but
// NoVNCFormat.
func ParsePixelFormat(b []byte) (PixelFormat, error) {
	if len(b) < 16 {
		return PixelFormat{}, fmt.Errorf("framebuffer: pixel format of %d bytes, want 16", len(b))
	}
	pf := PixelFormat{
		BitsPerPixel: b[0], Depth: b[1], BigEndian: b[2] != 0, TrueColour: b[3] != 0,
		RedMax:   binary.BigEndian.Uint16(b[4:]),
		GreenMax: binary.BigEndian.Uint16(b[6:]),
		BlueMax:  binary.BigEndian.Uint16(b[8:]),
		RedShift: b[10], GreenShift: b[11], BlueShift: b[12],
	}
	return pf, pf.Check()
}

// Check reports whether pf is the supported format, and if not, which
// field differs.
func (pf PixelFormat) Check() error {
	want := NoVNCFormat
	switch {
	case pf.BitsPerPixel != want.BitsPerPixel:
		return fmt.Errorf("framebuffer: unsupported pixel format: %d bits per pixel, only 32 is decoded", pf.BitsPerPixel)
	case pf.Depth != want.Depth:
		return fmt.Errorf("framebuffer: unsupported pixel format: depth %d, only 24 is decoded", pf.Depth)
	case pf.BigEndian:
		return fmt.Errorf("framebuffer: unsupported pixel format: big-endian, only little-endian is decoded")
	case !pf.TrueColour:
		return fmt.Errorf("framebuffer: unsupported pixel format: colour map, only true colour is decoded")
	case pf.RedMax != 255 || pf.GreenMax != 255 || pf.BlueMax != 255:
		return fmt.Errorf("framebuffer: unsupported pixel format: maxima %d/%d/%d, only 255/255/255 is decoded", pf.RedMax, pf.GreenMax, pf.BlueMax)
	case pf.RedShift != 0 || pf.GreenShift != 8 || pf.BlueShift != 16:
		return fmt.Errorf("framebuffer: unsupported pixel format: shifts %d/%d/%d, only red 0, green 8, blue 16 is decoded", pf.RedShift, pf.GreenShift, pf.BlueShift)
	}
	return nil
}

// Bytes is pf as the 16 bytes of PIXEL_FORMAT (3 bytes of padding last).
func (pf PixelFormat) Bytes() [16]byte {
	var b [16]byte
	b[0], b[1] = pf.BitsPerPixel, pf.Depth
	if pf.BigEndian {
		b[2] = 1
	}
	if pf.TrueColour {
		b[3] = 1
	}
	binary.BigEndian.PutUint16(b[4:], pf.RedMax)
	binary.BigEndian.PutUint16(b[6:], pf.GreenMax)
	binary.BigEndian.PutUint16(b[8:], pf.BlueMax)
	b[10], b[11], b[12] = pf.RedShift, pf.GreenShift, pf.BlueShift
	return b
}
