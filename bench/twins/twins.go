package twins

//go:generate go run ../../codec/internal/fieldgen -pkg twins
//go:generate go tool msgp -file twins.go -o twins_gen.go -tests=false -io=false
//go:generate go tool msgp -file node_gen.go -o node_msgp_gen.go -tests=false -io=false

import "github.com/fxamacker/cbor/v2"

// A request's params and a response's result are cbor.RawMessage in the
// envelope for fxamacker; msgp reads and writes the same field as a
// msgp.Raw (the replace below: a pointer conversion, no copy), so each
// library keeps its own raw type's code.

//msgp:replace cbor.RawMessage with:msgp.Raw

// Positional arrays: fxamacker's toarray (the blank field) and msgp's tuple.

//msgp:tuple EventHead WindowChanged ContentChanged ScreenFrame NodeBounds ScrollRange ScrollPosition

// Each field carries its protocol key twice: `cbor:"N,keyasint"` for
// fxamacker and `msg:"x"` for msgp, whose maps are keyed by string, so the
// key is written in hexadecimal, one character (the closest MessagePack
// has to CBOR's one-byte integer keys). Optional fields are pointers with
// omitempty.

// Hello is the twin of codec.Hello.
type Hello struct {
	Kind         uint64   `cbor:"0,keyasint" msg:"0"`
	Versions     []uint32 `cbor:"1,keyasint" msg:"1"`
	MaxFrame     uint32   `cbor:"2,keyasint" msg:"2"`
	Capabilities uint32   `cbor:"3,keyasint" msg:"3"`
	Token        *string  `cbor:"4,keyasint,omitempty" msg:"4,omitempty"`
	Agent        string   `cbor:"5,keyasint" msg:"5"`
	Device       *Device  `cbor:"6,keyasint,omitempty" msg:"6,omitempty"`
}

// Device is the twin of codec.Device.
type Device struct {
	Model   string  `cbor:"0,keyasint" msg:"0"`
	SDK     uint32  `cbor:"1,keyasint" msg:"1"`
	ABI     string  `cbor:"2,keyasint" msg:"2"`
	Display Display `cbor:"3,keyasint" msg:"3"`
}

// Display is the twin of codec.Display.
type Display struct {
	Width      uint32 `cbor:"0,keyasint" msg:"0"`
	Height     uint32 `cbor:"1,keyasint" msg:"1"`
	DensityDPI uint32 `cbor:"2,keyasint" msg:"2"`
	Rotation   uint32 `cbor:"3,keyasint" msg:"3"`
}

// Welcome is the twin of codec.Welcome.
type Welcome struct {
	Kind     uint64  `cbor:"0,keyasint" msg:"0"`
	Version  *uint32 `cbor:"1,keyasint,omitempty" msg:"1,omitempty"`
	MaxFrame *uint32 `cbor:"2,keyasint,omitempty" msg:"2,omitempty"`
	Error    *Error  `cbor:"3,keyasint,omitempty" msg:"3,omitempty"`
	Session  *uint64 `cbor:"4,keyasint,omitempty" msg:"4,omitempty"`
}

// Error is the twin of codec.Error.
type Error struct {
	Code      string `cbor:"0,keyasint" msg:"0"`
	Message   string `cbor:"1,keyasint" msg:"1"`
	Retryable bool   `cbor:"2,keyasint" msg:"2"`
}

// Ping is the twin of codec.Ping.
type Ping struct {
	Kind  uint64 `cbor:"0,keyasint" msg:"0"`
	Nonce uint64 `cbor:"1,keyasint" msg:"1"`
}

// Pong is the twin of codec.Pong.
type Pong struct {
	Kind  uint64 `cbor:"0,keyasint" msg:"0"`
	Nonce uint64 `cbor:"1,keyasint" msg:"1"`
}

// Request is the twin of codec.Request; Params holds the encoded
// parameter map, decoded in a second step once the method is known.
type Request struct {
	Kind       uint64          `cbor:"0,keyasint" msg:"0"`
	ID         uint64          `cbor:"1,keyasint" msg:"1"`
	Method     uint32          `cbor:"2,keyasint" msg:"2"`
	Params     cbor.RawMessage `cbor:"3,keyasint" msg:"3"`
	DeadlineMS *uint32         `cbor:"4,keyasint,omitempty" msg:"4,omitempty"`
}

// Response is the twin of codec.Response; Result holds the encoded
// result, decoded in a second step once the method is known.
type Response struct {
	Kind   uint64          `cbor:"0,keyasint" msg:"0"`
	ID     uint64          `cbor:"1,keyasint" msg:"1"`
	Method uint32          `cbor:"2,keyasint" msg:"2"`
	Result cbor.RawMessage `cbor:"3,keyasint,omitempty" msg:"3,omitempty"`
	Error  *Error          `cbor:"4,keyasint,omitempty" msg:"4,omitempty"`
}

// SnapshotParams is the twin of codec.SnapshotParams.
type SnapshotParams struct {
	MaxDepth       *uint32  `cbor:"0,keyasint,omitempty" msg:"0,omitempty"`
	MaxNodes       *uint32  `cbor:"1,keyasint,omitempty" msg:"1,omitempty"`
	MaxWindows     *uint32  `cbor:"2,keyasint,omitempty" msg:"2,omitempty"`
	EvictEventLess *bool    `cbor:"3,keyasint,omitempty" msg:"3,omitempty"`
	Evict          []uint32 `cbor:"4,keyasint" msg:"4"`
}

// BoundsParams is the twin of codec.BoundsParams.
type BoundsParams struct {
	Nodes []uint32 `cbor:"0,keyasint" msg:"0"`
}

// TapParams is the twin of codec.TapParams.
type TapParams struct {
	X int32 `cbor:"0,keyasint" msg:"0"`
	Y int32 `cbor:"1,keyasint" msg:"1"`
}

// LongPressParams is the twin of codec.LongPressParams.
type LongPressParams struct {
	X          int32  `cbor:"0,keyasint" msg:"0"`
	Y          int32  `cbor:"1,keyasint" msg:"1"`
	DurationMS uint32 `cbor:"2,keyasint" msg:"2"`
}

// SwipeParams is the twin of codec.SwipeParams.
type SwipeParams struct {
	X1         int32   `cbor:"0,keyasint" msg:"0"`
	Y1         int32   `cbor:"1,keyasint" msg:"1"`
	X2         int32   `cbor:"2,keyasint" msg:"2"`
	Y2         int32   `cbor:"3,keyasint" msg:"3"`
	DurationMS uint32  `cbor:"4,keyasint" msg:"4"`
	RestMS     *uint32 `cbor:"5,keyasint,omitempty" msg:"5,omitempty"`
}

// KeyParams is the twin of codec.KeyParams.
type KeyParams struct {
	Keycode uint32  `cbor:"0,keyasint" msg:"0"`
	Meta    *uint32 `cbor:"1,keyasint,omitempty" msg:"1,omitempty"`
}

// TypeTextParams is the twin of codec.TypeTextParams.
type TypeTextParams struct {
	Text string `cbor:"0,keyasint" msg:"0"`
}

// SetTextParams is the twin of codec.SetTextParams.
type SetTextParams struct {
	Node uint32 `cbor:"0,keyasint" msg:"0"`
	Text string `cbor:"1,keyasint" msg:"1"`
}

// ScreenshotParams is the twin of codec.ScreenshotParams.
type ScreenshotParams struct {
	Format   *uint32 `cbor:"0,keyasint,omitempty" msg:"0,omitempty"`
	Quality  *uint32 `cbor:"1,keyasint,omitempty" msg:"1,omitempty"`
	ScalePct *uint32 `cbor:"2,keyasint,omitempty" msg:"2,omitempty"`
}

// FramesStartParams is the twin of codec.FramesStartParams.
type FramesStartParams struct {
	MaxFPS   *uint32 `cbor:"0,keyasint,omitempty" msg:"0,omitempty"`
	ScalePct *uint32 `cbor:"1,keyasint,omitempty" msg:"1,omitempty"`
	Quality  *uint32 `cbor:"2,keyasint,omitempty" msg:"2,omitempty"`
}

// FramesStopParams is the twin of codec.FramesStopParams: an empty map.
type FramesStopParams struct{}

// ResyncParams is the twin of codec.ResyncParams.
type ResyncParams struct {
	Stream uint32 `cbor:"0,keyasint" msg:"0"`
}

// DeviceInfoParams is the twin of codec.DeviceInfoParams: an empty map.
type DeviceInfoParams struct{}

// Snapshot is the twin of codec.Snapshot.
type Snapshot struct {
	Strings   []string `cbor:"0,keyasint" msg:"0"`
	Windows   []Window `cbor:"1,keyasint" msg:"1"`
	Truncated uint32   `cbor:"2,keyasint" msg:"2"`
	Seq       uint64   `cbor:"3,keyasint" msg:"3"`
	Display   *Display `cbor:"4,keyasint,omitempty" msg:"4,omitempty"`
}

// Window is the twin of codec.Window.
type Window struct {
	ID          uint32   `cbor:"0,keyasint" msg:"0"`
	Type        uint32   `cbor:"1,keyasint" msg:"1"`
	Layer       int32    `cbor:"2,keyasint" msg:"2"`
	Bounds      [4]int32 `cbor:"3,keyasint" msg:"3"`
	Flags       uint32   `cbor:"4,keyasint" msg:"4"`
	Title       *string  `cbor:"5,keyasint,omitempty" msg:"5,omitempty"`
	Package     *uint32  `cbor:"6,keyasint,omitempty" msg:"6,omitempty"`
	Root        *Node    `cbor:"7,keyasint,omitempty" msg:"7,omitempty"`
	EmitsEvents *bool    `cbor:"8,keyasint,omitempty" msg:"8,omitempty"`
	Owner       *uint32  `cbor:"9,keyasint,omitempty" msg:"9,omitempty"`
	Modal       bool     `cbor:"10,keyasint,omitempty" msg:"a,omitempty"`
}

// Node, the twin of codec.Node, is generated from it into node_gen.go.

// Scroll is the twin of codec.Scroll.
type Scroll struct {
	Axis     uint32          `cbor:"0,keyasint" msg:"0"`
	Flags    uint32          `cbor:"1,keyasint" msg:"1"`
	Range    *ScrollRange    `cbor:"2,keyasint,omitempty" msg:"2,omitempty"`
	Position *ScrollPosition `cbor:"3,keyasint,omitempty" msg:"3,omitempty"`
}

// ScrollRange is the twin of codec.ScrollRange (an array).
type ScrollRange struct {
	_    struct{} `cbor:",toarray" msg:"-"`
	Unit uint32
	Lo   int64
	Hi   int64
}

// ScrollPosition is the twin of codec.ScrollPosition (an array).
type ScrollPosition struct {
	_  struct{} `cbor:",toarray" msg:"-"`
	Lo int64
	Hi int64
}

// BoundsResult is the twin of codec.BoundsResult.
type BoundsResult struct {
	Nodes []NodeBounds `cbor:"0,keyasint" msg:"0"`
}

// NodeBounds is the twin of codec.NodeBounds (an array).
type NodeBounds struct {
	_      struct{} `cbor:",toarray" msg:"-"`
	Node   uint32
	Bounds [4]int32
}

// ScreenshotResult is the twin of codec.ScreenshotResult.
type ScreenshotResult struct {
	Width  uint32 `cbor:"0,keyasint" msg:"0"`
	Height uint32 `cbor:"1,keyasint" msg:"1"`
	Format uint32 `cbor:"2,keyasint" msg:"2"`
	Image  []byte `cbor:"3,keyasint" msg:"3"`
}

// FramesStartResult is the twin of codec.FramesStartResult.
type FramesStartResult struct {
	Stream uint32 `cbor:"0,keyasint" msg:"0"`
}

// ResyncResult is the twin of codec.ResyncResult.
type ResyncResult struct {
	Seq uint64 `cbor:"0,keyasint" msg:"0"`
}

// Empty is the twin of codec.Empty, the result {} of most methods.
type Empty struct{}

// Events are positional arrays: the head (kind, stream, seq, type), then
// the body's fields. Each twin is named after the codec.EventBody it
// carries; EventHead is an event whose type this version does not know.

// EventHead is the twin of a codec.Event without a body.
type EventHead struct {
	_      struct{} `cbor:",toarray" msg:"-"`
	Kind   uint64
	Stream uint32
	Seq    uint64
	Type   uint32
}

// WindowChanged is the twin of a codec.Event whose body is a
// codec.WindowChanged.
type WindowChanged struct {
	_      struct{} `cbor:",toarray" msg:"-"`
	Kind   uint64
	Stream uint32
	Seq    uint64
	Type   uint32
	Window uint32
	Change uint32
}

// ContentChanged is the twin of a codec.Event whose body is a
// codec.ContentChanged.
type ContentChanged struct {
	_      struct{} `cbor:",toarray" msg:"-"`
	Kind   uint64
	Stream uint32
	Seq    uint64
	Type   uint32
	Window uint32
	Node   uint32
	Change uint32
}

// ScreenFrame is the twin of a codec.Event whose body is a
// codec.ScreenFrame.
type ScreenFrame struct {
	_        struct{} `cbor:",toarray" msg:"-"`
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
