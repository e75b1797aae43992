// Package msgptwin holds the MessagePack twins of the protocol's messages,
// for the workbench's impl=msgp: the types a Go engineer who wants
// generated speed would write for github.com/tinylib/msgp, and the code
// msgp generates for them (twins_gen.go, `go generate`; committed).
//
// They are written as an msgp user writes them: msgp keys maps by string,
// so each field's key is its protocol key as a one-character string (the
// closest MessagePack has to CBOR's one-byte integer keys); optional
// fields are pointers with omitempty; events, bounds pairs and scroll
// ranges are tuples (arrays), as in the protocol. A request's params and a
// response's result are msgp.Raw in the envelope, decoded in a second step
// once the method is known, as with fxamacker's twins.
package msgptwin

//go:generate go tool msgp -file twins.go -o twins_gen.go -tests=false -io=false

import "github.com/tinylib/msgp/msgp"

//msgp:tuple ContentChanged WindowChanged NodeBounds ScrollRange ScrollPosition

// Hello is the twin of codec.Hello.
type Hello struct {
	Kind         uint64   `msg:"0"`
	Versions     []uint32 `msg:"1"`
	MaxFrame     uint32   `msg:"2"`
	Capabilities uint32   `msg:"3"`
	Token        *string  `msg:"4,omitempty"`
	Agent        string   `msg:"5"`
	Device       *Device  `msg:"6,omitempty"`
}

// Device is the twin of codec.Device.
type Device struct {
	Model   string  `msg:"0"`
	SDK     uint32  `msg:"1"`
	ABI     string  `msg:"2"`
	Display Display `msg:"3"`
}

// Display is the twin of codec.Display.
type Display struct {
	Width      uint32 `msg:"0"`
	Height     uint32 `msg:"1"`
	DensityDPI uint32 `msg:"2"`
	Rotation   uint32 `msg:"3"`
}

// Request is the twin of codec.Request; Params holds the encoded params.
type Request struct {
	Kind       uint64   `msg:"0"`
	ID         uint64   `msg:"1"`
	Method     uint32   `msg:"2"`
	Params     msgp.Raw `msg:"3"`
	DeadlineMS *uint32  `msg:"4,omitempty"`
}

// Response is the twin of codec.Response; Result holds the encoded result.
type Response struct {
	Kind   uint64   `msg:"0"`
	ID     uint64   `msg:"1"`
	Method uint32   `msg:"2"`
	Result msgp.Raw `msg:"3,omitempty"`
	Error  *Error   `msg:"4,omitempty"`
}

// Error is the twin of codec.Error.
type Error struct {
	Code      string `msg:"0"`
	Message   string `msg:"1"`
	Retryable bool   `msg:"2"`
}

// TapParams is the twin of codec.TapParams.
type TapParams struct {
	X int32 `msg:"0"`
	Y int32 `msg:"1"`
}

// SnapshotParams is the twin of codec.SnapshotParams.
type SnapshotParams struct {
	MaxDepth       *uint32  `msg:"0,omitempty"`
	MaxNodes       *uint32  `msg:"1,omitempty"`
	MaxWindows     *uint32  `msg:"2,omitempty"`
	EvictEventLess *bool    `msg:"3,omitempty"`
	Evict          []uint32 `msg:"4"`
}

// Snapshot is the twin of codec.Snapshot.
type Snapshot struct {
	Strings   []string `msg:"0"`
	Windows   []Window `msg:"1"`
	Truncated uint32   `msg:"2"`
	Seq       uint64   `msg:"3"`
	Display   *Display `msg:"4,omitempty"`
}

// Window is the twin of codec.Window.
type Window struct {
	ID          uint32   `msg:"0"`
	Type        uint32   `msg:"1"`
	Layer       int32    `msg:"2"`
	Bounds      [4]int32 `msg:"3"`
	Flags       uint32   `msg:"4"`
	Title       *string  `msg:"5,omitempty"`
	Package     *uint32  `msg:"6,omitempty"`
	Root        *Node    `msg:"7,omitempty"`
	EmitsEvents *bool    `msg:"8,omitempty"`
	Owner       *uint32  `msg:"9,omitempty"`
	Modal       bool     `msg:"a,omitempty"`
}

// Node is the twin of codec.Node.
type Node struct {
	ID       uint32   `msg:"0"`
	Class    uint32   `msg:"1"`
	Bounds   [4]int32 `msg:"2"`
	Flags    uint32   `msg:"3"`
	Text     *string  `msg:"4,omitempty"`
	Desc     *string  `msg:"5,omitempty"`
	ResPkg   *uint32  `msg:"6,omitempty"`
	ResName  *string  `msg:"7,omitempty"`
	Children []Node   `msg:"8,omitempty"`
	Scroll   *Scroll  `msg:"9,omitempty"`
	Hint     *string  `msg:"a,omitempty"`
	State    *string  `msg:"b,omitempty"`
}

// Scroll is the twin of codec.Scroll.
type Scroll struct {
	Axis     uint32          `msg:"0"`
	Flags    uint32          `msg:"1"`
	Range    *ScrollRange    `msg:"2,omitempty"`
	Position *ScrollPosition `msg:"3,omitempty"`
}

// ScrollPosition is the twin of codec.ScrollPosition (a tuple).
type ScrollPosition struct {
	Lo int64
	Hi int64
}

// ScrollRange is the twin of codec.ScrollRange (a tuple).
type ScrollRange struct {
	Unit uint32
	Lo   int64
	Hi   int64
}

// BoundsResult is the twin of codec.BoundsResult.
type BoundsResult struct {
	Nodes []NodeBounds `msg:"0"`
}

// NodeBounds is the twin of codec.NodeBounds (a tuple).
type NodeBounds struct {
	Node   uint32
	Bounds [4]int32
}

// ScreenshotResult is the twin of codec.ScreenshotResult.
type ScreenshotResult struct {
	Width  uint32 `msg:"0"`
	Height uint32 `msg:"1"`
	Format uint32 `msg:"2"`
	Image  []byte `msg:"3"`
}

// ContentChanged is the twin of a content-changed event (a tuple).
type ContentChanged struct {
	Kind   uint64
	Stream uint32
	Seq    uint64
	Type   uint32
	Window uint32
	Node   uint32
	Change uint32
}

// WindowChanged is the twin of a window-changed event (a tuple).
type WindowChanged struct {
	Kind   uint64
	Stream uint32
	Seq    uint64
	Type   uint32
	Window uint32
	Change uint32
}
