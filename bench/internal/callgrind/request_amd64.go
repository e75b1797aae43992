package callgrind

import "unsafe"

// request issues the client request args[0] with the arguments args[1:]
// and returns valgrind's answer, or def outside valgrind.
//
//go:noescape
func request(args *[6]uintptr, def uintptr) uintptr

func pointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
