package rfb

import "strconv"

// ProtocolVersion is the ProtocolVersion message of RFB 3.8, the only
// version glass speaks on either side.
const ProtocolVersion = "RFB 003.008\n"

// Security types.
const (
	SecurityNone    = 1 // no authentication
	SecurityVNCAuth = 2 // VNC authentication: a DES challenge (vncauth.go)
)

// Client-to-server message types (RFB 3.8 and the extensions noVNC sends).
const (
	MsgSetPixelFormat           = 0
	MsgSetEncodings             = 2
	MsgFramebufferUpdateRequest = 3
	MsgKeyEvent                 = 4
	MsgPointerEvent             = 5
	MsgClientCutText            = 6
	MsgEnableContinuousUpdates  = 150
	MsgClientFence              = 248
	MsgSetDesktopSize           = 251
	MsgGii                      = 253
	MsgQEMU                     = 255 // refined by a subtype byte: QEMUExtendedKeyEvent, QEMUAudio
)

// Server-to-client message types (RFB 3.8 and the extensions Xvnc 1.12
// sends to noVNC).
const (
	MsgFramebufferUpdate      = 0
	MsgSetColourMapEntries    = 1
	MsgBell                   = 2
	MsgServerCutText          = 3
	MsgEndOfContinuousUpdates = 150
	MsgServerFence            = 248
)

// MsgXvp is the xvp message type (power control) in either direction.
const MsgXvp = 250

// QEMU client message subtypes (the byte after MsgQEMU).
const (
	QEMUExtendedKeyEvent = 0
	QEMUAudio            = 1
)

// MaxFencePayload is the longest fence payload (either direction) RFB allows.
const MaxFencePayload = 64

// Extended clipboard action flags (the top byte of its flags word) and
// format flags (the low bits).
const (
	ClipboardText    = 1 << 0
	ClipboardCaps    = 1 << 24
	ClipboardNotify  = 1 << 27
	ClipboardProvide = 1 << 28
)

// Encoding is a rectangle encoding or, when negative (or one of the
// vendor numbers), a pseudo-encoding, as in SetEncodings and a rectangle
// header.
type Encoding int32

// Encodings and pseudo-encodings glass knows.
const (
	EncodingRaw                  Encoding = 0
	EncodingCopyRect             Encoding = 1
	EncodingTight                Encoding = 7
	EncodingZRLE                 Encoding = 16
	EncodingTightPNG             Encoding = -260
	EncodingDesktopSize          Encoding = -223
	EncodingLastRect             Encoding = -224
	EncodingCursor               Encoding = -239
	EncodingQEMUExtendedKey      Encoding = -258
	EncodingQEMULEDState         Encoding = -261
	EncodingDesktopName          Encoding = -307
	EncodingExtendedDesktop      Encoding = -308
	EncodingFence                Encoding = -312
	EncodingContinuousUpdates    Encoding = -313
	EncodingExtendedMouseButtons Encoding = -316        // a PointerEvent of 7 bytes when its mask has bit 7
	EncodingExtendedClipboard    Encoding = -1063131698 // 0xC0A1E5CE
	EncodingVMwareCursor         Encoding = 0x574d5664
	EncodingQualityLevel0        Encoding = -32 // JPEG quality 0; -32 + q up to EncodingQualityLevel9
	EncodingQualityLevel9        Encoding = -23
	EncodingCompressLevel0       Encoding = -256 // compression level 0; -256 + c up to EncodingCompressLevel9
	EncodingCompressLevel9       Encoding = -247
)

var encodingNames = map[Encoding]string{
	EncodingRaw: "Raw", EncodingCopyRect: "CopyRect", EncodingTight: "Tight", EncodingZRLE: "ZRLE",
	EncodingTightPNG: "TightPNG", EncodingDesktopSize: "DesktopSize", EncodingLastRect: "LastRect",
	EncodingCursor: "Cursor", EncodingQEMUExtendedKey: "QEMUExtendedKey", EncodingQEMULEDState: "QEMULEDState",
	EncodingDesktopName: "DesktopName", EncodingExtendedDesktop: "ExtendedDesktopSize", EncodingFence: "Fence",
	EncodingContinuousUpdates: "ContinuousUpdates", EncodingExtendedMouseButtons: "ExtendedMouseButtons",
	EncodingExtendedClipboard: "ExtendedClipboard", EncodingVMwareCursor: "VMwareCursor",
}

// String names e, or gives its number when it has no name here.
func (e Encoding) String() string {
	if n, ok := encodingNames[e]; ok {
		return n
	}
	return strconv.Itoa(int(e))
}

// Pixel reports whether rectangles of encoding e carry pixels for the
// framebuffer (Raw, CopyRect, Tight, ZRLE); the others are pseudo-rectangles.
func (e Encoding) Pixel() bool {
	return e == EncodingRaw || e == EncodingCopyRect || e == EncodingZRLE || e == EncodingTight
}

// Tight (encoding 7): the compression control byte's high nibble, the
// filter ids of basic compression, and its sizes.
const (
	TightFill           = 8    // control nibble: one TPIXEL fills the rectangle
	TightJPEG           = 9    // control nibble: a compact length, then JPEG
	TightPNG            = 10   // control nibble: PNG (TightPNG only)
	TightExplicit       = 0x40 // control bit of basic compression: a filter id byte follows
	TightFilterCopy     = 0
	TightFilterPalette  = 1
	TightFilterGradient = 2
	TightMinCompress    = 12        // basic data of fewer bytes is sent as it is, without a length
	TightMaxCompactLen  = 1<<22 - 1 // the most a compact length can say: 7, 7 and 8 bits
)
