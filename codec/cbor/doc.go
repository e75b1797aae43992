// Package cbor is the primitive layer of the wirebench codec: CBOR (RFC 8949)
// heads, integers, text and byte strings, well-formedness and skipping.
//
// It knows nothing of the device protocol. The message codec in the parent
// package and the borrowed views in package zerocopy are written on top of it.
//
// Encoding functions append to a caller's slice in preferred serialization
// (every head in its shortest form) and never write indefinite lengths.
// The Decoder reads one item at a time from a byte slice, checks what it
// reads, and reports problems as *Error values that carry the byte offset.
// It accepts indefinite-length items, as the protocol's receivers must.
// A FieldIter reads a map of integer keys as the protocol's maps are read:
// null as absent, unknown keys skipped, the keys present collected.
package cbor
