package schema

// Framing constants of docs/protocol.md section 1.
const (
	HeaderLen       = 4        // the big-endian u32 payload length
	DefaultMaxFrame = 16 << 20 // each side's limit before the handshake
	MinMaxFrame     = 4096     // the smallest limit a side may announce
	PeekLen         = 32       // bytes of an oversized payload read for its kind, id and method
)

// MaxNodeDepth is the deepest a node tree may nest below a window root (a
// root is level 1). Encoders and decoders reject deeper trees.
const MaxNodeDepth = 256

// The smallest encodings of a window and a node, with which readers cap a
// count of them by the bytes left (TestLeastLengths encodes both).
const (
	MinWindowLen = 15 // map head, keys 0..4, three one-byte values, bounds of 5 bytes, flags
	MinNodeLen   = 13 // map head, keys 0..3, id, class, bounds of 5 bytes, flags
)

// Truncated bits of a snapshot (key 2): which request bound cut the walk
// short.
const (
	TruncatedDepth uint32 = 1 << iota
	TruncatedNodes
	TruncatedWindows
)

// Window flag bits (a window's key 4).
const (
	WindowActive uint32 = 1 << iota
	WindowFocused
	WindowAccessibilityFocused
	WindowPictureInPicture
	WindowTransformed
)

// Node flag bits (a node's key 3).
const (
	NodeClickable uint32 = 1 << iota
	NodeLongClickable
	NodeFocusable
	NodeFocused
	NodeEnabled
	NodeCheckable
	NodeChecked
	NodeScrollable
	NodeSelected
	NodeEditable
	NodePassword
	NodeVisible
	NodeAccessibilityFocused
	NodeModal
	NodeOnTop
)

// Scroll axes (a scroll's key 0) and flag bits (its key 1).
const (
	ScrollUnknown    uint32 = 0
	ScrollVertical   uint32 = 1
	ScrollHorizontal uint32 = 2
	ScrollBack       uint32 = 1 << 0
	ScrollForward    uint32 = 1 << 1
)

// Scroll range units (element 0 of a scroll range).
const (
	RangeItems   uint32 = 0
	RangePercent uint32 = 1
)

// Image formats of screenshot and frames.
const (
	FormatPNG  uint32 = 0
	FormatJPEG uint32 = 1
	FormatWebP uint32 = 2
)

// Change bits of a window_changed event.
const (
	WindowAdded uint32 = 1 << iota
	WindowRemoved
	WindowBounds
	WindowTitle
	WindowFocus
	WindowLayer
)

// Change bits of a content_changed event.
const (
	ContentSubtree uint32 = 1 << iota
	ContentText
	ContentState
	ContentDesc
)
