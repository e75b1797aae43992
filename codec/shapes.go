package codec

import (
	"unsafe"

	"github.com/wirebench/wirebench/codec/internal/shape"
)

// The shapes the codec, its Tree and codec/zerocopy share are read by
// package shape (codec/internal/shape), once for all of them, into layout
// twins of the types here: these conversions hand it the codec's own
// values, and TestShapeLayouts holds every twin to its type, field by
// field.

func boundsTwin(b *Bounds) *[4]int32     { return (*[4]int32)(unsafe.Pointer(b)) }
func scrollTwin(s *Scroll) *shape.Scroll { return (*shape.Scroll)(unsafe.Pointer(s)) }
func displayTwin(v *Display) *[4]uint32  { return (*[4]uint32)(unsafe.Pointer(v)) }
