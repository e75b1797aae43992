package support

import (
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"
	"github.com/wirebench/wirebench/codec"
)

// The reference codec, github.com/fxamacker/cbor/v2, set to check what our
// codec checks: no more, no less, as far as its options reach.

// RefEncMode writes what our encoder writes.
var RefEncMode = func() cbor.EncMode {
	opts := cbor.CoreDetEncOptions()              // RFC 8949 core deterministic: shortest heads, sorted keys
	opts.IndefLength = cbor.IndefLengthForbidden  // definite lengths only (rule 2)
	opts.NilContainers = cbor.NilContainerAsEmpty // lists are always present, [] when empty (rule 4)
	opts.TagsMd = cbor.TagsForbidden              // no tags (rule 7)
	em, err := opts.EncMode()
	if err != nil {
		panic(err)
	}
	return em
}()

// RefDecMode accepts what our decoder accepts.
var RefDecMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		// A node of level L sits at CBOR nesting 2L+3 (response, result,
		// windows, window, root, then children array and node map per
		// level) and its bounds one deeper, so 517 admits 256 node levels
		// and refuses 257, like our MaxNodeDepth.
		MaxNestedLevels: 2*codec.MaxNodeDepth + 5,
		// Receivers accept indefinite lengths, as the seed's Rust decoder does.
		IndefLength: cbor.IndefLengthAllowed,
		// Text must be valid UTF-8.
		UTF8: cbor.UTF8RejectInvalid,
		// Ours lets a repeated key's last value win; fxamacker has no
		// such mode, and Quiet (no error, first or last) is the closest.
		DupMapKey: cbor.DupMapKeyQuiet,
		// No tags anywhere.
		TagsMd: cbor.TagsForbidden,
		// Large enough for a 5 000-node snapshot's arrays.
		MaxArrayElements: 1 << 20,
		MaxMapPairs:      1 << 20,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}()

// Twin types: the protocol's messages as fxamacker struct tags describe
// them. keyasint maps struct fields to integer keys, toarray makes a
// positional array, omitempty drops absent optional fields.

// RefHello is the twin of codec.Hello.
type RefHello struct {
	Kind         uint64     `cbor:"0,keyasint"`
	Versions     []uint32   `cbor:"1,keyasint"`
	MaxFrame     uint32     `cbor:"2,keyasint"`
	Capabilities uint32     `cbor:"3,keyasint"`
	Token        *string    `cbor:"4,keyasint,omitempty"`
	Agent        string     `cbor:"5,keyasint"`
	Device       *RefDevice `cbor:"6,keyasint,omitempty"`
}

// RefDevice is the twin of codec.Device.
type RefDevice struct {
	Model   string     `cbor:"0,keyasint"`
	SDK     uint32     `cbor:"1,keyasint"`
	ABI     string     `cbor:"2,keyasint"`
	Display RefDisplay `cbor:"3,keyasint"`
}

// RefDisplay is the twin of codec.Display.
type RefDisplay struct {
	Width      uint32 `cbor:"0,keyasint"`
	Height     uint32 `cbor:"1,keyasint"`
	DensityDPI uint32 `cbor:"2,keyasint"`
	Rotation   uint32 `cbor:"3,keyasint"`
}

// RefWelcome is the twin of codec.Welcome.
type RefWelcome struct {
	Kind     uint64    `cbor:"0,keyasint"`
	Version  *uint32   `cbor:"1,keyasint,omitempty"`
	MaxFrame *uint32   `cbor:"2,keyasint,omitempty"`
	Error    *RefError `cbor:"3,keyasint,omitempty"`
	Session  *uint64   `cbor:"4,keyasint,omitempty"`
}

// RefError is the twin of codec.Error.
type RefError struct {
	Code      string `cbor:"0,keyasint"`
	Message   string `cbor:"1,keyasint"`
	Retryable bool   `cbor:"2,keyasint"`
}

// RefNonce is the twin of codec.Ping and codec.Pong.
type RefNonce struct {
	Kind  uint64 `cbor:"0,keyasint"`
	Nonce uint64 `cbor:"1,keyasint"`
}

// RefRequest is the twin of codec.Request; Params holds the encoded
// parameter map, decoded in a second step once the method is known.
type RefRequest struct {
	Kind       uint64          `cbor:"0,keyasint"`
	ID         uint64          `cbor:"1,keyasint"`
	Method     uint32          `cbor:"2,keyasint"`
	Params     cbor.RawMessage `cbor:"3,keyasint"`
	DeadlineMS *uint32         `cbor:"4,keyasint,omitempty"`
}

// RefResponse is the twin of codec.Response.
type RefResponse struct {
	Kind   uint64          `cbor:"0,keyasint"`
	ID     uint64          `cbor:"1,keyasint"`
	Method uint32          `cbor:"2,keyasint"`
	Result cbor.RawMessage `cbor:"3,keyasint,omitempty"`
	Error  *RefError       `cbor:"4,keyasint,omitempty"`
}

// Parameter twins.
type (
	RefSnapshotParams struct {
		MaxDepth       *uint32  `cbor:"0,keyasint,omitempty"`
		MaxNodes       *uint32  `cbor:"1,keyasint,omitempty"`
		MaxWindows     *uint32  `cbor:"2,keyasint,omitempty"`
		EvictEventLess *bool    `cbor:"3,keyasint,omitempty"`
		Evict          []uint32 `cbor:"4,keyasint"`
	}
	RefNodesParams struct {
		Nodes []uint32 `cbor:"0,keyasint"`
	}
	RefTapParams struct {
		X int32 `cbor:"0,keyasint"`
		Y int32 `cbor:"1,keyasint"`
	}
	RefLongPressParams struct {
		X          int32  `cbor:"0,keyasint"`
		Y          int32  `cbor:"1,keyasint"`
		DurationMS uint32 `cbor:"2,keyasint"`
	}
	RefSwipeParams struct {
		X1         int32   `cbor:"0,keyasint"`
		Y1         int32   `cbor:"1,keyasint"`
		X2         int32   `cbor:"2,keyasint"`
		Y2         int32   `cbor:"3,keyasint"`
		DurationMS uint32  `cbor:"4,keyasint"`
		RestMS     *uint32 `cbor:"5,keyasint,omitempty"`
	}
	RefKeyParams struct {
		Keycode uint32  `cbor:"0,keyasint"`
		Meta    *uint32 `cbor:"1,keyasint,omitempty"`
	}
	RefTextParams struct {
		Text string `cbor:"0,keyasint"`
	}
	RefSetTextParams struct {
		Node uint32 `cbor:"0,keyasint"`
		Text string `cbor:"1,keyasint"`
	}
	RefThreeOpt struct {
		A *uint32 `cbor:"0,keyasint,omitempty"`
		B *uint32 `cbor:"1,keyasint,omitempty"`
		C *uint32 `cbor:"2,keyasint,omitempty"`
	}
	RefStreamParams struct {
		Stream uint32 `cbor:"0,keyasint"`
	}
	RefEmpty struct{}
)

// Result twins.
type (
	RefSnapshot struct {
		Strings   []string    `cbor:"0,keyasint"`
		Windows   []RefWindow `cbor:"1,keyasint"`
		Truncated uint32      `cbor:"2,keyasint"`
		Seq       uint64      `cbor:"3,keyasint"`
		Display   *RefDisplay `cbor:"4,keyasint,omitempty"`
	}
	RefWindow struct {
		ID          uint32   `cbor:"0,keyasint"`
		Type        uint32   `cbor:"1,keyasint"`
		Layer       int32    `cbor:"2,keyasint"`
		Bounds      [4]int32 `cbor:"3,keyasint"`
		Flags       uint32   `cbor:"4,keyasint"`
		Title       *string  `cbor:"5,keyasint,omitempty"`
		Package     *uint32  `cbor:"6,keyasint,omitempty"`
		Root        *RefNode `cbor:"7,keyasint,omitempty"`
		EmitsEvents *bool    `cbor:"8,keyasint,omitempty"`
		Owner       *uint32  `cbor:"9,keyasint,omitempty"`
		Modal       bool     `cbor:"10,keyasint,omitempty"`
	}
	RefNode struct {
		ID       uint32     `cbor:"0,keyasint"`
		Class    uint32     `cbor:"1,keyasint"`
		Bounds   [4]int32   `cbor:"2,keyasint"`
		Flags    uint32     `cbor:"3,keyasint"`
		Text     *string    `cbor:"4,keyasint,omitempty"`
		Desc     *string    `cbor:"5,keyasint,omitempty"`
		ResPkg   *uint32    `cbor:"6,keyasint,omitempty"`
		ResName  *string    `cbor:"7,keyasint,omitempty"`
		Children []RefNode  `cbor:"8,keyasint,omitempty"`
		Scroll   *RefScroll `cbor:"9,keyasint,omitempty"`
		Hint     *string    `cbor:"10,keyasint,omitempty"`
		State    *string    `cbor:"11,keyasint,omitempty"`
	}
	RefScroll struct {
		Axis     uint32          `cbor:"0,keyasint"`
		Flags    uint32          `cbor:"1,keyasint"`
		Range    *RefScrollRange `cbor:"2,keyasint,omitempty"`
		Position *[2]int64       `cbor:"3,keyasint,omitempty"`
	}
	RefScrollRange struct {
		_    struct{} `cbor:",toarray"`
		Unit uint32
		Lo   int64
		Hi   int64
	}
	RefBoundsResult struct {
		Nodes []RefNodeBounds `cbor:"0,keyasint"`
	}
	RefNodeBounds struct {
		_      struct{} `cbor:",toarray"`
		Node   uint32
		Bounds [4]int32
	}
	RefScreenshot struct {
		Width  uint32 `cbor:"0,keyasint"`
		Height uint32 `cbor:"1,keyasint"`
		Format uint32 `cbor:"2,keyasint"`
		Image  []byte `cbor:"3,keyasint"`
	}
	RefSeqResult struct {
		Seq uint64 `cbor:"0,keyasint"`
	}
)

// Event twins: positional arrays.
type (
	RefEventHead struct {
		_      struct{} `cbor:",toarray"`
		Kind   uint64
		Stream uint32
		Seq    uint64
		Type   uint32
	}
	RefWindowChanged struct {
		_      struct{} `cbor:",toarray"`
		Kind   uint64
		Stream uint32
		Seq    uint64
		Type   uint32
		Window uint32
		Change uint32
	}
	RefContentChanged struct {
		_      struct{} `cbor:",toarray"`
		Kind   uint64
		Stream uint32
		Seq    uint64
		Type   uint32
		Window uint32
		Node   uint32
		Change uint32
	}
	RefFrame struct {
		_        struct{} `cbor:",toarray"`
		Kind     uint64
		Stream   uint32
		Seq      uint64
		Type     uint32
		Width    uint32
		Height   uint32
		Format   uint32
		UptimeMS uint64
		Image    []byte
	}
)

// RefMarshal encodes m with the reference codec through its twin.
func RefMarshal(m codec.Message) ([]byte, error) {
	switch m := m.(type) {
	case *codec.Hello:
		return RefEncMode.Marshal(&RefHello{Kind: 0, Versions: m.Versions, MaxFrame: m.MaxFrame, Capabilities: uint32(m.Capabilities),
			Token: m.Token.Ptr(), Agent: m.Agent, Device: refDevicePtr(m.Device)})
	case *codec.Welcome:
		return RefEncMode.Marshal(&RefWelcome{Kind: 1, Version: m.Version.Ptr(), MaxFrame: m.MaxFrame.Ptr(), Error: refError(m.Error), Session: m.Session.Ptr()})
	case *codec.Request:
		p, err := refParams(m.Params)
		if err != nil {
			return nil, err
		}
		return RefEncMode.Marshal(&RefRequest{Kind: 2, ID: m.ID, Method: uint32(m.Method), Params: p, DeadlineMS: m.DeadlineMS.Ptr()})
	case *codec.Response:
		r := &RefResponse{Kind: 3, ID: m.ID, Method: uint32(m.Method), Error: refError(m.Error)}
		if m.Error == nil {
			res, err := refResult(m.Result)
			if err != nil {
				return nil, err
			}
			r.Result = res
		}
		return RefEncMode.Marshal(r)
	case *codec.Ping:
		return RefEncMode.Marshal(&RefNonce{Kind: 4, Nonce: m.Nonce})
	case *codec.Pong:
		return RefEncMode.Marshal(&RefNonce{Kind: 5, Nonce: m.Nonce})
	case *codec.Event:
		h := RefEventHead{Kind: 6, Stream: uint32(m.Stream), Seq: m.Seq, Type: uint32(m.Type)}
		switch b := m.Body.(type) {
		case *codec.WindowChanged:
			return RefEncMode.Marshal(&RefWindowChanged{Kind: 6, Stream: h.Stream, Seq: h.Seq, Type: h.Type, Window: b.Window, Change: b.Change})
		case *codec.ContentChanged:
			return RefEncMode.Marshal(&RefContentChanged{Kind: 6, Stream: h.Stream, Seq: h.Seq, Type: h.Type, Window: b.Window, Node: b.Node, Change: b.Change})
		case *codec.ScreenFrame:
			return RefEncMode.Marshal(&RefFrame{Kind: 6, Stream: h.Stream, Seq: h.Seq, Type: h.Type, Width: b.Width, Height: b.Height, Format: b.Format, UptimeMS: b.UptimeMS, Image: b.Image})
		case nil:
			return RefEncMode.Marshal(&h)
		}
	}
	return nil, fmt.Errorf("reference: no twin for %T", m)
}

func refDevicePtr(o codec.Opt[codec.Device]) *RefDevice {
	if !o.Ok {
		return nil
	}
	d := refDevice(&o.Val)
	return &d
}

func refDevice(d *codec.Device) RefDevice {
	return RefDevice{Model: d.Model, SDK: d.SDK, ABI: d.ABI, Display: RefDisplay(d.Display)}
}

func refError(e *codec.Error) *RefError {
	if e == nil {
		return nil
	}
	return &RefError{Code: string(e.Code), Message: e.Message, Retryable: e.Retryable}
}

// RefParamsValue returns the twin of a parameter set.
func RefParamsValue(p codec.Params) (any, error) {
	switch p := p.(type) {
	case nil:
		return &RefEmpty{}, nil
	case *codec.SnapshotParams:
		return &RefSnapshotParams{MaxDepth: p.MaxDepth.Ptr(), MaxNodes: p.MaxNodes.Ptr(), MaxWindows: p.MaxWindows.Ptr(), EvictEventLess: p.EvictEventLess.Ptr(), Evict: p.Evict}, nil
	case *codec.BoundsParams:
		return &RefNodesParams{Nodes: p.Nodes}, nil
	case *codec.TapParams:
		return &RefTapParams{X: p.X, Y: p.Y}, nil
	case *codec.LongPressParams:
		return &RefLongPressParams{X: p.X, Y: p.Y, DurationMS: p.DurationMS}, nil
	case *codec.SwipeParams:
		return &RefSwipeParams{X1: p.X1, Y1: p.Y1, X2: p.X2, Y2: p.Y2, DurationMS: p.DurationMS, RestMS: p.RestMS.Ptr()}, nil
	case *codec.KeyParams:
		return &RefKeyParams{Keycode: p.Keycode, Meta: p.Meta.Ptr()}, nil
	case *codec.TypeTextParams:
		return &RefTextParams{Text: p.Text}, nil
	case *codec.SetTextParams:
		return &RefSetTextParams{Node: p.Node, Text: p.Text}, nil
	case *codec.ScreenshotParams:
		return &RefThreeOpt{A: p.Format.Ptr(), B: p.Quality.Ptr(), C: p.ScalePct.Ptr()}, nil
	case *codec.FramesStartParams:
		return &RefThreeOpt{A: p.MaxFPS.Ptr(), B: p.ScalePct.Ptr(), C: p.Quality.Ptr()}, nil
	case *codec.FramesStopParams, *codec.DeviceInfoParams:
		return &RefEmpty{}, nil
	case *codec.ResyncParams:
		return &RefStreamParams{Stream: uint32(p.Stream)}, nil
	}
	return nil, fmt.Errorf("reference: no twin for %T", p)
}

func refParams(p codec.Params) (cbor.RawMessage, error) { return refMarshal(RefParamsValue(p)) }

// refMarshal encodes a twin, or passes on the error of making it.
func refMarshal(v any, err error) (cbor.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	return RefEncMode.Marshal(v)
}

// RefResultValue returns the twin of a result.
func RefResultValue(r codec.Result) (any, error) {
	switch r := r.(type) {
	case nil, *codec.Empty:
		return &RefEmpty{}, nil
	case *codec.Snapshot:
		return RefSnapshotOf(r), nil
	case *codec.BoundsResult:
		out := &RefBoundsResult{Nodes: make([]RefNodeBounds, len(r.Nodes))}
		for i, nb := range r.Nodes {
			out.Nodes[i] = RefNodeBounds{Node: nb.Node, Bounds: refBounds(nb.Bounds)}
		}
		return out, nil
	case *codec.ScreenshotResult:
		return &RefScreenshot{Width: r.Width, Height: r.Height, Format: r.Format, Image: r.Image}, nil
	case *codec.FramesStartResult:
		return &RefStreamParams{Stream: uint32(r.Stream)}, nil
	case *codec.ResyncResult:
		return &RefSeqResult{Seq: r.Seq}, nil
	case *codec.Device:
		d := refDevice(r)
		return &d, nil
	}
	return nil, fmt.Errorf("reference: no twin for %T", r)
}

func refResult(r codec.Result) (cbor.RawMessage, error) { return refMarshal(RefResultValue(r)) }

func refBounds(b codec.Bounds) [4]int32 { return [4]int32{b.Left, b.Top, b.Right, b.Bottom} }

func ownBounds(b [4]int32) codec.Bounds {
	return codec.Bounds{Left: b[0], Top: b[1], Right: b[2], Bottom: b[3]}
}

// RefSnapshotOf converts a snapshot to its twin.
func RefSnapshotOf(s *codec.Snapshot) *RefSnapshot {
	out := &RefSnapshot{Strings: s.Strings, Windows: make([]RefWindow, len(s.Windows)), Truncated: s.Truncated, Seq: s.Seq}
	if s.Display.Ok {
		d := RefDisplay(s.Display.Val)
		out.Display = &d
	}
	for i := range s.Windows {
		w := &s.Windows[i]
		rw := RefWindow{ID: w.ID, Type: w.Type, Layer: w.Layer, Bounds: refBounds(w.Bounds), Flags: w.Flags,
			Title: w.Title.Ptr(), Package: w.Package.Ptr(), EmitsEvents: w.EmitsEvents.Ptr(), Owner: w.Owner.Ptr(), Modal: w.Modal}
		if w.Root != nil {
			n := refNode(w.Root)
			rw.Root = &n
		}
		out.Windows[i] = rw
	}
	return out
}

func refNode(n *codec.Node) RefNode {
	r := RefNode{ID: n.ID, Class: n.Class, Bounds: refBounds(n.Bounds), Flags: n.Flags, Text: n.Text.Ptr(), Desc: n.Desc.Ptr(),
		ResPkg: n.ResPkg.Ptr(), ResName: n.ResName.Ptr(), Hint: n.Hint.Ptr(), State: n.State.Ptr()}
	if n.Scroll != nil {
		s := &RefScroll{Axis: n.Scroll.Axis, Flags: n.Scroll.Flags}
		if n.Scroll.Range.Ok {
			v := n.Scroll.Range.Val
			s.Range = &RefScrollRange{Unit: v.Unit, Lo: v.Lo, Hi: v.Hi}
		}
		if n.Scroll.Position.Ok {
			s.Position = &[2]int64{n.Scroll.Position.Val.Lo, n.Scroll.Position.Val.Hi}
		}
		r.Scroll = s
	}
	if len(n.Children) > 0 {
		r.Children = make([]RefNode, len(n.Children))
		for i := range n.Children {
			r.Children[i] = refNode(&n.Children[i])
		}
	}
	return r
}

// RefUnmarshal decodes b with the reference codec: the kind first, then
// the twin of that kind, then (for requests and responses) the parameters
// or result by method, and converts the twin to our message type.
func RefUnmarshal(b []byte) (codec.Message, error) {
	if len(b) == 0 {
		return nil, errors.New("reference: empty input")
	}
	if b[0]>>5 == 4 { // an array: an event
		// Decode the head through a generic array first: toarray structs
		// need the exact element count, which depends on the type.
		var h RefEventHead
		var elems []cbor.RawMessage
		if err := RefDecMode.Unmarshal(b, &elems); err != nil {
			return nil, err
		}
		if len(elems) < 4 {
			return nil, errors.New("reference: event shorter than 4 elements")
		}
		for i, dst := range []any{&h.Kind, &h.Stream, &h.Seq, &h.Type} {
			if err := RefDecMode.Unmarshal(elems[i], dst); err != nil {
				return nil, err
			}
		}
		if h.Kind != uint64(codec.KindEvent) {
			return &codec.UnknownKind{Value: h.Kind}, nil
		}
		e := &codec.Event{Stream: codec.Stream(h.Stream), Seq: h.Seq, Type: codec.EventType(h.Type)}
		switch codec.BodyFor(e.Stream, e.Type).(type) {
		case *codec.WindowChanged:
			var t RefWindowChanged
			if err := RefDecMode.Unmarshal(b, &t); err != nil {
				return nil, err
			}
			e.Body = &codec.WindowChanged{Window: t.Window, Change: t.Change}
		case *codec.ContentChanged:
			var t RefContentChanged
			if err := RefDecMode.Unmarshal(b, &t); err != nil {
				return nil, err
			}
			e.Body = &codec.ContentChanged{Window: t.Window, Node: t.Node, Change: t.Change}
		case *codec.ScreenFrame:
			var t RefFrame
			if err := RefDecMode.Unmarshal(b, &t); err != nil {
				return nil, err
			}
			e.Body = &codec.ScreenFrame{Width: t.Width, Height: t.Height, Format: t.Format, UptimeMS: t.UptimeMS, Image: t.Image}
		}
		return e, nil
	}
	var head struct {
		Kind uint64 `cbor:"0,keyasint"`
	}
	if err := RefDecMode.Unmarshal(b, &head); err != nil {
		return nil, err
	}
	switch codec.Kind(head.Kind) {
	case codec.KindHello:
		var t RefHello
		if err := RefDecMode.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		h := &codec.Hello{Versions: t.Versions, MaxFrame: t.MaxFrame, Capabilities: codec.Capabilities(t.Capabilities), Token: codec.OptFrom(t.Token), Agent: t.Agent}
		if t.Device != nil {
			h.Device = codec.Some(ownDevice(t.Device))
		}
		return h, nil
	case codec.KindWelcome:
		var t RefWelcome
		if err := RefDecMode.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		return &codec.Welcome{Version: codec.OptFrom(t.Version), MaxFrame: codec.OptFrom(t.MaxFrame), Error: ownError(t.Error), Session: codec.OptFrom(t.Session)}, nil
	case codec.KindRequest:
		var t RefRequest
		if err := RefDecMode.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		r := &codec.Request{ID: t.ID, Method: codec.Method(t.Method), DeadlineMS: codec.OptFrom(t.DeadlineMS)}
		p, err := RefUnmarshalParams(r.Method, t.Params)
		r.Params = p
		return r, err
	case codec.KindResponse:
		var t RefResponse
		if err := RefDecMode.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		r := &codec.Response{ID: t.ID, Method: codec.Method(t.Method), Error: ownError(t.Error)}
		if t.Result != nil {
			res, err := RefUnmarshalResult(r.Method, t.Result)
			if err != nil {
				return nil, err
			}
			r.Result = res
		}
		return r, nil
	case codec.KindPing, codec.KindPong:
		var t RefNonce
		if err := RefDecMode.Unmarshal(b, &t); err != nil {
			return nil, err
		}
		if head.Kind == uint64(codec.KindPing) {
			return &codec.Ping{Nonce: t.Nonce}, nil
		}
		return &codec.Pong{Nonce: t.Nonce}, nil
	}
	return &codec.UnknownKind{Value: head.Kind}, nil
}

func ownDevice(d *RefDevice) codec.Device {
	return codec.Device{Model: d.Model, SDK: d.SDK, ABI: d.ABI, Display: codec.Display(d.Display)}
}

func ownError(e *RefError) *codec.Error {
	if e == nil {
		return nil
	}
	return &codec.Error{Code: codec.Code(e.Code), Message: e.Message, Retryable: e.Retryable}
}

// RefUnmarshalParams decodes a parameter map for method m.
func RefUnmarshalParams(m codec.Method, raw []byte) (codec.Params, error) {
	un := func(v any) error { return RefDecMode.Unmarshal(raw, v) }
	switch m {
	case codec.MethodSnapshot:
		var t RefSnapshotParams
		if err := un(&t); err != nil {
			return nil, err
		}
		if t.Evict == nil {
			t.Evict = []uint32{}
		}
		return &codec.SnapshotParams{MaxDepth: codec.OptFrom(t.MaxDepth), MaxNodes: codec.OptFrom(t.MaxNodes), MaxWindows: codec.OptFrom(t.MaxWindows), EvictEventLess: codec.OptFrom(t.EvictEventLess), Evict: t.Evict}, nil
	case codec.MethodBounds:
		var t RefNodesParams
		if err := un(&t); err != nil {
			return nil, err
		}
		if t.Nodes == nil {
			t.Nodes = []uint32{}
		}
		return &codec.BoundsParams{Nodes: t.Nodes}, nil
	case codec.MethodTap:
		var t RefTapParams
		err := un(&t)
		return &codec.TapParams{X: t.X, Y: t.Y}, err
	case codec.MethodLongPress:
		var t RefLongPressParams
		err := un(&t)
		return &codec.LongPressParams{X: t.X, Y: t.Y, DurationMS: t.DurationMS}, err
	case codec.MethodSwipe:
		var t RefSwipeParams
		err := un(&t)
		return &codec.SwipeParams{X1: t.X1, Y1: t.Y1, X2: t.X2, Y2: t.Y2, DurationMS: t.DurationMS, RestMS: codec.OptFrom(t.RestMS)}, err
	case codec.MethodKey:
		var t RefKeyParams
		err := un(&t)
		return &codec.KeyParams{Keycode: t.Keycode, Meta: codec.OptFrom(t.Meta)}, err
	case codec.MethodTypeText:
		var t RefTextParams
		err := un(&t)
		return &codec.TypeTextParams{Text: t.Text}, err
	case codec.MethodSetText:
		var t RefSetTextParams
		err := un(&t)
		return &codec.SetTextParams{Node: t.Node, Text: t.Text}, err
	case codec.MethodScreenshot:
		var t RefThreeOpt
		err := un(&t)
		return &codec.ScreenshotParams{Format: codec.OptFrom(t.A), Quality: codec.OptFrom(t.B), ScalePct: codec.OptFrom(t.C)}, err
	case codec.MethodFramesStart:
		var t RefThreeOpt
		err := un(&t)
		return &codec.FramesStartParams{MaxFPS: codec.OptFrom(t.A), ScalePct: codec.OptFrom(t.B), Quality: codec.OptFrom(t.C)}, err
	case codec.MethodFramesStop:
		var t RefEmpty
		return &codec.FramesStopParams{}, un(&t)
	case codec.MethodResync:
		var t RefStreamParams
		err := un(&t)
		return &codec.ResyncParams{Stream: codec.Stream(t.Stream)}, err
	case codec.MethodDeviceInfo:
		var t RefEmpty
		return &codec.DeviceInfoParams{}, un(&t)
	}
	return nil, nil // unknown method: params skipped
}

// RefUnmarshalResult decodes a result map for method m.
func RefUnmarshalResult(m codec.Method, raw []byte) (codec.Result, error) {
	un := func(v any) error { return RefDecMode.Unmarshal(raw, v) }
	switch m {
	case codec.MethodSnapshot:
		var t RefSnapshot
		if err := un(&t); err != nil {
			return nil, err
		}
		return OwnSnapshot(&t), nil
	case codec.MethodBounds:
		var t RefBoundsResult
		if err := un(&t); err != nil {
			return nil, err
		}
		out := &codec.BoundsResult{Nodes: make([]codec.NodeBounds, len(t.Nodes))}
		for i, nb := range t.Nodes {
			out.Nodes[i] = codec.NodeBounds{Node: nb.Node, Bounds: ownBounds(nb.Bounds)}
		}
		return out, nil
	case codec.MethodScreenshot:
		var t RefScreenshot
		err := un(&t)
		return &codec.ScreenshotResult{Width: t.Width, Height: t.Height, Format: t.Format, Image: t.Image}, err
	case codec.MethodFramesStart:
		var t RefStreamParams
		err := un(&t)
		return &codec.FramesStartResult{Stream: codec.Stream(t.Stream)}, err
	case codec.MethodResync:
		var t RefSeqResult
		err := un(&t)
		return &codec.ResyncResult{Seq: t.Seq}, err
	case codec.MethodDeviceInfo:
		var t RefDevice
		err := un(&t)
		d := ownDevice(&t)
		return &d, err
	}
	if (&codec.Empty{}).ResultOf(m) {
		var t RefEmpty
		return &codec.Empty{}, un(&t)
	}
	return nil, nil
}

// OwnSnapshot converts a twin snapshot back to ours.
func OwnSnapshot(t *RefSnapshot) *codec.Snapshot {
	s := &codec.Snapshot{Strings: t.Strings, Windows: make([]codec.Window, len(t.Windows)), Truncated: t.Truncated, Seq: t.Seq}
	if s.Strings == nil {
		s.Strings = []string{}
	}
	if t.Display != nil {
		s.Display = codec.Some(codec.Display(*t.Display))
	}
	for i := range t.Windows {
		rw := &t.Windows[i]
		w := codec.Window{ID: rw.ID, Type: rw.Type, Layer: rw.Layer, Bounds: ownBounds(rw.Bounds), Flags: rw.Flags,
			Title: codec.OptFrom(rw.Title), Package: codec.OptFrom(rw.Package), EmitsEvents: codec.OptFrom(rw.EmitsEvents), Owner: codec.OptFrom(rw.Owner), Modal: rw.Modal}
		if rw.Root != nil {
			n := ownNode(rw.Root)
			w.Root = &n
		}
		s.Windows[i] = w
	}
	return s
}

func ownNode(r *RefNode) codec.Node {
	n := codec.Node{ID: r.ID, Class: r.Class, Bounds: ownBounds(r.Bounds), Flags: r.Flags, Text: codec.OptFrom(r.Text), Desc: codec.OptFrom(r.Desc),
		ResPkg: codec.OptFrom(r.ResPkg), ResName: codec.OptFrom(r.ResName), Hint: codec.OptFrom(r.Hint), State: codec.OptFrom(r.State)}
	if r.Scroll != nil {
		s := &codec.Scroll{Axis: r.Scroll.Axis, Flags: r.Scroll.Flags}
		if r.Scroll.Range != nil {
			s.Range = codec.Some(codec.ScrollRange{Unit: r.Scroll.Range.Unit, Lo: r.Scroll.Range.Lo, Hi: r.Scroll.Range.Hi})
		}
		if r.Scroll.Position != nil {
			s.Position = codec.Some(codec.ScrollPosition{Lo: r.Scroll.Position[0], Hi: r.Scroll.Position[1]})
		}
		n.Scroll = s
	}
	if len(r.Children) > 0 {
		n.Children = make([]codec.Node, len(r.Children))
		for i := range r.Children {
			n.Children[i] = ownNode(&r.Children[i])
		}
	}
	return n
}
