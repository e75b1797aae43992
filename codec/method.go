package codec

import "strconv"

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
}

// methods is the method table, indexed by id. Everything that needs a
// method's name or capability reads it from here.
var methods = [...]methodInfo{
	MethodSnapshot:    {"snapshot", CapTree},
	MethodBounds:      {"bounds", CapBounds},
	MethodTap:         {"tap", CapInput},
	MethodLongPress:   {"long_press", CapInput},
	MethodSwipe:       {"swipe", CapInput},
	MethodKey:         {"key", CapInput},
	MethodTypeText:    {"type_text", CapInput},
	MethodSetText:     {"set_text", CapTextSet},
	MethodScreenshot:  {"screenshot", CapScreenshot},
	MethodFramesStart: {"frames_start", CapFrames},
	MethodFramesStop:  {"frames_stop", CapFrames},
	MethodResync:      {"resync", CapEvents},
	MethodDeviceInfo:  {"device_info", 0},
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
