package msgptwin

import (
	"errors"
	"fmt"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/codec"
)

// Case is how an msgp user encodes and decodes one message, built once
// from the message (New): the twins are built outside the timed loop, as
// a user holds the data in them already.
type Case struct {
	env  msgp.Marshaler
	body msgp.Marshaler // a request's params or a response's result, or nil
	raw  *msgp.Raw      // where body's encoding goes in env
	dec  func([]byte) (env, body msgp.Unmarshaler, err error)
}

// Encode appends the message to buf[:0]: for a request or response, the
// params or result into scratch[:0] first, then the envelope holding them
// as msgp.Raw. It returns both buffers, grown if needed.
func (c *Case) Encode(buf, scratch []byte) (out, scratchOut []byte, err error) {
	if c.body != nil {
		if scratch, err = c.body.MarshalMsg(scratch[:0]); err != nil {
			return buf, scratch, err
		}
		*c.raw = scratch
	}
	buf, err = c.env.MarshalMsg(buf[:0])
	return buf, scratch, err
}

// Decode reads b into new twins as a receiver must: the envelope, then the
// params or result twin the method picks; for an event, its head's kind,
// stream and type first, then the event twin they pick.
func (c *Case) Decode(b []byte) (env, body msgp.Unmarshaler, err error) { return c.dec(b) }

// New returns the case of m: hello, a request with tap or snapshot params,
// a content- or window-changed event, or a response with a snapshot,
// bounds or screenshot result (the workbench's messages); others are an
// error.
func New(m codec.Message) (*Case, error) {
	switch m := m.(type) {
	case *codec.Hello:
		h := &Hello{Kind: uint64(codec.KindHello), Versions: m.Versions, MaxFrame: m.MaxFrame, Capabilities: uint32(m.Capabilities), Token: m.Token.Ptr(), Agent: m.Agent}
		if m.Device.Ok {
			d := twinDevice(m.Device.Val)
			h.Device = &d
		}
		return &Case{env: h, dec: func(b []byte) (msgp.Unmarshaler, msgp.Unmarshaler, error) {
			var t Hello
			_, err := t.UnmarshalMsg(b)
			return &t, nil, err
		}}, nil
	case *codec.Request:
		var body msgp.Marshaler
		switch p := m.Params.(type) {
		case *codec.TapParams:
			body = &TapParams{X: p.X, Y: p.Y}
		case *codec.SnapshotParams:
			body = &SnapshotParams{MaxDepth: p.MaxDepth.Ptr(), MaxNodes: p.MaxNodes.Ptr(), MaxWindows: p.MaxWindows.Ptr(), EvictEventLess: p.EvictEventLess.Ptr(), Evict: p.Evict}
		default:
			return nil, fmt.Errorf("msgptwin: no twin for %T", p)
		}
		env := &Request{Kind: uint64(codec.KindRequest), ID: m.ID, Method: uint32(m.Method), DeadlineMS: m.DeadlineMS.Ptr()}
		return &Case{env: env, body: body, raw: &env.Params, dec: decodeRequest}, nil
	case *codec.Response:
		env := &Response{Kind: uint64(codec.KindResponse), ID: m.ID, Method: uint32(m.Method)}
		if m.Error != nil {
			return nil, errors.New("msgptwin: no twin for an error response")
		}
		var body msgp.Marshaler
		switch r := m.Result.(type) {
		case *codec.Snapshot:
			body = twinSnapshot(r)
		case *codec.BoundsResult:
			t := &BoundsResult{Nodes: make([]NodeBounds, len(r.Nodes))}
			for i, nb := range r.Nodes {
				t.Nodes[i] = NodeBounds{Node: nb.Node, Bounds: bounds(nb.Bounds)}
			}
			body = t
		case *codec.ScreenshotResult:
			body = &ScreenshotResult{Width: r.Width, Height: r.Height, Format: r.Format, Image: r.Image}
		default:
			return nil, fmt.Errorf("msgptwin: no twin for %T", r)
		}
		return &Case{env: env, body: body, raw: &env.Result, dec: decodeResponse}, nil
	case *codec.Event:
		var env msgp.Marshaler
		switch b := m.Body.(type) {
		case *codec.ContentChanged:
			env = &ContentChanged{Kind: uint64(codec.KindEvent), Stream: uint32(m.Stream), Seq: m.Seq, Type: uint32(m.Type), Window: b.Window, Node: b.Node, Change: b.Change}
		case *codec.WindowChanged:
			env = &WindowChanged{Kind: uint64(codec.KindEvent), Stream: uint32(m.Stream), Seq: m.Seq, Type: uint32(m.Type), Window: b.Window, Change: b.Change}
		default:
			return nil, fmt.Errorf("msgptwin: no twin for an event body %T", b)
		}
		return &Case{env: env, dec: decodeEvent}, nil
	}
	return nil, fmt.Errorf("msgptwin: no twin for %T", m)
}

func decodeRequest(b []byte) (msgp.Unmarshaler, msgp.Unmarshaler, error) {
	var env Request
	if _, err := env.UnmarshalMsg(b); err != nil {
		return nil, nil, err
	}
	var p msgp.Unmarshaler
	switch codec.Method(env.Method) {
	case codec.MethodTap:
		p = new(TapParams)
	case codec.MethodSnapshot:
		p = new(SnapshotParams)
	default:
		return nil, nil, fmt.Errorf("msgptwin: no params twin for method %d", env.Method)
	}
	_, err := p.UnmarshalMsg(env.Params)
	return &env, p, err
}

func decodeResponse(b []byte) (msgp.Unmarshaler, msgp.Unmarshaler, error) {
	var env Response
	if _, err := env.UnmarshalMsg(b); err != nil {
		return nil, nil, err
	}
	var r msgp.Unmarshaler
	switch codec.Method(env.Method) {
	case codec.MethodSnapshot:
		r = new(Snapshot)
	case codec.MethodBounds:
		r = new(BoundsResult)
	case codec.MethodScreenshot:
		r = new(ScreenshotResult)
	default:
		return nil, nil, fmt.Errorf("msgptwin: no result twin for method %d", env.Method)
	}
	_, err := r.UnmarshalMsg(env.Result)
	return &env, r, err
}

// decodeEvent reads the head's kind, stream, seq and type with msgp's
// readers, then the whole event into the twin they pick.
func decodeEvent(b []byte) (msgp.Unmarshaler, msgp.Unmarshaler, error) {
	n, rest, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, nil, err
	}
	if n < 4 {
		return nil, nil, errors.New("msgptwin: event shorter than its head")
	}
	kind, rest, err := msgp.ReadUint64Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	stream, rest, err := msgp.ReadUint32Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	if rest, err = msgp.Skip(rest); err != nil { // seq
		return nil, nil, err
	}
	typ, _, err := msgp.ReadUint32Bytes(rest)
	if err != nil {
		return nil, nil, err
	}
	if kind != uint64(codec.KindEvent) {
		return nil, nil, errors.New("msgptwin: not an event")
	}
	var t msgp.Unmarshaler
	switch codec.BodyFor(codec.Stream(stream), codec.EventType(typ)).(type) {
	case *codec.ContentChanged:
		t = new(ContentChanged)
	case *codec.WindowChanged:
		t = new(WindowChanged)
	default:
		return nil, nil, errors.New("msgptwin: no twin for the event's type")
	}
	_, err = t.UnmarshalMsg(b)
	return t, nil, err
}
