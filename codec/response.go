package codec

import (
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// Response answers a Request: exactly one of Result and Error is set.
type Response struct {
	ID     uint64 // key 1, the request's id
	Method Method // key 2, echoes the request's, so the result decodes alone
	// Result (key 3) is the method's result: *Snapshot, *BoundsResult,
	// *ScreenshotResult, *FramesStartResult, *ResyncResult, *Device, or
	// *Empty for methods without one. nil with a nil Error encodes as {}
	// for those methods and for unknown ones; the encoder refuses it for
	// a method with a result. A response to an unknown method decodes
	// with a nil Result.
	Result Result
	Error  *Error // key 4
}

// Kind returns KindResponse.
func (*Response) Kind() Kind { return KindResponse }

// Result is a method's result.
type Result interface {
	// ResultOf reports whether this is the result type of method m.
	ResultOf(m Method) bool
	appendCBOR(dst []byte) ([]byte, error)
	decodeFrom(d *decoder) error
}

// Empty is the result of the methods that return nothing: {}.
type Empty struct{}

// BoundsResult is the result of bounds: each node still on screen, in the
// request's order.
type BoundsResult struct {
	Nodes []NodeBounds // key 0
}

// NodeBounds is one entry of a BoundsResult, [node, bounds] on the wire.
type NodeBounds struct {
	Node   uint32
	Bounds Bounds
}

// ScreenshotResult is the result of screenshot.
type ScreenshotResult struct {
	Width  uint32 // key 0
	Height uint32 // key 1
	Format uint32 // key 2, an image format
	Image  []byte // key 3
}

// FramesStartResult is the result of frames_start.
type FramesStartResult struct {
	Stream Stream // key 0, the stream the frames arrive on
}

// ResyncResult is the result of resync.
type ResyncResult struct {
	Seq uint64 // key 0: the stream is in sync from this seq on
}

// ResultOf reports whether m returns an Empty result.
func (*Empty) ResultOf(m Method) bool { return m.EmptyResult() }

// ResultOf reports whether m is bounds.
func (*BoundsResult) ResultOf(m Method) bool { return m == MethodBounds }

// ResultOf reports whether m is screenshot.
func (*ScreenshotResult) ResultOf(m Method) bool { return m == MethodScreenshot }

// ResultOf reports whether m is frames_start.
func (*FramesStartResult) ResultOf(m Method) bool { return m == MethodFramesStart }

// ResultOf reports whether m is resync.
func (*ResyncResult) ResultOf(m Method) bool { return m == MethodResync }

// ResultOf reports whether m is snapshot.
func (*Snapshot) ResultOf(m Method) bool { return m == MethodSnapshot }

// ResultOf reports whether m is device_info.
func (*Device) ResultOf(m Method) bool { return m == MethodDeviceInfo }

func (r *Response) appendCBOR(dst []byte) ([]byte, error) {
	if r.Result != nil && r.Error != nil {
		return dst, &EncodeError{Field: "response", Detail: "both result and error are set"}
	}
	if r.Result != nil && !r.Result.ResultOf(r.Method) {
		return dst, &EncodeError{Field: "response.result", Detail: "not the result type of " + r.Method.String()}
	}
	dst = append(dst, 0xa4, schema.KeyKind, byte(KindResponse))
	dst = appendUintField(dst, schema.KeyResponseID, r.ID)
	dst = appendUintField(dst, schema.KeyResponseMethod, uint64(r.Method))
	var err error
	switch {
	case r.Error != nil:
		dst, err = r.Error.appendCBOR(append(dst, schema.KeyResponseError), "response.error")
	case r.Result == nil:
		if r.Method.Known() && !r.Method.EmptyResult() {
			return dst, &EncodeError{Field: "response.result", Detail: r.Method.String() + " needs its result; nil encodes {}, which does not decode"}
		}
		dst = append(dst, schema.KeyResponseResult, 0xa0)
	default:
		dst, err = r.Result.appendCBOR(append(dst, schema.KeyResponseResult))
	}
	return dst, err
}

func (*Empty) appendCBOR(dst []byte) ([]byte, error) { return append(dst, 0xa0), nil }

func (r *BoundsResult) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendArrayHead(append(dst, 0xa1, schema.KeyBoundsResultNodes), len(r.Nodes))
	for i := range r.Nodes {
		nb := &r.Nodes[i]
		dst = cbor.AppendUint(append(dst, 0x82), uint64(nb.Node))
		dst = nb.Bounds.appendCBOR(dst)
	}
	return dst, nil
}

func (r *ScreenshotResult) appendCBOR(dst []byte) ([]byte, error) {
	dst = appendUintField(append(dst, 0xa4), schema.KeyScreenshotResultWidth, uint64(r.Width))
	dst = appendUintField(dst, schema.KeyScreenshotResultHeight, uint64(r.Height))
	dst = appendUintField(dst, schema.KeyScreenshotResultFormat, uint64(r.Format))
	return cbor.AppendBytes(append(dst, schema.KeyScreenshotResultImage), r.Image), nil
}

func (r *FramesStartResult) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa1), schema.KeyFramesStartResultStream, uint64(r.Stream)), nil
}

func (r *ResyncResult) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa1), schema.KeyResyncResultSeq, r.Seq), nil
}

func (v *Device) appendCBOR(dst []byte) ([]byte, error) { return v.appendField(dst, "response.result") }

// response decodes the rest of a response map opened by message, as
// request does: the response is allocated with its result when key 3
// comes, by itself when an error (key 4) comes first.
func (d *decoder) response(it mapIter) (*Response, error) {
	var (
		r          *Response
		res        Result
		id         uint64
		method     Method
		haveMethod bool
	)
	fi := cbor.FieldsFrom(it.start, it.n, it.i, it.seen, schema.Response.Len())
	for fi.Next(&d.Decoder) {
		k := fi.Key()
		if fi.Null() {
			switch k {
			case schema.KeyResponseMethod:
				haveMethod = false
			case schema.KeyResponseResult:
				if r != nil {
					r.Result = nil
				}
			case schema.KeyResponseError:
				if r != nil {
					r.Error = nil
				}
			}
			continue
		}
		var err error
		switch k {
		case schema.KeyKind:
			err = d.checkKind(KindResponse)
		case schema.KeyResponseID:
			id, err = d.u64()
		case schema.KeyResponseMethod:
			var v uint32
			at := d.Offset()
			if v, err = d.u32(); err == nil {
				if fi.Seen()&(1<<schema.KeyResponseResult) != 0 && Method(v) != method {
					err = cbor.Errorf(cbor.ErrInvalid, at, "method "+Method(v).String()+" repeats key 2 with another value than "+method.String())
				}
				method, haveMethod = Method(v), true
			}
		case schema.KeyResponseResult:
			if !haveMethod {
				if method, haveMethod, err = d.peekMethodAt(it.head); err != nil {
					return nil, cbor.WithField(err, "method")
				}
			}
			if r == nil {
				r, res = newResponse(method, d)
			}
			if res == nil {
				res = ResultFor(method)
			}
			r.Result = res
			if res == nil {
				err = d.skipMap()
			} else {
				err = res.decodeFrom(d)
			}
		case schema.KeyResponseError:
			if r == nil {
				r = new(Response)
			}
			r.Error = new(Error)
			err = d.protoError(r.Error)
		}
		if err != nil {
			return nil, schema.Response.In(err, k)
		}
	}
	if err := fi.Err(); err != nil {
		return nil, err
	}
	start, seen := it.start, fi.Seen()
	if err := schema.Response.Missing(seen, start); err != nil {
		return nil, err
	}
	switch seen & (1<<schema.KeyResponseResult | 1<<schema.KeyResponseError) {
	case 0:
		return nil, cbor.Errorf(cbor.ErrMissing, start, "a response carries a result (key 3) or an error (key 4)")
	case 1<<schema.KeyResponseResult | 1<<schema.KeyResponseError:
		return nil, cbor.Errorf(cbor.ErrInvalid, start, "a response carries a result (key 3) or an error (key 4), not both")
	}
	r.ID, r.Method = id, method
	return r, nil
}

func (*Empty) decodeFrom(d *decoder) error { return d.fields(schema.Empty, nil, nil) }

func (r *BoundsResult) decodeFrom(d *decoder) error {
	*r = BoundsResult{}
	return d.fields(schema.BoundsResult, func(uint64) error {
		n, err := d.ArrayHead()
		if err != nil {
			return err
		}
		// Each entry takes at least 6 bytes: room for as many as the
		// bytes left can hold, or as the head claims when fewer.
		r.Nodes = d.boundsRoom(min(max(n, 0), d.Len()/6))
		for i := 0; d.More(n, i); i++ {
			var nb NodeBounds
			if err := d.nodeBounds(&nb); err != nil {
				return cbor.WithIndex(err, i)
			}
			r.Nodes = append(r.Nodes, nb)
		}
		return nil
	}, nil)
}

func (d *decoder) nodeBounds(nb *NodeBounds) error {
	return d.Decoder.FixedArray("a node's bounds entry", []string{"node", "bounds"}, func(i int) (err error) {
		if i == 0 {
			nb.Node, err = d.u32()
		} else {
			err = d.bounds(&nb.Bounds)
		}
		return err
	})
}

func (r *ScreenshotResult) decodeFrom(d *decoder) error {
	*r = ScreenshotResult{}
	return d.scalars(schema.ScreenshotResult, &r.Width, &r.Height, &r.Format, &r.Image)
}

func (r *FramesStartResult) decodeFrom(d *decoder) error {
	*r = FramesStartResult{}
	return d.scalars(schema.FramesStartResult, &r.Stream)
}

func (r *ResyncResult) decodeFrom(d *decoder) error {
	*r = ResyncResult{}
	return d.scalars(schema.ResyncResult, &r.Seq)
}

func (v *Device) decodeFrom(d *decoder) error {
	*v = Device{}
	return d.device(v)
}
