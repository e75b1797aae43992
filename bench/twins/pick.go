package twins

import "github.com/wirebench/wirebench/codec"

// The twins a receiver picks by what it has read: the params or result
// twin by method, the event twin by stream and type. Params and events are
// switches, as a user of either library writes them: the decoders call
// them inside timed loops, and on a request or event of a few hundred
// instructions a table of constructors shows. TestPick checks all three
// against codec's method table and event bodies.

// newParams returns a new twin of method m's params; nil for a method
// this version does not know.
func newParams(m uint32) Twin {
	switch codec.Method(m) {
	case codec.MethodSnapshot:
		return new(SnapshotParams)
	case codec.MethodBounds:
		return new(BoundsParams)
	case codec.MethodTap:
		return new(TapParams)
	case codec.MethodLongPress:
		return new(LongPressParams)
	case codec.MethodSwipe:
		return new(SwipeParams)
	case codec.MethodKey:
		return new(KeyParams)
	case codec.MethodTypeText:
		return new(TypeTextParams)
	case codec.MethodSetText:
		return new(SetTextParams)
	case codec.MethodScreenshot:
		return new(ScreenshotParams)
	case codec.MethodFramesStart:
		return new(FramesStartParams)
	case codec.MethodFramesStop:
		return new(FramesStopParams)
	case codec.MethodResync:
		return new(ResyncParams)
	case codec.MethodDeviceInfo:
		return new(DeviceInfoParams)
	}
	return nil
}

// newResult returns a new twin of method m's result; nil for a method
// this version does not know. Results are picked through the table init
// builds from codec.ResultFor: responses are large, and reflect.New costs
// them nothing a count shows.
func newResult(m uint32) Twin {
	if int(m) < len(resultTwins) && resultTwins[m] != nil {
		return newTwin(resultTwins[m])
	}
	return nil
}

// newEvent returns a new twin of an event of stream s and type t; nil for
// a type this version does not know.
func newEvent(s, t uint32) Twin {
	switch codec.BodyFor(codec.Stream(s), codec.EventType(t)).(type) {
	case *codec.WindowChanged:
		return new(WindowChanged)
	case *codec.ContentChanged:
		return new(ContentChanged)
	case *codec.ScreenFrame:
		return new(ScreenFrame)
	}
	return nil
}
