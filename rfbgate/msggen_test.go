package rfbgate

import (
	"encoding/binary"
	"math/rand/v2"
)

// genMsg appends one random, well-formed client message and returns its type.
// lim shapes the lengths so that limits are reached now and then.
func genMsg(r *rand.Rand, dst []byte, lim Limits) ([]byte, uint8) {
	switch r.IntN(12) {
	case 0:
		dst = append(dst, MsgSetPixelFormat, 0, 0, 0)
		for i := 0; i < 16; i++ {
			dst = append(dst, byte(r.Uint32()))
		}
		return dst, MsgSetPixelFormat
	case 1:
		n := r.IntN(lim.MaxEncodings + 1)
		dst = append(dst, MsgSetEncodings, 0)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		for i := 0; i < n; i++ {
			e := int32(r.Uint32())
			if r.IntN(4) == 0 {
				e = encodingExtendedMouseButtons
			}
			dst = binary.BigEndian.AppendUint32(dst, uint32(e))
		}
		return dst, MsgSetEncodings
	case 2:
		dst = append(dst, MsgFramebufferUpdateReq, byte(r.IntN(2)))
		for i := 0; i < 8; i++ {
			dst = append(dst, byte(r.Uint32()))
		}
		return dst, MsgFramebufferUpdateReq
	case 3, 4:
		dst = append(dst, MsgKeyEvent, byte(r.IntN(2)), 0, 0)
		dst = binary.BigEndian.AppendUint32(dst, 0xff00+uint32(r.IntN(12)))
		return dst, MsgKeyEvent
	case 5:
		dst = append(dst, MsgPointerEvent, byte(r.Uint32()))
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		return dst, MsgPointerEvent
	case 6:
		var l int
		switch r.IntN(50) {
		case 0:
			l = lim.MaxCutText + r.IntN(3) - 1 // at, below and past the cap
		default:
			l = r.IntN(40)
		}
		dst = append(dst, MsgClientCutText, 0, 0, 0)
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
		return dst, MsgClientCutText
	case 7:
		dst = append(dst, MsgEnableContinuousUpdates, byte(r.IntN(2)))
		for i := 0; i < 8; i++ {
			dst = append(dst, byte(r.Uint32()))
		}
		return dst, MsgEnableContinuousUpdates
	case 8:
		l := r.IntN(maxFencePayload + 1)
		dst = append(dst, MsgClientFence, 0, 0, 0)
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		dst = append(dst, byte(l))
		for i := 0; i < l; i++ {
			dst = append(dst, byte(r.Uint32()))
		}
		return dst, MsgClientFence
	case 9:
		n := r.IntN(4)
		dst = append(dst, MsgSetDesktopSize, 0)
		dst = binary.BigEndian.AppendUint32(dst, r.Uint32())
		dst = append(dst, byte(n), 0)
		for i := 0; i < n*16; i++ {
			dst = append(dst, byte(r.Uint32()))
		}
		return dst, MsgSetDesktopSize
	default:
		dst = append(dst, MsgQEMU, QEMUExtendedKeyEvent)
		dst = binary.BigEndian.AppendUint16(dst, uint16(r.IntN(2)))
		dst = binary.BigEndian.AppendUint32(dst, 0x61+uint32(r.IntN(12)))
		dst = binary.BigEndian.AppendUint32(dst, 16+uint32(r.IntN(12)))
		return dst, MsgQEMU
	}
}
