package wirejson

// Package wirejson is the JSON form of protocol messages, as cmd/wire's
// decode prints it and its encode reads it: one object per message, with
// the field names of codec's schema table, kinds, methods, streams and
// event types by name (by number when unknown), error codes as their
// text, byte strings as standard base64 and every integer exact.
//
// Value turns a message into a value for encoding/json to print; Parse
// reads one JSON line back into a message, checking every field against
// the schema with an error that names its path, and reads the line in
// place, so that memory stays a small multiple of the line whatever it
// holds.

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/wirebench/wirebench/codec"
)

// Message → JSON.

type helloJSON struct {
	Kind            string      `json:"kind"`
	Versions        []uint32    `json:"versions"`
	MaxFrame        uint32      `json:"max_frame"`
	Capabilities    uint32      `json:"capabilities"`
	CapabilityNames []string    `json:"capability_names"` // informational; checked on input when present
	Token           *string     `json:"token,omitempty"`
	Agent           string      `json:"agent"`
	Device          *deviceJSON `json:"device,omitempty"`
}

type welcomeJSON struct {
	Kind     string      `json:"kind"`
	Version  *uint32     `json:"version,omitempty"`
	MaxFrame *uint32     `json:"max_frame,omitempty"`
	Error    *ProtoError `json:"error,omitempty"`
	Session  *uint64     `json:"session,omitempty"`
}

type requestJSON struct {
	Kind       string  `json:"kind"`
	ID         uint64  `json:"id"`
	Method     any     `json:"method"` // name, or number when unknown
	Params     any     `json:"params"`
	DeadlineMS *uint32 `json:"deadline_ms,omitempty"`
}

type responseJSON struct {
	Kind   string      `json:"kind"`
	ID     uint64      `json:"id"`
	Method any         `json:"method"`
	Result any         `json:"result,omitempty"`
	Error  *ProtoError `json:"error,omitempty"`
}

type nonceJSON struct {
	Kind  string `json:"kind"`
	Nonce uint64 `json:"nonce"`
}

// eventJSON flattens the body's fields after the type; the field order
// suits all three event types (window_changed: window, change;
// content_changed: window, node, change; frame: width ... image).
type eventJSON struct {
	Kind     string  `json:"kind"`
	Stream   any     `json:"stream"`
	Seq      uint64  `json:"seq"`
	Type     any     `json:"type"`
	Window   *uint32 `json:"window,omitempty"`
	Node     *uint32 `json:"node,omitempty"`
	Change   *uint32 `json:"change,omitempty"`
	Width    *uint32 `json:"width,omitempty"`
	Height   *uint32 `json:"height,omitempty"`
	Format   *uint32 `json:"format,omitempty"`
	UptimeMS *uint64 `json:"uptime_ms,omitempty"`
	Image    *[]byte `json:"image,omitempty"`
}

type unknownKindJSON struct {
	Kind uint64 `json:"kind"`
}

// ProtoError is the JSON form of a protocol error.
type ProtoError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

type deviceJSON struct {
	Model   string      `json:"model"`
	SDK     uint32      `json:"sdk"`
	ABI     string      `json:"abi"`
	Display displayJSON `json:"display"`
}

type displayJSON struct {
	Width      uint32 `json:"width"`
	Height     uint32 `json:"height"`
	DensityDPI uint32 `json:"density_dpi"`
	Rotation   uint32 `json:"rotation"`
}

type snapshotParamsJSON struct {
	MaxDepth       *uint32  `json:"max_depth,omitempty"`
	MaxNodes       *uint32  `json:"max_nodes,omitempty"`
	MaxWindows     *uint32  `json:"max_windows,omitempty"`
	EvictEventLess *bool    `json:"evict_event_less,omitempty"`
	Evict          []uint32 `json:"evict"`
}

type boundsParamsJSON struct {
	Nodes []uint32 `json:"nodes"`
}

type tapParamsJSON struct {
	X int32 `json:"x"`
	Y int32 `json:"y"`
}

type longPressParamsJSON struct {
	X          int32  `json:"x"`
	Y          int32  `json:"y"`
	DurationMS uint32 `json:"duration_ms"`
}

type swipeParamsJSON struct {
	X1         int32   `json:"x1"`
	Y1         int32   `json:"y1"`
	X2         int32   `json:"x2"`
	Y2         int32   `json:"y2"`
	DurationMS uint32  `json:"duration_ms"`
	RestMS     *uint32 `json:"rest_ms,omitempty"`
}

type keyParamsJSON struct {
	Keycode uint32  `json:"keycode"`
	Meta    *uint32 `json:"meta,omitempty"`
}

type typeTextParamsJSON struct {
	Text string `json:"text"`
}

type setTextParamsJSON struct {
	Node uint32 `json:"node"`
	Text string `json:"text"`
}

type screenshotParamsJSON struct {
	Format   *uint32 `json:"format,omitempty"`
	Quality  *uint32 `json:"quality,omitempty"`
	ScalePct *uint32 `json:"scale_pct,omitempty"`
}

type framesStartParamsJSON struct {
	MaxFPS   *uint32 `json:"max_fps,omitempty"`
	ScalePct *uint32 `json:"scale_pct,omitempty"`
	Quality  *uint32 `json:"quality,omitempty"`
}

type streamJSON struct {
	Stream any `json:"stream"`
}

type emptyJSON struct{}

type snapshotJSON struct {
	Strings   []string     `json:"strings"`
	Windows   []windowJSON `json:"windows"`
	Truncated uint32       `json:"truncated"`
	Seq       uint64       `json:"seq"`
	Display   *displayJSON `json:"display,omitempty"`
}

type windowJSON struct {
	ID          uint32    `json:"id"`
	Type        uint32    `json:"type"`
	Layer       int32     `json:"layer"`
	Bounds      [4]int32  `json:"bounds"` // [left, top, right, bottom]
	Flags       uint32    `json:"flags"`
	Title       *string   `json:"title,omitempty"`
	Package     *uint32   `json:"package,omitempty"`
	Root        *nodeJSON `json:"root,omitempty"`
	EmitsEvents *bool     `json:"emits_events,omitempty"`
	Owner       *uint32   `json:"owner,omitempty"`
	Modal       bool      `json:"modal,omitempty"` // omitted when false, as on the wire
}

type nodeJSON struct {
	ID       uint32      `json:"id"`
	Class    uint32      `json:"class"`
	Bounds   [4]int32    `json:"bounds"`
	Flags    uint32      `json:"flags"`
	Text     *string     `json:"text,omitempty"`
	Desc     *string     `json:"desc,omitempty"`
	ResPkg   *uint32     `json:"res_pkg,omitempty"`
	ResName  *string     `json:"res_name,omitempty"`
	Children []nodeJSON  `json:"children,omitempty"` // omitted when empty, as on the wire
	Scroll   *scrollJSON `json:"scroll,omitempty"`
	Hint     *string     `json:"hint,omitempty"`
	State    *string     `json:"state,omitempty"`
}

type scrollJSON struct {
	Axis     uint32        `json:"axis"`
	Flags    uint32        `json:"flags"`
	Range    *rangeJSON    `json:"range,omitempty"`
	Position *positionJSON `json:"position,omitempty"`
}

type rangeJSON struct {
	Unit uint32 `json:"unit"`
	Lo   int64  `json:"lo"`
	Hi   int64  `json:"hi"`
}

type positionJSON struct {
	Lo int64 `json:"lo"`
	Hi int64 `json:"hi"`
}

type boundsResultJSON struct {
	Nodes []nodeBoundsJSON `json:"nodes"`
}

type nodeBoundsJSON struct {
	Node   uint32   `json:"node"`
	Bounds [4]int32 `json:"bounds"`
}

type screenshotResultJSON struct {
	Width  uint32 `json:"width"`
	Height uint32 `json:"height"`
	Format uint32 `json:"format"`
	Image  []byte `json:"image"`
}

type seqJSON struct {
	Seq uint64 `json:"seq"`
}

func ptr[T any](v T) *T { return &v }

// nonNil keeps present lists and byte strings from printing as null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func methodName(m codec.Method) any {
	if m.Known() {
		return m.String()
	}
	return uint64(m)
}

func streamKnown(s codec.Stream) bool { return s == codec.StreamTree || s == codec.StreamFrames }

func streamName(s codec.Stream) any {
	if streamKnown(s) {
		return s.String()
	}
	return uint64(s)
}

func eventTypeName(s codec.Stream, t codec.EventType) any {
	if codec.BodyFor(s, t) != nil {
		return codec.EventTypeName(s, t)
	}
	return uint64(t)
}

func boundsJSON(b codec.Bounds) [4]int32 { return [4]int32{b.Left, b.Top, b.Right, b.Bottom} }

// ErrorValue is a protocol error in its JSON form; nil for nil.
func ErrorValue(e *codec.Error) *ProtoError {
	if e == nil {
		return nil
	}
	return &ProtoError{Code: string(e.Code), Message: e.Message, Retryable: e.Retryable}
}

func devJSON(d *codec.Device) *deviceJSON {
	return &deviceJSON{Model: d.Model, SDK: d.SDK, ABI: d.ABI, Display: dispJSON(d.Display)}
}

func dispJSON(d codec.Display) displayJSON {
	return displayJSON{Width: d.Width, Height: d.Height, DensityDPI: d.DensityDPI, Rotation: d.Rotation}
}

// messageJSON returns the JSON form of m, for encoding/json to print.
// Value is m in its JSON form, for encoding/json to print.
func Value(m codec.Message) (any, error) {
	switch m := m.(type) {
	case *codec.Hello:
		out := &helloJSON{Kind: "hello", Versions: nonNil(m.Versions), MaxFrame: m.MaxFrame,
			Capabilities: uint32(m.Capabilities), CapabilityNames: nonNil(m.Capabilities.Names()),
			Token: m.Token.Ptr(), Agent: m.Agent}
		if m.Device.Ok {
			out.Device = devJSON(&m.Device.Val)
		}
		return out, nil
	case *codec.Welcome:
		return &welcomeJSON{Kind: "welcome", Version: m.Version.Ptr(), MaxFrame: m.MaxFrame.Ptr(),
			Error: ErrorValue(m.Error), Session: m.Session.Ptr()}, nil
	case *codec.Request:
		p, err := paramsJSON(m.Params)
		if err != nil {
			return nil, err
		}
		return &requestJSON{Kind: "request", ID: m.ID, Method: methodName(m.Method), Params: p, DeadlineMS: m.DeadlineMS.Ptr()}, nil
	case *codec.Response:
		out := &responseJSON{Kind: "response", ID: m.ID, Method: methodName(m.Method), Error: ErrorValue(m.Error)}
		if m.Error == nil {
			r, err := ResultValue(m.Result)
			if err != nil {
				return nil, err
			}
			out.Result = r
		}
		return out, nil
	case *codec.Ping:
		return &nonceJSON{Kind: "ping", Nonce: m.Nonce}, nil
	case *codec.Pong:
		return &nonceJSON{Kind: "pong", Nonce: m.Nonce}, nil
	case *codec.Event:
		out := &eventJSON{Kind: "event", Stream: streamName(m.Stream), Seq: m.Seq, Type: eventTypeName(m.Stream, m.Type)}
		switch b := m.Body.(type) {
		case nil:
		case *codec.WindowChanged:
			out.Window, out.Change = ptr(b.Window), ptr(b.Change)
		case *codec.ContentChanged:
			out.Window, out.Node, out.Change = ptr(b.Window), ptr(b.Node), ptr(b.Change)
		case *codec.ScreenFrame:
			out.Width, out.Height, out.Format = ptr(b.Width), ptr(b.Height), ptr(b.Format)
			out.UptimeMS, out.Image = ptr(b.UptimeMS), ptr(nonNil(b.Image))
		default:
			return nil, fmt.Errorf("no JSON form for event body %T", b)
		}
		return out, nil
	case *codec.UnknownKind:
		return &unknownKindJSON{Kind: m.Value}, nil
	}
	return nil, fmt.Errorf("no JSON form for message %T", m)
}

func paramsJSON(p codec.Params) (any, error) {
	switch p := p.(type) {
	case nil: // unknown method: its params were skipped
		return emptyJSON{}, nil
	case *codec.SnapshotParams:
		return &snapshotParamsJSON{MaxDepth: p.MaxDepth.Ptr(), MaxNodes: p.MaxNodes.Ptr(), MaxWindows: p.MaxWindows.Ptr(),
			EvictEventLess: p.EvictEventLess.Ptr(), Evict: nonNil(p.Evict)}, nil
	case *codec.BoundsParams:
		return &boundsParamsJSON{Nodes: nonNil(p.Nodes)}, nil
	case *codec.TapParams:
		return &tapParamsJSON{X: p.X, Y: p.Y}, nil
	case *codec.LongPressParams:
		return &longPressParamsJSON{X: p.X, Y: p.Y, DurationMS: p.DurationMS}, nil
	case *codec.SwipeParams:
		return &swipeParamsJSON{X1: p.X1, Y1: p.Y1, X2: p.X2, Y2: p.Y2, DurationMS: p.DurationMS, RestMS: p.RestMS.Ptr()}, nil
	case *codec.KeyParams:
		return &keyParamsJSON{Keycode: p.Keycode, Meta: p.Meta.Ptr()}, nil
	case *codec.TypeTextParams:
		return &typeTextParamsJSON{Text: p.Text}, nil
	case *codec.SetTextParams:
		return &setTextParamsJSON{Node: p.Node, Text: p.Text}, nil
	case *codec.ScreenshotParams:
		return &screenshotParamsJSON{Format: p.Format.Ptr(), Quality: p.Quality.Ptr(), ScalePct: p.ScalePct.Ptr()}, nil
	case *codec.FramesStartParams:
		return &framesStartParamsJSON{MaxFPS: p.MaxFPS.Ptr(), ScalePct: p.ScalePct.Ptr(), Quality: p.Quality.Ptr()}, nil
	case *codec.FramesStopParams, *codec.DeviceInfoParams:
		return emptyJSON{}, nil
	case *codec.ResyncParams:
		return &streamJSON{Stream: streamName(p.Stream)}, nil
	}
	return nil, fmt.Errorf("no JSON form for params %T", p)
}

// ResultValue is a result in its JSON form, as Value writes it in a
// response.
func ResultValue(r codec.Result) (any, error) {
	switch r := r.(type) {
	case nil, *codec.Empty: // nil: a response to an unknown method
		return emptyJSON{}, nil
	case *codec.Snapshot:
		out := &snapshotJSON{Strings: nonNil(r.Strings), Windows: make([]windowJSON, len(r.Windows)), Truncated: r.Truncated, Seq: r.Seq}
		for i := range r.Windows {
			out.Windows[i] = winJSON(&r.Windows[i])
		}
		if r.Display.Ok {
			out.Display = ptr(dispJSON(r.Display.Val))
		}
		return out, nil
	case *codec.BoundsResult:
		out := &boundsResultJSON{Nodes: make([]nodeBoundsJSON, len(r.Nodes))}
		for i, nb := range r.Nodes {
			out.Nodes[i] = nodeBoundsJSON{Node: nb.Node, Bounds: boundsJSON(nb.Bounds)}
		}
		return out, nil
	case *codec.ScreenshotResult:
		return &screenshotResultJSON{Width: r.Width, Height: r.Height, Format: r.Format, Image: nonNil(r.Image)}, nil
	case *codec.FramesStartResult:
		return &streamJSON{Stream: streamName(r.Stream)}, nil
	case *codec.ResyncResult:
		return &seqJSON{Seq: r.Seq}, nil
	case *codec.Device:
		return devJSON(r), nil
	}
	return nil, fmt.Errorf("no JSON form for result %T", r)
}

func winJSON(w *codec.Window) windowJSON {
	out := windowJSON{ID: w.ID, Type: w.Type, Layer: w.Layer, Bounds: boundsJSON(w.Bounds), Flags: w.Flags,
		Title: w.Title.Ptr(), Package: w.Package.Ptr(), EmitsEvents: w.EmitsEvents.Ptr(), Owner: w.Owner.Ptr(), Modal: w.Modal}
	if w.Root != nil {
		out.Root = ptr(nodeToJSON(w.Root))
	}
	return out
}

// nodeToJSON recurses once per level; decoded trees are at most
// MaxNodeDepth deep.
func nodeToJSON(n *codec.Node) nodeJSON {
	out := nodeJSON{ID: n.ID, Class: n.Class, Bounds: boundsJSON(n.Bounds), Flags: n.Flags,
		Text: n.Text.Ptr(), Desc: n.Desc.Ptr(), ResPkg: n.ResPkg.Ptr(), ResName: n.ResName.Ptr(),
		Hint: n.Hint.Ptr(), State: n.State.Ptr()}
	if len(n.Children) > 0 {
		out.Children = make([]nodeJSON, len(n.Children))
		for i := range n.Children {
			out.Children[i] = nodeToJSON(&n.Children[i])
		}
	}
	if s := n.Scroll; s != nil {
		out.Scroll = &scrollJSON{Axis: s.Axis, Flags: s.Flags}
		if s.Range.Ok {
			out.Scroll.Range = &rangeJSON{Unit: s.Range.Val.Unit, Lo: s.Range.Val.Lo, Hi: s.Range.Val.Hi}
		}
		if s.Position.Ok {
			out.Scroll.Position = &positionJSON{Lo: s.Position.Val.Lo, Hi: s.Position.Val.Hi}
		}
	}
	return out
}

// JSON → message.

// FieldError is a JSON message that does not follow the schema: Path names
// the field as the codec's decode errors do ("request.params.x").
type FieldError struct {
	Path string
	Msg  string
}

// Error reports the field and the problem.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "field " + e.Path + ": " + e.Msg
}

// conv converts one JSON value into a message, keeping the first error:
// after it every reader returns zero values, so the conversion code reads
// straight through without checking each step.
type conv struct {
	err error // a *FieldError, or the *SyntaxError of a duplicate key
}

func (c *conv) failf(path *jpath, format string, a ...any) {
	if c.err == nil {
		c.err = &FieldError{Path: path.String(), Msg: fmt.Sprintf(format, a...)}
	}
}

// jpath is a field path, built as the conversion descends and turned into
// text ("request.params.x") only for an error message.
type jpath struct {
	up    *jpath
	key   string
	i     int
	isIdx bool
}

func join(p *jpath, key string) *jpath { return &jpath{up: p, key: key} }

func index(p *jpath, i int) *jpath { return &jpath{up: p, i: i, isIdx: true} }

// String renders the path, outermost field first.
func (p *jpath) String() string {
	var segs []*jpath
	for ; p != nil; p = p.up {
		segs = append(segs, p)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].isIdx {
			b.WriteString("[" + strconv.Itoa(segs[i].i) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(segs[i].key)
	}
	return b.String()
}

// jobj reads the fields of one JSON object, remembering which were read so
// that end can reject the rest.
type jobj struct {
	c       *conv
	path    *jpath
	members []jmember
	used    []bool
}

func (c *conv) object(v *jval, path *jpath) *jobj {
	o := &jobj{c: c, path: path}
	if v == nil || c.err != nil {
		return o
	}
	if v.kind != jObject {
		c.failf(path, "want an object, got %s", v.describe())
		return o
	}
	var err error
	if o.members, err = v.members(path); err != nil {
		c.err = err
		return o
	}
	o.used = make([]bool, len(o.members))
	return o
}

// take returns the value of key and its path; the value is nil when the
// key is absent or null (null reads as absent, as on the wire).
func (o *jobj) take(key string) (*jval, *jpath) {
	p := join(o.path, key)
	for i := range o.members {
		if m := &o.members[i]; m.key == key {
			o.used[i] = true
			if m.val.kind == jNull {
				return nil, p
			}
			return &m.val, p
		}
	}
	return nil, p
}

// need is take for a required key.
func (o *jobj) need(key string) (*jval, *jpath) {
	v, p := o.take(key)
	if v == nil {
		o.c.failf(p, "required field is missing")
	}
	return v, p
}

// end rejects every field that was not read.
func (o *jobj) end() {
	for i, u := range o.used {
		if !u {
			o.c.failf(join(o.path, o.members[i].key), "unknown field")
		}
	}
}

func (o *jobj) u32(key string) uint32 { v, p := o.need(key); return uint32(o.c.uint(v, p, 32)) }
func (o *jobj) u64(key string) uint64 { v, p := o.need(key); return o.c.uint(v, p, 64) }
func (o *jobj) i32(key string) int32  { v, p := o.need(key); return int32(o.c.int(v, p, 32)) }
func (o *jobj) i64(key string) int64  { v, p := o.need(key); return o.c.int(v, p, 64) }
func (o *jobj) text(key string) string {
	v, p := o.need(key)
	return o.c.str(v, p)
}

func (o *jobj) optU32(key string) codec.Opt[uint32] {
	if v, p := o.take(key); v != nil {
		return codec.Some(uint32(o.c.uint(v, p, 32)))
	}
	return codec.Opt[uint32]{}
}

func (o *jobj) optU64(key string) codec.Opt[uint64] {
	if v, p := o.take(key); v != nil {
		return codec.Some(o.c.uint(v, p, 64))
	}
	return codec.Opt[uint64]{}
}

func (o *jobj) optText(key string) codec.Opt[string] {
	if v, p := o.take(key); v != nil {
		return codec.Some(o.c.str(v, p))
	}
	return codec.Opt[string]{}
}

func (o *jobj) optBool(key string) codec.Opt[bool] {
	if v, p := o.take(key); v != nil {
		return codec.Some(o.c.boolean(v, p))
	}
	return codec.Opt[bool]{}
}

func (o *jobj) u32s(key string) []uint32 {
	v, p := o.need(key)
	out := make([]uint32, 0, o.c.count(v, p))
	ip := index(p, 0) // one path for every element: an error turns it into text at once
	o.c.elems(v, p, func(i int, it *jval) {
		ip.i = i
		out = append(out, uint32(o.c.uint(it, ip, 32)))
	})
	return out
}

func (o *jobj) bytes(key string) []byte {
	v, p := o.need(key)
	s := o.c.str(v, p)
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		o.c.failf(p, "not standard base64: %v", err)
	}
	return nonNil(b)
}

func (o *jobj) bounds(key string) codec.Bounds {
	v, p := o.need(key)
	return o.c.bounds(v, p)
}

func (c *conv) uint(v *jval, path *jpath, bits int) uint64 {
	u, _ := c.integer(v, path, bits, false)
	return u
}

func (c *conv) int(v *jval, path *jpath, bits int) int64 {
	_, i := c.integer(v, path, bits, true)
	return i
}

// integer reads v as an integer of at most bits, signed (i, returned in
// i) or not (u, returned in u), and fails naming the type where v is not
// a number, not an integer, or out of its range.
func (c *conv) integer(v *jval, path *jpath, bits int, signed bool) (u uint64, i int64) {
	if v == nil || c.err != nil {
		return 0, 0
	}
	what, typ := "an unsigned integer", "u"
	if signed {
		what, typ = "an integer", "i"
	}
	if v.kind != jNumber {
		c.failf(path, "want %s (%s%d), got %s", what, typ, bits, v.describe())
		return 0, 0
	}
	lit := v.lit()
	var err error
	if signed {
		i, err = strconv.ParseInt(lit, 10, bits)
	} else {
		u, err = strconv.ParseUint(lit, 10, bits)
	}
	if err != nil {
		if isInteger(lit) {
			c.failf(path, "%s does not fit in %s%d", lit, typ, bits)
		} else {
			c.failf(path, "want %s (%s%d), got %s", what, typ, bits, lit)
		}
	}
	return u, i
}

// isInteger reports whether a JSON number literal has no fraction or
// exponent.
func isInteger(lit string) bool { return !strings.ContainsAny(lit, ".eE") }

func (c *conv) str(v *jval, path *jpath) string {
	if v == nil || c.err != nil {
		return ""
	}
	if v.kind != jString {
		c.failf(path, "want a string, got %s", v.describe())
		return ""
	}
	return v.text()
}

func (c *conv) boolean(v *jval, path *jpath) bool {
	if v == nil || c.err != nil {
		return false
	}
	if v.kind != jBool {
		c.failf(path, "want true or false, got %s", v.describe())
		return false
	}
	return v.boolean()
}

// elems calls fn for each element of the array v, until an error.
func (c *conv) elems(v *jval, path *jpath, fn func(i int, it *jval)) {
	if v == nil || c.err != nil {
		return
	}
	if v.kind != jArray {
		c.failf(path, "want an array, got %s", v.describe())
		return
	}
	v.elems(func(i int, it *jval) bool {
		fn(i, it)
		return c.err == nil
	})
}

// count is the number of elements of the array v (0 for anything else).
func (c *conv) count(v *jval, path *jpath) int {
	if v == nil || c.err != nil || v.kind != jArray {
		return 0
	}
	return v.count()
}

func (c *conv) bounds(v *jval, path *jpath) codec.Bounds {
	if v == nil || c.err != nil {
		return codec.Bounds{}
	}
	n := c.count(v, path)
	if n != 4 {
		if v.kind != jArray {
			c.failf(path, "want an array, got %s", v.describe())
		} else {
			c.failf(path, "bounds are [left, top, right, bottom], not %d numbers", n)
		}
		return codec.Bounds{}
	}
	var b [4]int32
	c.elems(v, path, func(i int, it *jval) {
		b[i] = int32(c.int(it, index(path, i), 32))
	})
	return codec.Bounds{Left: b[0], Top: b[1], Right: b[2], Bottom: b[3]}
}

// enum reads a name or a number. parse turns a name into its number;
// names lists the known names for the error message.
func (c *conv) enum(v *jval, path *jpath, what string, bits int, parse func(string) (uint64, bool), names []string) uint64 {
	if v == nil || c.err != nil {
		return 0
	}
	switch v.kind {
	case jNumber:
		return c.uint(v, path, bits)
	case jString:
		name := v.text()
		n, ok := parse(name)
		if !ok {
			known := "no names, only numbers"
			if len(names) > 0 {
				known = "known: " + strings.Join(names, ", ") + ", or a number"
			}
			c.failf(path, "unknown %s %q (%s)", what, name, known)
		}
		return n
	}
	c.failf(path, "want a %s name or number, got %s", what, v.describe())
	return 0
}

// kindNames lists the kinds' protocol names, for error messages.
func kindNames() []string {
	var out []string
	for k := codec.Kind(0); k.Known(); k++ {
		out = append(out, k.String())
	}
	return out
}

func methodNames() []string {
	var out []string
	for _, m := range codec.Methods() {
		out = append(out, m.String())
	}
	return out
}

func (c *conv) method(v *jval, path *jpath) codec.Method {
	return codec.Method(c.enum(v, path, "method", 32, func(s string) (uint64, bool) {
		m, ok := codec.ParseMethod(s)
		return uint64(m), ok
	}, methodNames()))
}

func (c *conv) stream(v *jval, path *jpath) codec.Stream {
	return codec.Stream(c.enum(v, path, "stream", 32, func(s string) (uint64, bool) {
		st, ok := codec.ParseStream(s)
		return uint64(st), ok
	}, []string{"tree", "frames"}))
}

// Parse reads a line holding the JSON form of one message back into the
// message. A line that is not one JSON value is a *SyntaxError; one that
// does not follow the schema, a *FieldError naming the field.
func Parse(line []byte) (codec.Message, error) {
	v, err := parseJSON(line)
	if err != nil {
		return nil, err
	}
	return messageFromJSON(v)
}

// messageFromJSON converts the JSON form of a message back to the message.
func messageFromJSON(v *jval) (codec.Message, error) {
	c := &conv{}
	m := c.message(v)
	if c.err != nil {
		return nil, c.err
	}
	return m, nil
}

func (c *conv) message(v *jval) codec.Message {
	o := c.object(v, nil)
	kv, kp := o.need(codec.WelcomeFields.Name(codec.KeyKind))
	kind := codec.Kind(c.enum(kv, kp, "kind", 64, func(s string) (uint64, bool) {
		k, ok := codec.ParseKind(s)
		return uint64(k), ok
	}, kindNames()))
	if c.err != nil {
		return nil
	}
	if !kind.Known() {
		c.failf(kp, "kind %d is not a kind of protocol version 1; it cannot be encoded", uint64(kind))
		return nil
	}
	o.path = &jpath{key: kind.String()}
	var m codec.Message
	switch kind {
	case codec.KindHello:
		m = c.hello(o)
	case codec.KindWelcome:
		w := &codec.Welcome{Version: o.optU32(codec.WelcomeFields.Name(codec.KeyWelcomeVersion)), MaxFrame: o.optU32(codec.WelcomeFields.Name(codec.KeyWelcomeMaxFrame))}
		if ev, ep := o.take(codec.WelcomeFields.Name(codec.KeyWelcomeError)); ev != nil {
			w.Error = c.protoError(ev, ep)
		}
		w.Session = o.optU64(codec.WelcomeFields.Name(codec.KeyWelcomeSession))
		m = w
	case codec.KindRequest:
		m = c.request(o)
	case codec.KindResponse:
		m = c.response(o)
	case codec.KindPing:
		m = &codec.Ping{Nonce: o.u64(codec.PingFields.Name(codec.KeyNonce))}
	case codec.KindPong:
		m = &codec.Pong{Nonce: o.u64(codec.PingFields.Name(codec.KeyNonce))}
	case codec.KindEvent:
		m = c.event(o)
	}
	o.end()
	return m
}

func (c *conv) hello(o *jobj) *codec.Hello {
	nm := codec.HelloFields.Name // names from the schema table
	h := &codec.Hello{Versions: o.u32s(nm(codec.KeyHelloVersions)), MaxFrame: o.u32(nm(codec.KeyHelloMaxFrame))}
	cv, cp := o.take(nm(codec.KeyHelloCapabilities))
	nv, np := o.take("capability_names")
	if cv == nil && nv == nil {
		c.failf(cp, "required field is missing")
	}
	caps := codec.Capabilities(c.uint(cv, cp, 32))
	if nv != nil {
		var named codec.Capabilities
		c.elems(nv, np, func(i int, it *jval) {
			s := c.str(it, index(np, i))
			bit, ok := codec.ParseCapability(s)
			if !ok && c.err == nil {
				c.failf(index(np, i), "unknown capability %q (known: tree, input, screenshot, frames, events, text_set, bounds, or \"bit N\")", s)
			}
			named |= bit
		})
		if cv == nil {
			caps = named
		} else if named != caps {
			c.failf(np, "names %s (%d) disagree with capabilities %d (%s); fix one or drop capability_names", named, uint32(named), uint32(caps), caps)
		}
	}
	h.Capabilities = caps
	h.Token = o.optText(nm(codec.KeyHelloToken))
	h.Agent = o.text(nm(codec.KeyHelloAgent))
	if dv, dp := o.take(nm(codec.KeyHelloDevice)); dv != nil {
		h.Device = codec.Some(c.device(dv, dp))
	}
	return h
}

func (c *conv) device(v *jval, path *jpath) codec.Device {
	nm := codec.DeviceFields.Name // names from the schema table
	o := c.object(v, path)
	d := codec.Device{Model: o.text(nm(codec.KeyDeviceModel)), SDK: o.u32(nm(codec.KeyDeviceSDK)), ABI: o.text(nm(codec.KeyDeviceABI))}
	dv, dp := o.need(nm(codec.KeyDeviceDisplay))
	d.Display = c.display(dv, dp)
	o.end()
	return d
}

func (c *conv) display(v *jval, path *jpath) codec.Display {
	nm := codec.DisplayFields.Name // names from the schema table
	o := c.object(v, path)
	d := codec.Display{Width: o.u32(nm(codec.KeyDisplayWidth)), Height: o.u32(nm(codec.KeyDisplayHeight)), DensityDPI: o.u32(nm(codec.KeyDisplayDensityDPI)), Rotation: o.u32(nm(codec.KeyDisplayRotation))}
	o.end()
	return d
}

func (c *conv) protoError(v *jval, path *jpath) *codec.Error {
	nm := codec.ErrorFields.Name // names from the schema table
	o := c.object(v, path)
	e := &codec.Error{Code: codec.Code(o.text(nm(codec.KeyErrorCode))), Message: o.text(nm(codec.KeyErrorMessage))}
	rv, rp := o.need(nm(codec.KeyErrorRetryable))
	e.Retryable = c.boolean(rv, rp)
	o.end()
	return e
}

func (c *conv) request(o *jobj) *codec.Request {
	nm := codec.RequestFields.Name // names from the schema table
	r := &codec.Request{ID: o.u64(nm(codec.KeyRequestID))}
	mv, mp := o.need(nm(codec.KeyRequestMethod))
	r.Method = c.method(mv, mp)
	pv, pp := o.need(nm(codec.KeyRequestParams))
	po := c.object(pv, pp)
	if c.err == nil {
		r.Params = codec.ParamsFor(r.Method)
		if r.Params == nil && len(po.members) > 0 {
			c.failf(pp, "a request for unknown method %d is written with empty params {}; its params cannot be encoded", uint32(r.Method))
		}
		c.params(po, r.Params)
	}
	po.end()
	r.DeadlineMS = o.optU32(nm(codec.KeyRequestDeadlineMS))
	return r
}

func (c *conv) params(o *jobj, p codec.Params) {
	if p == nil {
		return
	}
	nm := p.Method().ParamFields().Name // names from the schema table
	switch p := p.(type) {
	case *codec.SnapshotParams:
		p.MaxDepth, p.MaxNodes, p.MaxWindows = o.optU32(nm(codec.KeySnapshotParamsMaxDepth)), o.optU32(nm(codec.KeySnapshotParamsMaxNodes)), o.optU32(nm(codec.KeySnapshotParamsMaxWindows))
		p.EvictEventLess = o.optBool(nm(codec.KeySnapshotParamsEvictEventLess))
		p.Evict = o.u32s(nm(codec.KeySnapshotParamsEvict))
	case *codec.BoundsParams:
		p.Nodes = o.u32s(nm(codec.KeyBoundsParamsNodes))
	case *codec.TapParams:
		p.X, p.Y = o.i32(nm(codec.KeyTapParamsX)), o.i32(nm(codec.KeyTapParamsY))
	case *codec.LongPressParams:
		p.X, p.Y, p.DurationMS = o.i32(nm(codec.KeyLongPressParamsX)), o.i32(nm(codec.KeyLongPressParamsY)), o.u32(nm(codec.KeyLongPressParamsDurationMS))
	case *codec.SwipeParams:
		p.X1, p.Y1, p.X2, p.Y2 = o.i32(nm(codec.KeySwipeParamsX1)), o.i32(nm(codec.KeySwipeParamsY1)), o.i32(nm(codec.KeySwipeParamsX2)), o.i32(nm(codec.KeySwipeParamsY2))
		p.DurationMS, p.RestMS = o.u32(nm(codec.KeySwipeParamsDurationMS)), o.optU32(nm(codec.KeySwipeParamsRestMS))
	case *codec.KeyParams:
		p.Keycode, p.Meta = o.u32(nm(codec.KeyKeyParamsKeycode)), o.optU32(nm(codec.KeyKeyParamsMeta))
	case *codec.TypeTextParams:
		p.Text = o.text(nm(codec.KeyTypeTextParamsText))
	case *codec.SetTextParams:
		p.Node, p.Text = o.u32(nm(codec.KeySetTextParamsNode)), o.text(nm(codec.KeySetTextParamsText))
	case *codec.ScreenshotParams:
		p.Format, p.Quality, p.ScalePct = o.optU32(nm(codec.KeyScreenshotParamsFormat)), o.optU32(nm(codec.KeyScreenshotParamsQuality)), o.optU32(nm(codec.KeyScreenshotParamsScalePct))
	case *codec.FramesStartParams:
		p.MaxFPS, p.ScalePct, p.Quality = o.optU32(nm(codec.KeyFramesStartParamsMaxFPS)), o.optU32(nm(codec.KeyFramesStartParamsScalePct)), o.optU32(nm(codec.KeyFramesStartParamsQuality))
	case *codec.ResyncParams:
		sv, sp := o.need(nm(codec.KeyResyncParamsStream))
		p.Stream = c.stream(sv, sp)
	case *codec.FramesStopParams, *codec.DeviceInfoParams:
	default:
		c.failf(o.path, "no JSON form for params %T", p)
	}
}

func (c *conv) response(o *jobj) *codec.Response {
	nm := codec.ResponseFields.Name // names from the schema table
	r := &codec.Response{ID: o.u64(nm(codec.KeyResponseID))}
	mv, mp := o.need(nm(codec.KeyResponseMethod))
	r.Method = c.method(mv, mp)
	rv, rp := o.take(nm(codec.KeyResponseResult))
	ev, ep := o.take(nm(codec.KeyResponseError))
	switch {
	case rv != nil && ev != nil:
		c.failf(o.path, "a response carries a result or an error, not both")
	case ev != nil:
		r.Error = c.protoError(ev, ep)
	case rv != nil:
		ro := c.object(rv, rp)
		if c.err != nil {
			return r
		}
		r.Result = codec.ResultFor(r.Method)
		if r.Result == nil && len(ro.members) > 0 {
			c.failf(rp, "a response to unknown method %d is written with an empty result {}; its result cannot be encoded", uint32(r.Method))
		}
		c.result(ro, r.Method, r.Result)
		ro.end()
	default:
		c.failf(o.path, "a response carries a result or an error (neither is present)")
	}
	return r
}

func (c *conv) result(o *jobj, m codec.Method, r codec.Result) {
	if r == nil {
		return
	}
	nm := m.ResultFields().Name // names from the schema table
	switch r := r.(type) {
	case *codec.Snapshot:
		sv, sp := o.need(nm(codec.KeySnapshotStrings))
		r.Strings = make([]string, 0, c.count(sv, sp))
		c.elems(sv, sp, func(i int, it *jval) {
			r.Strings = append(r.Strings, c.str(it, index(sp, i)))
		})
		wv, wp := o.need(nm(codec.KeySnapshotWindows))
		r.Windows = make([]codec.Window, c.count(wv, wp))
		c.elems(wv, wp, func(i int, it *jval) {
			c.window(it, index(wp, i), &r.Windows[i])
		})
		r.Truncated, r.Seq = o.u32(nm(codec.KeySnapshotTruncated)), o.u64(nm(codec.KeySnapshotSeq))
		if dv, dp := o.take(nm(codec.KeySnapshotDisplay)); dv != nil {
			r.Display = codec.Some(c.display(dv, dp))
		}
	case *codec.BoundsResult:
		nv, np := o.need(nm(codec.KeyBoundsResultNodes))
		r.Nodes = make([]codec.NodeBounds, c.count(nv, np))
		c.elems(nv, np, func(i int, it *jval) {
			eo := c.object(it, index(np, i))
			r.Nodes[i] = codec.NodeBounds{Node: eo.u32("node"), Bounds: eo.bounds("bounds")}
			eo.end()
		})
	case *codec.ScreenshotResult:
		r.Width, r.Height, r.Format, r.Image = o.u32(nm(codec.KeyScreenshotResultWidth)), o.u32(nm(codec.KeyScreenshotResultHeight)), o.u32(nm(codec.KeyScreenshotResultFormat)), o.bytes(nm(codec.KeyScreenshotResultImage))
	case *codec.FramesStartResult:
		sv, sp := o.need(nm(codec.KeyFramesStartResultStream))
		r.Stream = c.stream(sv, sp)
	case *codec.ResyncResult:
		r.Seq = o.u64(nm(codec.KeyResyncResultSeq))
	case *codec.Device:
		*r = codec.Device{Model: o.text(nm(codec.KeyDeviceModel)), SDK: o.u32(nm(codec.KeyDeviceSDK)), ABI: o.text(nm(codec.KeyDeviceABI))}
		dv, dp := o.need(nm(codec.KeyDeviceDisplay))
		r.Display = c.display(dv, dp)
	case *codec.Empty:
	default:
		c.failf(o.path, "no JSON form for result %T", r)
	}
}

func (c *conv) window(v *jval, path *jpath, w *codec.Window) {
	nm := codec.WindowFields.Name // names from the schema table
	o := c.object(v, path)
	w.ID, w.Type, w.Layer = o.u32(nm(codec.KeyWindowID)), o.u32(nm(codec.KeyWindowType)), o.i32(nm(codec.KeyWindowLayer))
	w.Bounds, w.Flags = o.bounds(nm(codec.KeyWindowBounds)), o.u32(nm(codec.KeyWindowFlags))
	w.Title, w.Package = o.optText(nm(codec.KeyWindowTitle)), o.optU32(nm(codec.KeyWindowPackage))
	if rv, rp := o.take(nm(codec.KeyWindowRoot)); rv != nil {
		w.Root = new(codec.Node)
		c.node(rv, rp, w.Root, 1)
	}
	w.EmitsEvents, w.Owner = o.optBool(nm(codec.KeyWindowEmitsEvents)), o.optU32(nm(codec.KeyWindowOwner))
	w.Modal = o.optBool(nm(codec.KeyWindowModal)).Val
	o.end()
}

// node converts a node tree, recursing once per level: the JSON parser
// bounds the nesting (see maxJSONDepth), and level MaxNodeDepth+1 fails.
func (c *conv) node(v *jval, path *jpath, n *codec.Node, level int) {
	nm := codec.NodeFields.Name // names from the schema table
	sm := codec.ScrollFields.Name
	if c.err != nil {
		return
	}
	if level > codec.MaxNodeDepth {
		c.failf(path, "node tree deeper than %d levels", codec.MaxNodeDepth)
		return
	}
	o := c.object(v, path)
	n.ID, n.Class, n.Bounds, n.Flags = o.u32(nm(codec.KeyNodeID)), o.u32(nm(codec.KeyNodeClass)), o.bounds(nm(codec.KeyNodeBounds)), o.u32(nm(codec.KeyNodeFlags))
	n.Text, n.Desc, n.ResPkg, n.ResName = o.optText(nm(codec.KeyNodeText)), o.optText(nm(codec.KeyNodeDesc)), o.optU32(nm(codec.KeyNodeResPkg)), o.optText(nm(codec.KeyNodeResName))
	if cv, cp := o.take(nm(codec.KeyNodeChildren)); cv != nil {
		if k := c.count(cv, cp); k > 0 {
			n.Children = make([]codec.Node, k)
		}
		c.elems(cv, cp, func(i int, it *jval) {
			c.node(it, index(cp, i), &n.Children[i], level+1)
		})
	}
	if sv, sp := o.take(nm(codec.KeyNodeScroll)); sv != nil {
		so := c.object(sv, sp)
		s := &codec.Scroll{Axis: so.u32(sm(codec.KeyScrollAxis)), Flags: so.u32(sm(codec.KeyScrollFlags))}
		if rv, rp := so.take(sm(codec.KeyScrollRange)); rv != nil {
			ro := c.object(rv, rp)
			s.Range = codec.Some(codec.ScrollRange{Unit: ro.u32("unit"), Lo: ro.i64("lo"), Hi: ro.i64("hi")})
			ro.end()
		}
		if pv, pp := so.take(sm(codec.KeyScrollPosition)); pv != nil {
			if !s.Range.Ok {
				c.failf(pp, "a scroll position needs a range")
			}
			po := c.object(pv, pp)
			s.Position = codec.Some(codec.ScrollPosition{Lo: po.i64("lo"), Hi: po.i64("hi")})
			po.end()
		}
		so.end()
		n.Scroll = s
	}
	n.Hint, n.State = o.optText(nm(codec.KeyNodeHint)), o.optText(nm(codec.KeyNodeState))
	o.end()
}

func (c *conv) event(o *jobj) *codec.Event {
	e := &codec.Event{}
	sv, sp := o.need("stream")
	e.Stream = c.stream(sv, sp)
	e.Seq = o.u64("seq")
	tv, tp := o.need("type")
	var names []string
	for t := codec.EventType(0); t < 2; t++ {
		if codec.BodyFor(e.Stream, t) != nil {
			names = append(names, codec.EventTypeName(e.Stream, t))
		}
	}
	e.Type = codec.EventType(c.enum(tv, tp, "event type for stream "+e.Stream.String(), 32, func(s string) (uint64, bool) {
		t, ok := codec.ParseEventType(e.Stream, s)
		return uint64(t), ok
	}, names))
	if c.err != nil {
		return e
	}
	switch b := codec.BodyFor(e.Stream, e.Type).(type) {
	case *codec.WindowChanged:
		b.Window, b.Change = o.u32("window"), o.u32("change")
		e.Body = b
	case *codec.ContentChanged:
		b.Window, b.Node, b.Change = o.u32("window"), o.u32("node"), o.u32("change")
		e.Body = b
	case *codec.ScreenFrame:
		b.Width, b.Height, b.Format = o.u32("width"), o.u32("height"), o.u32("format")
		b.UptimeMS, b.Image = o.u64("uptime_ms"), o.bytes("image")
		e.Body = b
	case nil:
		// An unknown type: the codec writes it with no fields.
	default:
		c.failf(o.path, "no JSON form for event body %T", b)
	}
	return e
}
