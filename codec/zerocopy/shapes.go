package zerocopy

import (
	"unsafe"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/internal/shape"
)

// The views read the shapes they share with the codec through package
// shape, into its layout twins of the codec's types (codec's
// TestShapeLayouts holds them equal).

func boundsTwin(b *codec.Bounds) *[4]int32     { return (*[4]int32)(unsafe.Pointer(b)) }
func scrollTwin(s *codec.Scroll) *shape.Scroll { return (*shape.Scroll)(unsafe.Pointer(s)) }
func displayTwin(v *codec.Display) *[4]uint32  { return (*[4]uint32)(unsafe.Pointer(v)) }
