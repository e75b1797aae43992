#include "textflag.h"

// func request(args *[6]uintptr, def uintptr) uintptr
//
// valgrind.h's VALGRIND_DO_CLIENT_REQUEST for amd64: RAX points at the
// request and its five arguments, RDX holds the default answer. The four
// rotations of RDI add up to 128 bits (RDI is left as it was) and
// xchg %rbx,%rbx is a no-op: natively the sequence does nothing, and
// valgrind recognises it and answers in RDX.
TEXT ·request(SB), NOSPLIT, $0-24
	MOVQ args+0(FP), AX
	MOVQ def+8(FP), DX
	ROLQ $3, DI
	ROLQ $13, DI
	ROLQ $61, DI
	ROLQ $51, DI
	XCHGQ BX, BX
	MOVQ DX, ret+16(FP)
	RET
