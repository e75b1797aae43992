package codec

import (
	"slices"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
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

func (r *Request) appendCBOR(dst []byte) ([]byte, error) {
	if r.Params != nil && r.Params.Method() != r.Method {
		return dst, &EncodeError{Field: "request.params", Detail: "parameters of " + r.Params.Method().String() + " in a " + r.Method.String() + " request"}
	}
	if r.Params == nil && r.Method.Known() && !methods[r.Method].optional {
		return dst, &EncodeError{Field: "request.params", Detail: r.Method.String() + " needs its parameters; nil encodes {}, which does not decode"}
	}
	// The envelope and the params of the input methods, the hot path of
	// a daemon driving a device, are written into room reserved once.
	dst = slices.Grow(dst, requestRoom)
	b := dst[len(dst) : len(dst)+requestRoom]
	b[0], b[1], b[2], b[3] = 0xa4+byte(present(r.DeadlineMS.Ok)), schema.KeyKind, byte(KindRequest), schema.KeyRequestID
	i := cbor.PutUint(b, 4, r.ID)
	b[i] = schema.KeyRequestMethod
	i = putU32(b, i+1, uint32(r.Method))
	b[i] = schema.KeyRequestParams
	i++
	switch p := r.Params.(type) {
	case nil:
		b[i] = 0xa0
		i++
	case *TapParams:
		b[i], b[i+1] = 0xa2, schema.KeyTapParamsX
		i = putI32(b, i+2, p.X)
		b[i] = schema.KeyTapParamsY
		i = putI32(b, i+1, p.Y)
	case *SwipeParams:
		b[i], b[i+1] = 0xa5+byte(present(p.RestMS.Ok)), schema.KeySwipeParamsX1
		i = putI32(b, i+2, p.X1)
		b[i] = schema.KeySwipeParamsY1
		i = putI32(b, i+1, p.Y1)
		b[i] = schema.KeySwipeParamsX2
		i = putI32(b, i+1, p.X2)
		b[i] = schema.KeySwipeParamsY2
		i = putI32(b, i+1, p.Y2)
		b[i] = schema.KeySwipeParamsDurationMS
		i = putU32(b, i+1, p.DurationMS)
		if p.RestMS.Ok {
			b[i] = schema.KeySwipeParamsRestMS
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
		return appendUintField(dst, schema.KeyRequestDeadlineMS, uint64(r.DeadlineMS.Val)), nil
	}
	if r.DeadlineMS.Ok {
		b[i] = schema.KeyRequestDeadlineMS
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
	dst = appendOptU32(dst, schema.KeySnapshotParamsMaxDepth, p.MaxDepth)
	dst = appendOptU32(dst, schema.KeySnapshotParamsMaxNodes, p.MaxNodes)
	dst = appendOptU32(dst, schema.KeySnapshotParamsMaxWindows, p.MaxWindows)
	if p.EvictEventLess.Ok {
		dst = appendBoolField(dst, schema.KeySnapshotParamsEvictEventLess, p.EvictEventLess.Val)
	}
	return appendU32Array(append(dst, schema.KeySnapshotParamsEvict), p.Evict), nil
}

func (p *BoundsParams) appendCBOR(dst []byte) ([]byte, error) {
	return appendU32Array(append(dst, 0xa1, schema.KeyBoundsParamsNodes), p.Nodes), nil
}

func (p *TapParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = appendIntField(append(dst, 0xa2), schema.KeyTapParamsX, int64(p.X))
	return appendIntField(dst, schema.KeyTapParamsY, int64(p.Y)), nil
}

func (p *LongPressParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = appendIntField(append(dst, 0xa3), schema.KeyLongPressParamsX, int64(p.X))
	dst = appendIntField(dst, schema.KeyLongPressParamsY, int64(p.Y))
	return appendUintField(dst, schema.KeyLongPressParamsDurationMS, uint64(p.DurationMS)), nil
}

func (p *SwipeParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 5+present(p.RestMS.Ok))
	dst = appendIntField(dst, schema.KeySwipeParamsX1, int64(p.X1))
	dst = appendIntField(dst, schema.KeySwipeParamsY1, int64(p.Y1))
	dst = appendIntField(dst, schema.KeySwipeParamsX2, int64(p.X2))
	dst = appendIntField(dst, schema.KeySwipeParamsY2, int64(p.Y2))
	dst = appendUintField(dst, schema.KeySwipeParamsDurationMS, uint64(p.DurationMS))
	return appendOptU32(dst, schema.KeySwipeParamsRestMS, p.RestMS), nil
}

func (p *KeyParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 1+present(p.Meta.Ok))
	dst = appendUintField(dst, schema.KeyKeyParamsKeycode, uint64(p.Keycode))
	return appendOptU32(dst, schema.KeyKeyParamsMeta, p.Meta), nil
}

func (p *TypeTextParams) appendCBOR(dst []byte) ([]byte, error) {
	if err := checkText(p.Text, "request.params.text", ""); err != nil {
		return dst, err
	}
	return appendTextField(append(dst, 0xa1), schema.KeyTypeTextParamsText, p.Text), nil
}

func (p *SetTextParams) appendCBOR(dst []byte) ([]byte, error) {
	if err := checkText(p.Text, "request.params.text", ""); err != nil {
		return dst, err
	}
	dst = appendUintField(append(dst, 0xa2), schema.KeySetTextParamsNode, uint64(p.Node))
	return appendTextField(dst, schema.KeySetTextParamsText, p.Text), nil
}

func (p *ScreenshotParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, present(p.Format.Ok, p.Quality.Ok, p.ScalePct.Ok))
	dst = appendOptU32(dst, schema.KeyScreenshotParamsFormat, p.Format)
	dst = appendOptU32(dst, schema.KeyScreenshotParamsQuality, p.Quality)
	return appendOptU32(dst, schema.KeyScreenshotParamsScalePct, p.ScalePct), nil
}

func (p *FramesStartParams) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, present(p.MaxFPS.Ok, p.ScalePct.Ok, p.Quality.Ok))
	dst = appendOptU32(dst, schema.KeyFramesStartParamsMaxFPS, p.MaxFPS)
	dst = appendOptU32(dst, schema.KeyFramesStartParamsScalePct, p.ScalePct)
	return appendOptU32(dst, schema.KeyFramesStartParamsQuality, p.Quality), nil
}

func (*FramesStopParams) appendCBOR(dst []byte) ([]byte, error) { return append(dst, 0xa0), nil }

func (p *ResyncParams) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa1), schema.KeyResyncParamsStream, uint64(p.Stream)), nil
}

func (*DeviceInfoParams) appendCBOR(dst []byte) ([]byte, error) { return append(dst, 0xa0), nil }

// Decoding.

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
	fi := cbor.FieldsFrom(it.start, it.n, it.i, it.seen, schema.Request.Len())
	for fi.Next(&d.Decoder) {
		k := fi.Key()
		if fi.Null() {
			switch k {
			case schema.KeyRequestMethod:
				haveMethod = false
			case schema.KeyRequestParams:
				if r != nil {
					r.Params = nil
				}
			case schema.KeyRequestDeadlineMS:
				deadline = Opt[uint32]{}
			}
			continue
		}
		var err error
		switch k {
		case schema.KeyKind:
			err = d.checkKind(KindRequest)
		case schema.KeyRequestID:
			id, err = d.u64()
		case schema.KeyRequestMethod:
			var v uint32
			at := d.Offset()
			if v, err = d.u32(); err == nil {
				if r != nil && Method(v) != r.Method {
					err = cbor.Errorf(cbor.ErrInvalid, at, "method "+Method(v).String()+" repeats key 2 with another value than "+r.Method.String())
				}
				method, haveMethod = Method(v), true
			}
		case schema.KeyRequestParams:
			if r == nil {
				if !haveMethod {
					if method, haveMethod, err = d.peekMethodAt(it.head); err != nil {
						return nil, cbor.WithField(err, "method")
					}
				}
				if d.r != nil {
					r = d.r.request(method)
				} else {
					r = newRequest(method)
				}
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
		case schema.KeyRequestDeadlineMS:
			deadline, err = d.optU32()
		}
		if err != nil {
			return nil, schema.Request.In(err, k)
		}
	}
	if err := fi.Err(); err != nil {
		return nil, err
	}
	if err := schema.Request.Missing(fi.Seen(), it.start); err != nil {
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
		case k == schema.KeyRequestMethod && d.Null():
			found = false
		case k == schema.KeyRequestMethod:
			v, err := d.u32()
			if err != nil {
				return 0, false, err
			}
			m, found = Method(v), true
		case k == schema.KeyRequestParams && found:
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

func (p *SnapshotParams) decodeFrom(d *decoder) error {
	*p = SnapshotParams{}
	return d.scalars(schema.SnapshotParams, &p.MaxDepth, &p.MaxNodes, &p.MaxWindows, &p.EvictEventLess, &p.Evict)
}

func (p *BoundsParams) decodeFrom(d *decoder) error {
	*p = BoundsParams{}
	return d.scalars(schema.BoundsParams, &p.Nodes)
}

func (p *TapParams) decodeFrom(d *decoder) error {
	*p = TapParams{}
	return d.scalars(schema.TapParams, &p.X, &p.Y)
}

func (p *LongPressParams) decodeFrom(d *decoder) error {
	*p = LongPressParams{}
	return d.scalars(schema.LongPressParams, &p.X, &p.Y, &p.DurationMS)
}

func (p *SwipeParams) decodeFrom(d *decoder) error {
	*p = SwipeParams{}
	return d.scalars(schema.SwipeParams, &p.X1, &p.Y1, &p.X2, &p.Y2, &p.DurationMS, &p.RestMS)
}

func (p *KeyParams) decodeFrom(d *decoder) error {
	*p = KeyParams{}
	return d.scalars(schema.KeyParams, &p.Keycode, &p.Meta)
}

func (p *TypeTextParams) decodeFrom(d *decoder) error {
	*p = TypeTextParams{}
	return d.scalars(schema.TypeTextParams, &p.Text)
}

func (p *SetTextParams) decodeFrom(d *decoder) error {
	*p = SetTextParams{}
	return d.scalars(schema.SetTextParams, &p.Node, &p.Text)
}

func (p *ScreenshotParams) decodeFrom(d *decoder) error {
	*p = ScreenshotParams{}
	return d.scalars(schema.ScreenshotParams, &p.Format, &p.Quality, &p.ScalePct)
}

func (p *FramesStartParams) decodeFrom(d *decoder) error {
	*p = FramesStartParams{}
	return d.scalars(schema.FramesStartParams, &p.MaxFPS, &p.ScalePct, &p.Quality)
}

func (*FramesStopParams) decodeFrom(d *decoder) error { return d.fields(schema.Empty, nil, nil) }

func (p *ResyncParams) decodeFrom(d *decoder) error {
	*p = ResyncParams{}
	return d.scalars(schema.ResyncParams, &p.Stream)
}

func (*DeviceInfoParams) decodeFrom(d *decoder) error { return d.fields(schema.Empty, nil, nil) }

// fields walks a map described by f: it calls read for each known key
// with a non-null value, clear for a known key with a null value (when
// clear is non-nil), skips every other key, and checks that f's required
// keys were present. It is how every map but a
// node, a request and a response is read.
func (d *decoder) fields(f schema.Map, read func(k uint64) error, clear func(k uint64)) error {
	start := d.Offset()
	n, err := d.mapHead()
	if err != nil {
		return err
	}
	return d.walk(mapIter{start: start, n: n}, f, read, clear)
}

// noReader is the error of a read callback of fields for a key that m
// names and the callback has no case for (shape.NoReader).
func noReader(m schema.Map, k uint64) error { return shape.NoReader(m, k) }

// walk is fields for a map already opened (and maybe partly read) by m.
func (d *decoder) walk(m mapIter, f schema.Map, read func(k uint64) error, clear func(k uint64)) error {
	it := cbor.FieldsFrom(m.start, m.n, m.i, m.seen, f.Len())
	for it.Next(&d.Decoder) {
		k := it.Key()
		if it.Null() {
			if clear != nil {
				clear(k)
			}
			continue
		}
		if err := read(k); err != nil {
			return cbor.WithField(err, f.Name(k))
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return f.Missing(it.Seen(), m.start)
}

// scalars reads a map of values: key k holds the value dst[k] points
// at, one of the types valueAt reads. A null clears an optional value.
// It is how every map of plain values is read.
func (d *decoder) scalars(f schema.Map, dst ...any) error {
	start := d.Offset()
	n, err := d.mapHead()
	if err != nil {
		return err
	}
	return d.values(mapIter{start: start, n: n}, f, 0, false, dst)
}

// walkValues is scalars for a message map opened by message: key 0 must
// repeat kind, the keys from 1 on hold the values dst points at.
func (d *decoder) walkValues(it mapIter, f schema.Map, kind Kind, dst ...any) error {
	return d.values(it, f, kind, true, dst)
}

// values walks the map for scalars and walkValues: with withKind, key 0
// is the kind and dst starts at key 1.
func (d *decoder) values(it mapIter, f schema.Map, kind Kind, withKind bool, dst []any) error {
	first := uint64(0)
	if withKind {
		first = 1
	}
	return d.walk(it, f, func(k uint64) error {
		if k < first {
			return d.checkKind(kind)
		}
		return d.valueAt(dst[k-first])
	}, func(k uint64) {
		if k < first {
			return
		}
		switch p := dst[k-first].(type) {
		case *Opt[uint32]:
			*p = Opt[uint32]{}
		case *Opt[uint64]:
			*p = Opt[uint64]{}
		case *Opt[bool]:
			*p = Opt[bool]{}
		case *Opt[string]:
			*p = Opt[string]{}
		case *Opt[Device]:
			*p = Opt[Device]{}
		case **Error:
			*p = nil
		case *[]uint32:
			*p = nil
		}
	})
}

// valueAt reads the value at the decoder into what dst points at: an
// *int32, *uint32, *uint64, *bool, *string, *Code, *Stream,
// *Capabilities, *[]byte, *[]uint32, *Display, *Opt of uint32, uint64,
// bool, string or Device, or a **Error.
func (d *decoder) valueAt(dst any) (err error) {
	switch p := dst.(type) {
	case *int32:
		*p, err = d.i32()
	case *uint32:
		*p, err = d.u32()
	case *uint64:
		*p, err = d.u64()
	case *bool:
		*p, err = d.Bool()
	case *string:
		*p, err = d.text()
	case *Code:
		var c string
		c, err = d.text()
		*p = Code(c)
	case *Stream:
		var v uint32
		v, err = d.u32()
		*p = Stream(v)
	case *Capabilities:
		var v uint32
		v, err = d.u32()
		*p = Capabilities(v)
	case *[]byte:
		*p, err = d.bytes()
	case *[]uint32:
		*p, err = d.u32Array()
	case *Display:
		err = d.display(p)
	case *Opt[uint32]:
		*p, err = d.optU32()
	case *Opt[uint64]:
		*p, err = d.optU64()
	case *Opt[bool]:
		*p, err = d.optBool()
	case *Opt[string]:
		*p, err = d.optText()
	case *Opt[Device]:
		*p = Opt[Device]{Ok: true}
		err = d.device(&p.Val)
	case **Error:
		*p = new(Error)
		err = d.protoError(*p)
	}
	return err
}
