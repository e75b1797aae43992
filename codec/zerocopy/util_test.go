package zerocopy

import (
	"reflect"
	"unsafe"

	"github.com/wirebench/wirebench/codec"
)

func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

func equalSnap(a, b *codec.Snapshot) bool { return reflect.DeepEqual(a, b) }
