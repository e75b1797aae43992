// Package schema holds the numbers of the wire protocol
// (docs/protocol.md) that the codec, its borrowed views and the tools
// built on them share: the key of every field of every map, each map's
// key names and required keys (Map), the flag bits and enumerations the
// messages carry, and the framing and nesting limits.
//
// The codec's types (package codec) are the API; this package is what
// their encoding is made of. A key changes in one place, grep finds every
// use, and nothing here can be changed at run time: every name is a
// constant. Every key is below 24: on the wire a key is one byte, its own
// head.
package schema

//go:generate go run ../internal/fieldgen -pkg schema

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

// The keys of a Node map (KeyNodeID ... KeyNodeState) are generated into
// node_gen.go from the Node key table of docs/protocol.md (make
// generate), with the per-field code of a node in codec, codec/zerocopy
// and the benchmarks' twins.

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
