package schema

import (
	"math/bits"
	"strconv"

	"github.com/wirebench/wirebench/codec/cbor"
)

// Map names one integer-keyed map of the protocol. Its methods give the
// protocol name of each key, from 0 up, and which keys are required. The
// encoder, the decoder, the borrowed views and cmd/wire's JSON form all
// read them.
type Map uint8

// The maps of the protocol. A Pong's map is a Ping's; the parameter and
// result maps are reached by method through codec.Method's ParamMap and
// ResultMap.
const (
	Empty Map = iota // {}: the parameters or result of a method without any
	Hello
	Welcome
	Request
	Response
	Ping
	Device
	Display
	Error
	Snapshot
	Window
	Node
	Scroll
	SnapshotParams
	BoundsParams
	TapParams
	LongPressParams
	SwipeParams
	KeyParams
	TypeTextParams
	SetTextParams
	ScreenshotParams
	FramesStartParams
	ResyncParams
	BoundsResult
	ScreenshotResult
	FramesStartResult
	ResyncResult
	numMaps
)

// mapInfo is a map's row of the table: its keys' names from 0 up and a
// bit for each required key.
type mapInfo struct {
	names    []string
	required uint32
}

// req is the mask of the keys ks.
func req(ks ...int) uint32 {
	var m uint32
	for _, k := range ks {
		m |= 1 << k
	}
	return m
}

// maps is the table of every map, by Map.
var maps = [numMaps]mapInfo{
	Empty:    {nil, 0},
	Hello:    {[]string{"kind", "versions", "max_frame", "capabilities", "token", "agent", "device"}, req(KeyKind, KeyHelloVersions, KeyHelloMaxFrame, KeyHelloCapabilities, KeyHelloAgent)},
	Welcome:  {[]string{"kind", "version", "max_frame", "error", "session"}, req(KeyKind)},
	Request:  {[]string{"kind", "id", "method", "params", "deadline_ms"}, req(KeyKind, KeyRequestID, KeyRequestMethod, KeyRequestParams)},
	Response: {[]string{"kind", "id", "method", "result", "error"}, req(KeyKind, KeyResponseID, KeyResponseMethod)}, // and one of result and error
	Ping:     {[]string{"kind", "nonce"}, req(KeyKind, KeyNonce)},
	Device:   {[]string{"model", "sdk", "abi", "display"}, req(KeyDeviceModel, KeyDeviceSDK, KeyDeviceABI, KeyDeviceDisplay)},
	Display:  {[]string{"width", "height", "density_dpi", "rotation"}, req(KeyDisplayWidth, KeyDisplayHeight, KeyDisplayDensityDPI, KeyDisplayRotation)},
	Error:    {[]string{"code", "message", "retryable"}, req(KeyErrorCode, KeyErrorMessage, KeyErrorRetryable)},
	Snapshot: {[]string{"strings", "windows", "truncated", "seq", "display"}, req(KeySnapshotStrings, KeySnapshotWindows, KeySnapshotTruncated, KeySnapshotSeq)},
	Window:   {[]string{"id", "type", "layer", "bounds", "flags", "title", "package", "root", "emits_events", "owner", "modal"}, req(KeyWindowID, KeyWindowType, KeyWindowLayer, KeyWindowBounds, KeyWindowFlags)},
	Node:     {nodeNames[:], nodeRequired},
	Scroll:   {[]string{"axis", "flags", "range", "position"}, req(KeyScrollAxis, KeyScrollFlags)},

	SnapshotParams:    {[]string{"max_depth", "max_nodes", "max_windows", "evict_event_less", "evict"}, req(KeySnapshotParamsEvict)},
	BoundsParams:      {[]string{"nodes"}, req(KeyBoundsParamsNodes)},
	TapParams:         {[]string{"x", "y"}, req(KeyTapParamsX, KeyTapParamsY)},
	LongPressParams:   {[]string{"x", "y", "duration_ms"}, req(KeyLongPressParamsX, KeyLongPressParamsY, KeyLongPressParamsDurationMS)},
	SwipeParams:       {[]string{"x1", "y1", "x2", "y2", "duration_ms", "rest_ms"}, req(KeySwipeParamsX1, KeySwipeParamsY1, KeySwipeParamsX2, KeySwipeParamsY2, KeySwipeParamsDurationMS)},
	KeyParams:         {[]string{"keycode", "meta"}, req(KeyKeyParamsKeycode)},
	TypeTextParams:    {[]string{"text"}, req(KeyTypeTextParamsText)},
	SetTextParams:     {[]string{"node", "text"}, req(KeySetTextParamsNode, KeySetTextParamsText)},
	ScreenshotParams:  {[]string{"format", "quality", "scale_pct"}, 0},
	FramesStartParams: {[]string{"max_fps", "scale_pct", "quality"}, 0},
	ResyncParams:      {[]string{"stream"}, req(KeyResyncParamsStream)},

	BoundsResult:      {[]string{"nodes"}, req(KeyBoundsResultNodes)},
	ScreenshotResult:  {[]string{"width", "height", "format", "image"}, req(KeyScreenshotResultWidth, KeyScreenshotResultHeight, KeyScreenshotResultFormat, KeyScreenshotResultImage)},
	FramesStartResult: {[]string{"stream"}, req(KeyFramesStartResultStream)},
	ResyncResult:      {[]string{"seq"}, req(KeyResyncResultSeq)},
}

// Name is the protocol name of key k, or "" when the map has no key k.
func (m Map) Name(k uint64) string {
	if names := maps[m].names; k < uint64(len(names)) {
		return names[k]
	}
	return ""
}

// Len is the number of keys the map defines: its keys are 0 to Len-1.
func (m Map) Len() int { return len(maps[m].names) }

// Key returns the key named name, and whether there is one.
func (m Map) Key(name string) (uint64, bool) {
	for k, n := range maps[m].names {
		if n == name {
			return uint64(k), true
		}
	}
	return 0, false
}

// Required reports whether key k must be present.
func (m Map) Required(k uint64) bool { return k < 32 && maps[m].required&(1<<k) != 0 }

// RequiredMask has bit k set for each required key k.
func (m Map) RequiredMask() uint32 { return maps[m].required }

// Missing reports the first required key whose bit is clear in seen (bit
// k for key k) as a *cbor.Error of kind cbor.ErrMissing at byte offset
// start, naming the key; nil when every required key was seen.
func (m Map) Missing(seen uint32, start int) error {
	if lack := maps[m].required &^ seen; lack != 0 {
		return m.missing(lack, start)
	}
	return nil
}

// missing is Missing's error for the keys of lack.
func (m Map) missing(lack uint32, start int) error {
	k := bits.TrailingZeros32(lack)
	name := maps[m].names[k] // every required key has a name
	return cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "key "+strconv.Itoa(k)+" ("+name+") is required"), name)
}

// In adds the name of key k to err's field path when the map has key k,
// and returns err unchanged otherwise (a nil err stays nil).
func (m Map) In(err error, k uint64) error {
	if names := maps[m].names; k < uint64(len(names)) {
		return cbor.WithField(err, names[k])
	}
	return err
}
