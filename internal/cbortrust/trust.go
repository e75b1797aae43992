// Package cbortrust lets our own packages read with a cbor.Decoder that
// skips the UTF-8 checks of text, for a second pass over bytes a first pass
// has validated. It is not part of cbor's public surface: a user's decoder
// always checks.
package cbortrust

// At is a func(b []byte, off int) cbor.Decoder that returns a decoder over
// b positioned at off (clamped to b) which skips the UTF-8 checks of text;
// everything else is still checked. Package cbor installs it when it is
// initialised, so a package that imports cbor finds it set; such a package
// asserts its type once, at its own initialisation. It takes and returns
// values, not a pointer, so that a decoder it returns can stay on the
// caller's stack.
var At any
