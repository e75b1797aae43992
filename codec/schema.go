package codec

//go:generate go run ./internal/fieldgen -pkg codec

import (
	"math/bits"

	"github.com/wirebench/wirebench/codec/cbor"
)

// The protocol's maps are keyed by small unsigned integers. Each key has
// a constant here, named Key<Type><Field> after the Go type and field it
// fills, and each map a Fields value with the keys' protocol names and
// which keys are required. The encoder, the decoder, its fast paths, the
// borrowed views of package zerocopy and the JSON mapping of cmd/wire all
// read them from here, so a key changes in one place and grep finds every
// use. Every key is below 24: on the wire a key is one byte, its own head.

// Key 0 of every message map: the envelope kind.
const KeyKind = 0

// Keys of a Hello map.
const (
	KeyHelloVersions     = 1
	KeyHelloMaxFrame     = 2
	KeyHelloCapabilities = 3
	KeyHelloToken        = 4
	KeyHelloAgent        = 5
	KeyHelloDevice       = 6
)

// Keys of a Welcome map.
const (
	KeyWelcomeVersion  = 1
	KeyWelcomeMaxFrame = 2
	KeyWelcomeError    = 3
	KeyWelcomeSession  = 4
)

// Keys of a Request map.
const (
	KeyRequestID         = 1
	KeyRequestMethod     = 2
	KeyRequestParams     = 3
	KeyRequestDeadlineMS = 4
)

// Keys of a Response map.
const (
	KeyResponseID     = 1
	KeyResponseMethod = 2
	KeyResponseResult = 3
	KeyResponseError  = 4
)

// Key of the nonce of a Ping or Pong map.
const KeyNonce = 1

// Keys of a Device map.
const (
	KeyDeviceModel   = 0
	KeyDeviceSDK     = 1
	KeyDeviceABI     = 2
	KeyDeviceDisplay = 3
)

// Keys of a Display map.
const (
	KeyDisplayWidth      = 0
	KeyDisplayHeight     = 1
	KeyDisplayDensityDPI = 2
	KeyDisplayRotation   = 3
)

// Keys of an Error map.
const (
	KeyErrorCode      = 0
	KeyErrorMessage   = 1
	KeyErrorRetryable = 2
)

// Keys of a Snapshot map.
const (
	KeySnapshotStrings   = 0
	KeySnapshotWindows   = 1
	KeySnapshotTruncated = 2
	KeySnapshotSeq       = 3
	KeySnapshotDisplay   = 4
)

// Keys of a Window map.
const (
	KeyWindowID          = 0
	KeyWindowType        = 1
	KeyWindowLayer       = 2
	KeyWindowBounds      = 3
	KeyWindowFlags       = 4
	KeyWindowTitle       = 5
	KeyWindowPackage     = 6
	KeyWindowRoot        = 7
	KeyWindowEmitsEvents = 8
	KeyWindowOwner       = 9
	KeyWindowModal       = 10
)

// Keys of a Node map: each names the field of Node it fills, and the
// fields of Node follow them in order. node_gen.go is generated from
// them and Node (go generate): a new key is its constant, its field and
// a golden sample.
const (
	KeyNodeID       = 0
	KeyNodeClass    = 1
	KeyNodeBounds   = 2
	KeyNodeFlags    = 3
	KeyNodeText     = 4
	KeyNodeDesc     = 5
	KeyNodeResPkg   = 6
	KeyNodeResName  = 7
	KeyNodeChildren = 8
	KeyNodeScroll   = 9
	KeyNodeHint     = 10
	KeyNodeState    = 11
)

// Keys of a Scroll map.
const (
	KeyScrollAxis     = 0
	KeyScrollFlags    = 1
	KeyScrollRange    = 2
	KeyScrollPosition = 3
)

// Keys of the parameter maps.
const (
	KeySnapshotParamsMaxDepth       = 0
	KeySnapshotParamsMaxNodes       = 1
	KeySnapshotParamsMaxWindows     = 2
	KeySnapshotParamsEvictEventLess = 3
	KeySnapshotParamsEvict          = 4

	KeyBoundsParamsNodes = 0

	KeyTapParamsX = 0
	KeyTapParamsY = 1

	KeyLongPressParamsX          = 0
	KeyLongPressParamsY          = 1
	KeyLongPressParamsDurationMS = 2

	KeySwipeParamsX1         = 0
	KeySwipeParamsY1         = 1
	KeySwipeParamsX2         = 2
	KeySwipeParamsY2         = 3
	KeySwipeParamsDurationMS = 4
	KeySwipeParamsRestMS     = 5

	KeyKeyParamsKeycode = 0
	KeyKeyParamsMeta    = 1

	KeyTypeTextParamsText = 0

	KeySetTextParamsNode = 0
	KeySetTextParamsText = 1

	KeyScreenshotParamsFormat   = 0
	KeyScreenshotParamsQuality  = 1
	KeyScreenshotParamsScalePct = 2

	KeyFramesStartParamsMaxFPS   = 0
	KeyFramesStartParamsScalePct = 1
	KeyFramesStartParamsQuality  = 2

	KeyResyncParamsStream = 0
)

// Keys of the result maps (a Snapshot's and a Device's are above).
const (
	KeyBoundsResultNodes = 0

	KeyScreenshotResultWidth  = 0
	KeyScreenshotResultHeight = 1
	KeyScreenshotResultFormat = 2
	KeyScreenshotResultImage  = 3

	KeyFramesStartResultStream = 0

	KeyResyncResultSeq = 0
)

// Fields describes one integer-keyed map of the protocol: the protocol
// name of each key from 0 up and which keys are required. The values of
// this package are read-only.
type Fields struct {
	names    []string
	required uint32 // bit k: key k is required
}

// fieldsOf returns the Fields of a map whose keys are named by names, in
// key order, with the keys of required required.
func fieldsOf(names []string, required ...int) *Fields {
	f := &Fields{names: names}
	for _, k := range required {
		f.required |= 1 << k
	}
	return f
}

// Name is the protocol name of key k, or "" when the map has no key k.
func (f *Fields) Name(k uint64) string {
	if k < uint64(len(f.names)) {
		return f.names[k]
	}
	return ""
}

// Len is the number of keys the map defines: its keys are 0 to Len-1.
func (f *Fields) Len() int { return len(f.names) }

// Key returns the key named name, and whether there is one.
func (f *Fields) Key(name string) (uint64, bool) {
	for k, n := range f.names {
		if n == name {
			return uint64(k), true
		}
	}
	return 0, false
}

// Required reports whether key k must be present.
func (f *Fields) Required(k uint64) bool { return k < 32 && f.required&(1<<k) != 0 }

// RequiredMask has bit k set for each required key k.
func (f *Fields) RequiredMask() uint32 { return f.required }

// Missing reports the first required key whose bit is clear in seen (bit
// k for key k) as a DecodeError of kind cbor.ErrMissing at byte offset start,
// naming the key; nil when every required key was seen.
func (f *Fields) Missing(seen uint32, start int) error {
	if lack := f.required &^ seen; lack != 0 {
		return f.missing(lack, start)
	}
	return nil
}

// missing is Missing's error for the keys of lack.
func (f *Fields) missing(lack uint32, start int) error {
	k := bits.TrailingZeros32(lack)
	name := f.names[k] // every required key has a name
	return cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "key "+itoa(k)+" ("+name+") is required"), name)
}

// In adds the name of key k to err's field path when the map has key k,
// and returns err unchanged otherwise (a nil err stays nil).
func (f *Fields) In(err error, k uint64) error {
	if k < uint64(len(f.names)) {
		return cbor.WithField(err, f.names[k])
	}
	return err
}

// The maps of the protocol.
var (
	HelloFields    = fieldsOf([]string{"kind", "versions", "max_frame", "capabilities", "token", "agent", "device"}, KeyKind, KeyHelloVersions, KeyHelloMaxFrame, KeyHelloCapabilities, KeyHelloAgent)
	WelcomeFields  = fieldsOf([]string{"kind", "version", "max_frame", "error", "session"}, KeyKind)
	RequestFields  = fieldsOf([]string{"kind", "id", "method", "params", "deadline_ms"}, KeyKind, KeyRequestID, KeyRequestMethod, KeyRequestParams)
	ResponseFields = fieldsOf([]string{"kind", "id", "method", "result", "error"}, KeyKind, KeyResponseID, KeyResponseMethod) // and one of result and error
	PingFields     = fieldsOf([]string{"kind", "nonce"}, KeyKind, KeyNonce)                                                   // a Pong's too
	DeviceFields   = fieldsOf([]string{"model", "sdk", "abi", "display"}, KeyDeviceModel, KeyDeviceSDK, KeyDeviceABI, KeyDeviceDisplay)
	DisplayFields  = fieldsOf([]string{"width", "height", "density_dpi", "rotation"}, KeyDisplayWidth, KeyDisplayHeight, KeyDisplayDensityDPI, KeyDisplayRotation)
	ErrorFields    = fieldsOf([]string{"code", "message", "retryable"}, KeyErrorCode, KeyErrorMessage, KeyErrorRetryable)
	SnapshotFields = fieldsOf([]string{"strings", "windows", "truncated", "seq", "display"}, KeySnapshotStrings, KeySnapshotWindows, KeySnapshotTruncated, KeySnapshotSeq)
	WindowFields   = fieldsOf([]string{"id", "type", "layer", "bounds", "flags", "title", "package", "root", "emits_events", "owner", "modal"}, KeyWindowID, KeyWindowType, KeyWindowLayer, KeyWindowBounds, KeyWindowFlags)
	NodeFields     = fieldsOf(nodeNames[:], KeyNodeID, KeyNodeClass, KeyNodeBounds, KeyNodeFlags)
	ScrollFields   = fieldsOf([]string{"axis", "flags", "range", "position"}, KeyScrollAxis, KeyScrollFlags)
)

// The parameter and result maps, reached through the method table
// (Method.ParamFields, Method.ResultFields).
var (
	snapshotParamFields    = fieldsOf([]string{"max_depth", "max_nodes", "max_windows", "evict_event_less", "evict"}, KeySnapshotParamsEvict)
	boundsParamFields      = fieldsOf([]string{"nodes"}, KeyBoundsParamsNodes)
	tapParamFields         = fieldsOf([]string{"x", "y"}, KeyTapParamsX, KeyTapParamsY)
	longPressParamFields   = fieldsOf([]string{"x", "y", "duration_ms"}, KeyLongPressParamsX, KeyLongPressParamsY, KeyLongPressParamsDurationMS)
	swipeParamFields       = fieldsOf([]string{"x1", "y1", "x2", "y2", "duration_ms", "rest_ms"}, KeySwipeParamsX1, KeySwipeParamsY1, KeySwipeParamsX2, KeySwipeParamsY2, KeySwipeParamsDurationMS)
	keyParamFields         = fieldsOf([]string{"keycode", "meta"}, KeyKeyParamsKeycode)
	typeTextParamFields    = fieldsOf([]string{"text"}, KeyTypeTextParamsText)
	setTextParamFields     = fieldsOf([]string{"node", "text"}, KeySetTextParamsNode, KeySetTextParamsText)
	screenshotParamFields  = fieldsOf([]string{"format", "quality", "scale_pct"})
	framesStartParamFields = fieldsOf([]string{"max_fps", "scale_pct", "quality"})
	resyncParamFields      = fieldsOf([]string{"stream"}, KeyResyncParamsStream)
	emptyFields            = fieldsOf(nil)

	boundsResultFields      = fieldsOf([]string{"nodes"}, KeyBoundsResultNodes)
	screenshotResultFields  = fieldsOf([]string{"width", "height", "format", "image"}, KeyScreenshotResultWidth, KeyScreenshotResultHeight, KeyScreenshotResultFormat, KeyScreenshotResultImage)
	framesStartResultFields = fieldsOf([]string{"stream"}, KeyFramesStartResultStream)
	resyncResultFields      = fieldsOf([]string{"seq"}, KeyResyncResultSeq)
)

// The smallest encodings of a window and a node, with which readers cap a
// count of them by the bytes left.
const (
	MinWindowLen = 15 // map head, keys 0..4, three one-byte values, bounds of 5 bytes, flags
	MinNodeLen   = 13 // map head, keys 0..3, id, class, bounds of 5 bytes, flags
)
