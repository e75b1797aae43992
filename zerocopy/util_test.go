package zerocopy

import "unsafe"

func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }
