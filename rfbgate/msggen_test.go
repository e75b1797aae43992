package rfbgate

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/wirebench/wirebench/internal/rfb"
)

// genMsg appends one random, well-formed client message and returns its type.
// lim shapes the lengths so that limits are reached now and then.
func genMsg(r *rand.Rand, dst []byte, lim Limits) ([]byte, uint8) {
	switch k := r.IntN(12); k {
	case 0:
		return randBytes(r, append(dst, rfb.MsgSetPixelFormat, 0, 0, 0), 16), rfb.MsgSetPixelFormat
	case 1:
		n := r.IntN(lim.MaxEncodings + 1)
		dst = append(dst, rfb.MsgSetEncodings, 0)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		for i := 0; i < n; i++ {
			e := rfb.Encoding(r.Uint32())
			if r.IntN(4) == 0 {
				e = rfb.EncodingExtendedMouseButtons
			}
			dst = binary.BigEndian.AppendUint32(dst, uint32(e))
		}
		return dst, rfb.MsgSetEncodings
	case 2, 7: // the update requests: a flag and a rectangle
		t := uint8(rfb.MsgFramebufferUpdateRequest)
		if k == 7 {
			t = rfb.MsgEnableContinuousUpdates
		}
		return randBytes(r, append(dst, t, byte(r.IntN(2))), 8), t
	case 3, 4:
		dst = append(dst, rfb.MsgKeyEvent, byte(r.IntN(2)), 0, 0)
		dst = binary.BigEndian.AppendUint32(dst, 0xff00+uint32(r.IntN(12)))
		return dst, rfb.MsgKeyEvent
	case 5:
		dst = append(dst, rfb.MsgPointerEvent, byte(r.Uint32()))
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		return dst, rfb.MsgPointerEvent
	case 6:
		var l int
		switch r.IntN(50) {
		case 0:
			l = lim.MaxCutText + r.IntN(3) - 1 // at, below and past the cap
		default:
			l = r.IntN(40)
		}
		dst = append(dst, rfb.MsgClientCutText, 0, 0, 0)
		if r.IntN(2) == 0 {
			if l < 4 {
				l = 4
			}
			dst = binary.BigEndian.AppendUint32(dst, uint32(-int32(l)))
		} else {
			dst = binary.BigEndian.AppendUint32(dst, uint32(l))
		}
		for i := 0; i < l; i++ {
			dst = append(dst, byte(i))
		}
		return dst, rfb.MsgClientCutText
	case 8:
		l := r.IntN(rfb.MaxFencePayload + 1)
		dst = append(dst, rfb.MsgClientFence, 0, 0, 0)
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		return randBytes(r, append(dst, byte(l)), l), rfb.MsgClientFence
	case 9:
		n := r.IntN(4)
		dst = append(dst, rfb.MsgSetDesktopSize, 0)
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		return randBytes(r, append(dst, byte(n), 0), n*16), rfb.MsgSetDesktopSize
	default:
		dst = append(dst, rfb.MsgQEMU, rfb.QEMUExtendedKeyEvent)
		dst = binary.BigEndian.AppendUint16(dst, uint16(r.IntN(2)))
		dst = binary.BigEndian.AppendUint32(dst, 0x61+uint32(r.IntN(12)))
		dst = binary.BigEndian.AppendUint32(dst, 16+uint32(r.IntN(12)))
		return dst, rfb.MsgQEMU
	}
}

// randBytes appends n random bytes.
func randBytes(r *rand.Rand, dst []byte, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(r.Uint32()))
	}
	return dst
}
