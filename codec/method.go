package codec

import (
	"strconv"

	"github.com/wirebench/wirebench/codec/schema"
)

// Method is a request's method id.
type Method uint32

// The methods of docs/protocol.md section 4.
const (
	MethodSnapshot    Method = 1
	MethodBounds      Method = 2
	MethodTap         Method = 3
	MethodLongPress   Method = 4
	MethodSwipe       Method = 5
	MethodKey         Method = 6
	MethodTypeText    Method = 7
	MethodSetText     Method = 8
	MethodScreenshot  Method = 9
	MethodFramesStart Method = 10
	MethodFramesStop  Method = 11
	MethodResync      Method = 12
	MethodDeviceInfo  Method = 13
)

// methodInfo is one row of the method table.
type methodInfo struct {
	name string
	cap  Capabilities // needed to call it; 0 for none

	params   schema.Map // the parameter map
	result   schema.Map // the result map
	optional bool       // every parameter is optional: {} is a valid parameter map
	// need and known are the bits of the parameter map's required keys
	// and of all its keys, for the canonical request reader.
	need, known uint32

	newParams   func() Params                        // an empty parameter set (ParamsFor)
	newRequest  func() *Request                      // a request allocated with an empty parameter set
	newResult   func() Result                        // an empty result (ResultFor); nil for Empty
	newResponse func(d *decoder) (*Response, Result) // a response allocated with an empty result; nil for Empty
}

// methods is the method table, indexed by id. Everything that needs a
// method's name, capability, parameter or result type reads it from here.
var methods = [...]methodInfo{
	MethodSnapshot: {name: "snapshot", cap: CapTree, params: schema.SnapshotParams, result: schema.Snapshot,
		newParams:  func() Params { return &SnapshotParams{Evict: []uint32{}} },
		newRequest: requestOf[SnapshotParams], newResult: func() Result { return new(Snapshot) }, newResponse: snapshotResponseOf},
	MethodBounds: {name: "bounds", cap: CapBounds, params: schema.BoundsParams, result: schema.BoundsResult,
		newParams:  func() Params { return &BoundsParams{Nodes: []uint32{}} },
		newRequest: requestOf[BoundsParams], newResult: func() Result { return new(BoundsResult) }, newResponse: responseOf[BoundsResult]},
	MethodTap: {name: "tap", cap: CapInput, params: schema.TapParams, result: schema.Empty,
		newParams: func() Params { return new(TapParams) }, newRequest: requestOf[TapParams]},
	MethodLongPress: {name: "long_press", cap: CapInput, params: schema.LongPressParams, result: schema.Empty,
		newParams: func() Params { return new(LongPressParams) }, newRequest: requestOf[LongPressParams]},
	MethodSwipe: {name: "swipe", cap: CapInput, params: schema.SwipeParams, result: schema.Empty,
		newParams: func() Params { return new(SwipeParams) }, newRequest: requestOf[SwipeParams]},
	MethodKey: {name: "key", cap: CapInput, params: schema.KeyParams, result: schema.Empty,
		newParams: func() Params { return new(KeyParams) }, newRequest: requestOf[KeyParams]},
	MethodTypeText: {name: "type_text", cap: CapInput, params: schema.TypeTextParams, result: schema.Empty,
		newParams: func() Params { return new(TypeTextParams) }, newRequest: requestOf[TypeTextParams]},
	MethodSetText: {name: "set_text", cap: CapTextSet, params: schema.SetTextParams, result: schema.Empty,
		newParams: func() Params { return new(SetTextParams) }, newRequest: requestOf[SetTextParams]},
	MethodScreenshot: {name: "screenshot", cap: CapScreenshot, params: schema.ScreenshotParams, result: schema.ScreenshotResult, optional: true,
		newParams:  func() Params { return new(ScreenshotParams) },
		newRequest: requestOf[ScreenshotParams], newResult: func() Result { return new(ScreenshotResult) }, newResponse: responseOf[ScreenshotResult]},
	MethodFramesStart: {name: "frames_start", cap: CapFrames, params: schema.FramesStartParams, result: schema.FramesStartResult, optional: true,
		newParams:  func() Params { return new(FramesStartParams) },
		newRequest: requestOf[FramesStartParams], newResult: func() Result { return new(FramesStartResult) }, newResponse: responseOf[FramesStartResult]},
	MethodFramesStop: {name: "frames_stop", cap: CapFrames, params: schema.Empty, result: schema.Empty, optional: true,
		newParams: func() Params { return new(FramesStopParams) }, newRequest: requestOf[FramesStopParams]},
	MethodResync: {name: "resync", cap: CapEvents, params: schema.ResyncParams, result: schema.ResyncResult,
		newParams:  func() Params { return new(ResyncParams) },
		newRequest: requestOf[ResyncParams], newResult: func() Result { return new(ResyncResult) }, newResponse: responseOf[ResyncResult]},
	MethodDeviceInfo: {name: "device_info", params: schema.Empty, result: schema.Device, optional: true,
		newParams:  func() Params { return new(DeviceInfoParams) },
		newRequest: requestOf[DeviceInfoParams], newResult: func() Result { return new(Device) }, newResponse: responseOf[Device]},
}

// Known reports whether m is a method of this protocol version.
func (m Method) Known() bool { return m > 0 && int(m) < len(methods) }

// String is the method's protocol name, or its number when unknown.
func (m Method) String() string {
	if m.Known() {
		return methods[m].name
	}
	return strconv.FormatUint(uint64(m), 10)
}

// Capability is the capability an agent must advertise for m (0 when the
// method needs none or is unknown).
func (m Method) Capability() Capabilities {
	if m.Known() {
		return methods[m].cap
	}
	return 0
}

// Methods lists every known method in id order.
func Methods() []Method {
	out := make([]Method, 0, len(methods)-1)
	for m := Method(1); int(m) < len(methods); m++ {
		out = append(out, m)
	}
	return out
}

// ParseMethod returns the method named s (a protocol name or a number).
func ParseMethod(s string) (Method, bool) {
	for m := Method(1); int(m) < len(methods); m++ {
		if methods[m].name == s {
			return m, true
		}
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return Method(v), err == nil
}

// info is m's row of the method table; the zero row for an unknown m.
func (m Method) info() *methodInfo {
	if m.Known() {
		return &methods[m]
	}
	return &unknownMethod
}

// unknownMethod is the row of every method this version does not know.
var unknownMethod methodInfo

// ParamMap is m's parameter map in the schema (schema.Empty when m is
// unknown).
func (m Method) ParamMap() schema.Map { return m.info().params }

// ResultMap is m's result map in the schema (schema.Empty when m is
// unknown).
func (m Method) ResultMap() schema.Map { return m.info().result }

func init() {
	for i := range methods {
		r := &methods[i]
		r.need, r.known = r.params.RequiredMask(), uint32(1)<<r.params.Len()-1
	}
}

// OptionalParams reports whether every parameter of m is optional, so
// that {} is a valid parameter map and a nil Params encodes as {}.
func (m Method) OptionalParams() bool { return m.info().optional }

// EmptyResult reports whether m's result is Empty, {} on the wire.
func (m Method) EmptyResult() bool { return m.Known() && methods[m].newResult == nil }

// ParamsFor returns a new, empty parameter set for method m, or nil when m
// is unknown.
func ParamsFor(m Method) Params {
	if m.Known() {
		return methods[m].newParams()
	}
	return nil
}

var theEmpty Empty

// ResultFor returns a new, empty result for method m, or nil when m is
// unknown.
func ResultFor(m Method) Result {
	switch {
	case !m.Known():
		return nil
	case methods[m].newResult == nil:
		return &theEmpty
	}
	return methods[m].newResult()
}
