package codec

import (
	"slices"

	"github.com/wirebench/wirebench/codec/cbor"
)

// Request asks the agent to run a method.
type Request struct {
	ID     uint64 // key 1, host-assigned, unique among requests in flight
	Method Method // key 2
	// Params (key 3) holds the method's parameters: *SnapshotParams for
	// MethodSnapshot, and so on (see ParamsFor). nil encodes as {} for an
	// unknown method and for the methods whose parameters are all
	// optional (screenshot, frames_start, frames_stop, device_info); the
	// encoder refuses nil for the others, since {} would not decode. A
	// request with an unknown method decodes with nil Params.
	Params Params
	// DeadlineMS (key 4) is relative to the agent's receipt of the request.
	DeadlineMS Opt[uint32]
}

// Kind returns KindRequest.
func (*Request) Kind() Kind { return KindRequest }

// Params is a method's parameter set.
type Params interface {
	// Method is the method these parameters belong to.
	Method() Method
	appendCBOR(dst []byte) ([]byte, error)
	decodeFrom(d *decoder) error
}

// SnapshotParams are the parameters of snapshot.
type SnapshotParams struct {
	MaxDepth       Opt[uint32] // key 0
	MaxNodes       Opt[uint32] // key 1
	MaxWindows     Opt[uint32] // key 2
	EvictEventLess Opt[bool]   // key 3
	Evict          []uint32    // key 4, window ids; always written, [] when empty
}

// BoundsParams are the parameters of bounds.
type BoundsParams struct {
	Nodes []uint32 // key 0, node ids of the agent's last snapshot
}

// TapParams are the parameters of tap.
type TapParams struct {
	X, Y int32 // keys 0, 1
}

// LongPressParams are the parameters of long_press.
type LongPressParams struct {
	X, Y       int32  // keys 0, 1
	DurationMS uint32 // key 2
}

// SwipeParams are the parameters of swipe.
type SwipeParams struct {
	X1, Y1, X2, Y2 int32       // keys 0..3
	DurationMS     uint32      // key 4
	RestMS         Opt[uint32] // key 5: rest at (X2, Y2) this long before lifting
}

// KeyParams are the parameters of key.
type KeyParams struct {
	Keycode uint32      // key 0
	Meta    Opt[uint32] // key 1
}

// TypeTextParams are the parameters of type_text.
type TypeTextParams struct {
	Text string // key 0
}

// SetTextParams are the parameters of set_text.
type SetTextParams struct {
	Node uint32 // key 0
	Text string // key 1
}

// ScreenshotParams are the parameters of screenshot.
type ScreenshotParams struct {
	Format   Opt[uint32] // key 0, an ImageFormat
	Quality  Opt[uint32] // key 1
	ScalePct Opt[uint32] // key 2
}

// FramesStartParams are the parameters of frames_start.
type FramesStartParams struct {
	MaxFPS   Opt[uint32] // key 0
	ScalePct Opt[uint32] // key 1
	Quality  Opt[uint32] // key 2
}

// FramesStopParams are the (empty) parameters of frames_stop.
type FramesStopParams struct{}

// ResyncParams are the parameters of resync.
type ResyncParams struct {
	Stream Stream // key 0
}

// DeviceInfoParams are the (empty) parameters of device_info.
type DeviceInfoParams struct{}

// Image formats of screenshot and frames.
const (
	FormatPNG  uint32 = 0
	FormatJPEG uint32 = 1
	FormatWebP uint32 = 2
)

// Method implementations.

// Method returns MethodSnapshot.
func (*SnapshotParams) Method() Method { return MethodSnapshot }

// Method returns MethodBounds.
func (*BoundsParams) Method() Method { return MethodBounds }

// Method returns MethodTap.
func (*TapParams) Method() Method { return MethodTap }

// Method returns MethodLongPress.
func (*LongPressParams) Method() Method { return MethodLongPress }

// Method returns MethodSwipe.
func (*SwipeParams) Method() Method { return MethodSwipe }

// Method returns MethodKey.
func (*KeyParams) Method() Method { return MethodKey }

// Method returns MethodTypeText.
func (*TypeTextParams) Method() Method { return MethodTypeText }

// Method returns MethodSetText.
func (*SetTextParams) Method() Method { return MethodSetText }

// Method returns MethodScreenshot.
func (*ScreenshotParams) Method() Method { return MethodScreenshot }

// Method returns MethodFramesStart.
func (*FramesStartParams) Method() Method { return MethodFramesStart }

// Method returns MethodFramesStop.
func (*FramesStopParams) Method() Method { return MethodFramesStop }

// Method returns MethodResync.
func (*ResyncParams) Method() Method { return MethodResync }

// Method returns MethodDeviceInfo.
func (*DeviceInfoParams) Method() Method { return MethodDeviceInfo }

// ParamsFor returns a new, empty parameter set for method m, or nil when m
// is unknown.
func ParamsFor(m Method) Params {
	switch m {
	case MethodSnapshot:
		return &SnapshotParams{Evict: []uint32{}}
	case MethodBounds:
		return &BoundsParams{Nodes: []uint32{}}
	case MethodTap:
		return new(TapParams)
	case MethodLongPress:
		return new(LongPressParams)
	case MethodSwipe:
		return new(SwipeParams)
	case MethodKey:
		return new(KeyParams)
	case MethodTypeText:
		return new(TypeTextParams)
	case MethodSetText:
		return new(SetTextParams)
	case MethodScreenshot:
		return new(ScreenshotParams)
	case MethodFramesStart:
		return new(FramesStartParams)
	case MethodFramesStop:
		return new(FramesStopParams)
	case MethodResync:
		return new(ResyncParams)
	case MethodDeviceInfo:
		return new(DeviceInfoParams)
	}
	return nil
}

func (r *Request) appendCBOR(dst []byte) ([]byte, error) {
	if r.Params != nil && r.Params.Method() != r.Method {
		return dst, &EncodeError{Field: "request.params", Detail: "parameters of " + r.Params.Method().String() + " in a " + r.Method.String() + " request"}
	}
	if r.Params == nil && r.Method.Known() && !optionalParams(r.Method) {
		return dst, &EncodeError{Field: "request.params", Detail: r.Method.String() + " needs its parameters; nil encodes {}, which does not decode"}
	}
	// The envelope and the params of the input methods, the hot path of
	// a daemon driving a device, are written into room reserved once.
	dst = slices.Grow(dst, requestRoom)
	b := dst[len(dst) : len(dst)+requestRoom]
	b[0], b[1], b[2], b[3] = 0xa4+byte(present(r.DeadlineMS.Ok)), 0x00, byte(KindRequest), 1
	i := cbor.PutUint(b, 4, r.ID)
	b[i] = 2
	i = putU32(b, i+1, uint32(r.Method))
	b[i] = 3
	i++
	switch p := r.Params.(type) {
	case nil:
		b[i] = 0xa0
		i++
	case *TapParams:
		b[i], b[i+1] = 0xa2, 0
		i = putI32(b, i+2, p.X)
		b[i] = 1
		i = putI32(b, i+1, p.Y)
	case *SwipeParams:
		b[i], b[i+1] = 0xa5+byte(present(p.RestMS.Ok)), 0
		i = putI32(b, i+2, p.X1)
		b[i] = 1
		i = putI32(b, i+1, p.Y1)
		b[i] = 2
		i = putI32(b, i+1, p.X2)
		b[i] = 3
		i = putI32(b, i+1, p.Y2)
		b[i] = 4
		i = putU32(b, i+1, p.DurationMS)
		if p.RestMS.Ok {
			b[i] = 5
			i = putU32(b, i+1, p.RestMS.Val)
		}
	default:
		var err error
		if dst, err = r.Params.appendCBOR(dst[:len(dst)+i]); err != nil {
			return dst, err
		}
		if !r.DeadlineMS.Ok {
			return dst, nil
		}
		return appendUintField(dst, 4, uint64(r.DeadlineMS.Val)), nil
	}
	if r.DeadlineMS.Ok {
		b[i] = 4
		i = putU32(b, i+1, r.DeadlineMS.Val)
	}
	return dst[:len(dst)+i], nil
}

// requestRoom holds a request's envelope and the params written with it:
// map head, kind, id, method, params key, the params of a swipe (map head,
// six keys, six values of at most 5 bytes), deadline, and putU32's room.
const requestRoom = 1 + 2 + 1 + cbor.MaxHeadLen + 1 + 5 + 1 + 1 + 6*(1+5) + 1 + 5 + putRoom

func appendOptU32(dst []byte, key byte, o Opt[uint32]) []byte {
	if o.Ok {
		return appendUintField(dst, key, uint64(o.Val))
	}
	return dst
}

func (p *SnapshotParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 1+present(p.MaxDepth.Ok, p.MaxNodes.Ok, p.MaxWindows.Ok, p.EvictEventLess.Ok))
	dst = appendOptU32(dst, 0, p.MaxDepth)
	dst = appendOptU32(dst, 1, p.MaxNodes)
	dst = appendOptU32(dst, 2, p.MaxWindows)
	if p.EvictEventLess.Ok {
		dst = appendBoolField(dst, 3, p.EvictEventLess.Val)
	}
	return appendU32Array(append(dst, 4), p.Evict), nil
}

func (p *BoundsParams) appendCBOR(dst []byte) ([]byte, error) {
	return appendU32Array(append(dst, 0xa1, 0), p.Nodes), nil
}

func (p *TapParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = appendIntField(append(dst, 0xa2), 0, int64(p.X))
	return appendIntField(dst, 1, int64(p.Y)), nil
}

func (p *LongPressParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = appendIntField(append(dst, 0xa3), 0, int64(p.X))
	dst = appendIntField(dst, 1, int64(p.Y))
	return appendUintField(dst, 2, uint64(p.DurationMS)), nil
}

func (p *SwipeParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 5+present(p.RestMS.Ok))
	dst = appendIntField(dst, 0, int64(p.X1))
	dst = appendIntField(dst, 1, int64(p.Y1))
	dst = appendIntField(dst, 2, int64(p.X2))
	dst = appendIntField(dst, 3, int64(p.Y2))
	dst = appendUintField(dst, 4, uint64(p.DurationMS))
	return appendOptU32(dst, 5, p.RestMS), nil
}

func (p *KeyParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 1+present(p.Meta.Ok))
	dst = appendUintField(dst, 0, uint64(p.Keycode))
	return appendOptU32(dst, 1, p.Meta), nil
}

func (p *TypeTextParams) appendCBOR(dst []byte) ([]byte, error) {
	if err := checkText(p.Text, "request.params.text", ""); err != nil {
		return dst, err
	}
	return appendTextField(append(dst, 0xa1), 0, p.Text), nil
}

func (p *SetTextParams) appendCBOR(dst []byte) ([]byte, error) {
	if err := checkText(p.Text, "request.params.text", ""); err != nil {
		return dst, err
	}
	dst = appendUintField(append(dst, 0xa2), 0, uint64(p.Node))
	return appendTextField(dst, 1, p.Text), nil
}

func (p *ScreenshotParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, present(p.Format.Ok, p.Quality.Ok, p.ScalePct.Ok))
	dst = appendOptU32(dst, 0, p.Format)
	dst = appendOptU32(dst, 1, p.Quality)
	return appendOptU32(dst, 2, p.ScalePct), nil
}

func (p *FramesStartParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, present(p.MaxFPS.Ok, p.ScalePct.Ok, p.Quality.Ok))
	dst = appendOptU32(dst, 0, p.MaxFPS)
	dst = appendOptU32(dst, 1, p.ScalePct)
	return appendOptU32(dst, 2, p.Quality), nil
}

func (*FramesStopParams) appendCBOR(dst []byte) ([]byte, error) { return append(dst, 0xa0), nil }

func (p *ResyncParams) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa1), 0, uint64(p.Stream)), nil
}

func (*DeviceInfoParams) appendCBOR(dst []byte) ([]byte, error) { return append(dst, 0xa0), nil }

// Decoding.

var requestNames = []string{"kind", "id", "method", "params", "deadline_ms"}

// request decodes the rest of a request map opened by message. The
// method (key 2) decides how to read the params (key 3); the canonical
// order puts it first, and the request and its params are allocated when
// key 3 comes. Only when key 3 comes before key 2 is the map scanned for
// the method first.
func (d *decoder) request(it mapIter) (*Request, error) {
	var (
		r          *Request
		id         uint64
		deadline   Opt[uint32]
		method     Method
		haveMethod bool
	)
	start, n, seen := it.start, it.n, it.seen
	for i := it.i; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return nil, err
		}
		if d.Null() {
			switch k {
			case 2:
				haveMethod = false
			case 3:
				if r != nil {
					r.Params = nil
				}
			case 4:
				deadline = Opt[uint32]{}
			}
			if k < 32 {
				seen &^= 1 << k
			}
			continue
		}
		switch k {
		case 0:
			err = d.checkKind(KindRequest)
		case 1:
			id, err = d.u64()
		case 2:
			var v uint32
			at := d.Offset()
			if v, err = d.u32(); err == nil {
				if r != nil && Method(v) != r.Method {
					err = cbor.Errorf(cbor.ErrInvalid, at, "method "+Method(v).String()+" repeats key 2 with another value than "+r.Method.String())
				}
				method, haveMethod = Method(v), true
			}
		case 3:
			if r == nil {
				if !haveMethod {
					if method, haveMethod, err = d.peekMethodAt(it.head); err != nil {
						return nil, cbor.In(err, "method")
					}
				}
				r = newRequest(method)
			}
			if r.Params == nil {
				r.Params = ParamsFor(r.Method)
			}
			if r.Params == nil {
				// Unknown method: skip the params so the request can
				// still be answered with unknown_method.
				err = d.skipMap()
			} else {
				err = r.Params.decodeFrom(d)
			}
		case 4:
			deadline, err = d.optU32()
		default:
			err = d.Skip()
		}
		if err != nil {
			if k < uint64(len(requestNames)) {
				err = cbor.In(err, requestNames[k])
			}
			return nil, err
		}
		if k < 32 {
			seen |= 1 << k
		}
	}
	if err := cbor.Missing(0xf, seen, requestNames, start); err != nil {
		return nil, err
	}
	r.ID, r.DeadlineMS = id, deadline
	return r, nil
}

// peekMethodAt scans the map whose head head is positioned at for its
// method (key 2, the last one when it repeats), leaving d where it is.
func (d *decoder) peekMethodAt(head cbor.Decoder) (Method, bool, error) {
	save := d.Decoder
	d.Decoder = head
	m, found, err := d.scanMethod()
	d.Decoder = save
	return m, found, err
}

// skipMap skips an item that must be a map.
func (d *decoder) skipMap() error {
	if b, ok := d.PeekByte(); ok && b>>5 != byte(cbor.MajorMap) {
		start := d.Offset()
		h, err := d.ReadHead()
		if err != nil {
			return err
		}
		return cbor.Errorf(cbor.ErrType, start, h.Major.String()+" where a map was expected")
	}
	return d.Skip()
}

// scanMethod reads the map at the decoder's position for its method (key
// 2). A map it cannot scan is left to the main loop to report with the
// right field path.
func (d *decoder) scanMethod() (m Method, found bool, err error) {
	n, err := d.mapHead()
	if err != nil {
		return 0, false, nil
	}
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return 0, false, nil
		}
		switch {
		case k == 2 && d.Null():
			found = false
		case k == 2:
			v, err := d.u32()
			if err != nil {
				return 0, false, err
			}
			m, found = Method(v), true
		case k == 3 && found:
			return m, true, nil
		default:
			if d.Skip() != nil {
				return m, found, nil
			}
		}
	}
	return m, found, nil
}

// Parameter decoders. Each resets its receiver, so a repeated key's last
// value wins whole.

var snapshotParamNames = []string{"max_depth", "max_nodes", "max_windows", "evict_event_less", "evict"}

func (p *SnapshotParams) decodeFrom(d *decoder) error {
	*p = SnapshotParams{}
	return d.fields(1<<4, snapshotParamNames, func(k uint64) (err error) {
		switch k {
		case 0:
			p.MaxDepth, err = d.optU32()
		case 1:
			p.MaxNodes, err = d.optU32()
		case 2:
			p.MaxWindows, err = d.optU32()
		case 3:
			p.EvictEventLess, err = d.optBool()
		default:
			p.Evict, err = d.u32Array()
		}
		return err
	}, func(k uint64) {
		switch k {
		case 0:
			p.MaxDepth = Opt[uint32]{}
		case 1:
			p.MaxNodes = Opt[uint32]{}
		case 2:
			p.MaxWindows = Opt[uint32]{}
		case 3:
			p.EvictEventLess = Opt[bool]{}
		case 4:
			p.Evict = nil
		}
	})
}

func (p *BoundsParams) decodeFrom(d *decoder) error {
	*p = BoundsParams{}
	return d.fields(1, []string{"nodes"}, func(k uint64) (err error) {
		p.Nodes, err = d.u32Array()
		return err
	}, nil)
}

func (p *TapParams) decodeFrom(d *decoder) error {
	*p = TapParams{}
	return d.fields(3, []string{"x", "y"}, func(k uint64) (err error) {
		if k == 0 {
			p.X, err = d.i32()
		} else {
			p.Y, err = d.i32()
		}
		return err
	}, nil)
}

func (p *LongPressParams) decodeFrom(d *decoder) error {
	*p = LongPressParams{}
	return d.fields(7, []string{"x", "y", "duration_ms"}, func(k uint64) (err error) {
		switch k {
		case 0:
			p.X, err = d.i32()
		case 1:
			p.Y, err = d.i32()
		default:
			p.DurationMS, err = d.u32()
		}
		return err
	}, nil)
}

func (p *SwipeParams) decodeFrom(d *decoder) error {
	*p = SwipeParams{}
	return d.fields(0x1f, []string{"x1", "y1", "x2", "y2", "duration_ms", "rest_ms"}, func(k uint64) (err error) {
		switch k {
		case 0:
			p.X1, err = d.i32()
		case 1:
			p.Y1, err = d.i32()
		case 2:
			p.X2, err = d.i32()
		case 3:
			p.Y2, err = d.i32()
		case 4:
			p.DurationMS, err = d.u32()
		default:
			p.RestMS, err = d.optU32()
		}
		return err
	}, func(k uint64) { p.RestMS = Opt[uint32]{} })
}

func (p *KeyParams) decodeFrom(d *decoder) error {
	*p = KeyParams{}
	return d.fields(1, []string{"keycode", "meta"}, func(k uint64) (err error) {
		if k == 0 {
			p.Keycode, err = d.u32()
		} else {
			p.Meta, err = d.optU32()
		}
		return err
	}, func(k uint64) { p.Meta = Opt[uint32]{} })
}

func (p *TypeTextParams) decodeFrom(d *decoder) error {
	*p = TypeTextParams{}
	return d.fields(1, []string{"text"}, func(k uint64) (err error) {
		p.Text, err = d.text()
		return err
	}, nil)
}

func (p *SetTextParams) decodeFrom(d *decoder) error {
	*p = SetTextParams{}
	return d.fields(3, []string{"node", "text"}, func(k uint64) (err error) {
		if k == 0 {
			p.Node, err = d.u32()
		} else {
			p.Text, err = d.text()
		}
		return err
	}, nil)
}

func (p *ScreenshotParams) decodeFrom(d *decoder) error {
	*p = ScreenshotParams{}
	return d.optU32Fields([]string{"format", "quality", "scale_pct"}, &p.Format, &p.Quality, &p.ScalePct)
}

func (p *FramesStartParams) decodeFrom(d *decoder) error {
	*p = FramesStartParams{}
	return d.optU32Fields([]string{"max_fps", "scale_pct", "quality"}, &p.MaxFPS, &p.ScalePct, &p.Quality)
}

func (*FramesStopParams) decodeFrom(d *decoder) error { return d.fields(0, nil, nil, nil) }

func (p *ResyncParams) decodeFrom(d *decoder) error {
	*p = ResyncParams{}
	return d.fields(1, []string{"stream"}, func(k uint64) error {
		v, err := d.u32()
		p.Stream = Stream(v)
		return err
	}, nil)
}

func (*DeviceInfoParams) decodeFrom(d *decoder) error { return d.fields(0, nil, nil, nil) }

// fields walks a map whose known keys are 0..len(names)-1: it calls read
// for each known key with a non-null value, clear for a known key with a
// null value (when clear is non-nil), skips every other key, and checks
// that the keys in the need mask were present. It is how every map but a
// node, a request and a response is read.
func (d *decoder) fields(need uint32, names []string, read func(k uint64) error, clear func(k uint64)) error {
	start := d.Offset()
	n, err := d.mapHead()
	if err != nil {
		return err
	}
	return d.walk(mapIter{start: start, n: n}, need, names, read, clear)
}

// walk is fields for a map already opened (and maybe partly read) by it.
func (d *decoder) walk(it mapIter, need uint32, names []string, read func(k uint64) error, clear func(k uint64)) error {
	seen := it.seen
	for i := it.i; d.More(it.n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return err
		}
		known := k < uint64(len(names))
		if d.Null() {
			if known {
				seen &^= 1 << k
				if clear != nil {
					clear(k)
				}
			}
			continue
		}
		if !known {
			if err := d.Skip(); err != nil {
				return err
			}
			continue
		}
		if err := read(k); err != nil {
			return cbor.In(err, names[k])
		}
		seen |= 1 << k
	}
	return cbor.Missing(need, seen, names, it.start)
}

// optU32Fields decodes a map of optional u32 fields at keys 0, 1, ...
func (d *decoder) optU32Fields(names []string, dst ...*Opt[uint32]) error {
	return d.fields(0, names, func(k uint64) (err error) {
		*dst[k], err = d.optU32()
		return err
	}, func(k uint64) { *dst[k] = Opt[uint32]{} })
}

// optionalParams reports whether every parameter of m is optional, so
// that {} is a valid parameter map.
func optionalParams(m Method) bool {
	switch m {
	case MethodScreenshot, MethodFramesStart, MethodFramesStop, MethodDeviceInfo:
		return true
	}
	return false
}
