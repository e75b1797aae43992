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
//
// Below the Decoder sit the pieces the protocol's decoders are built of, in
// this package so that the codec and the borrowed views share one reading
// of every rule: readers and writers at an offset of a byte slice (UintAt,
// ValidTextAt, PutUint and the like) for their straight-line fast paths;
// the schema's array shapes as Decoder methods (FixedArray, Int32Array,
// ArrayHeadOf); Errorf, WithField and WithIndex, which give their errors
// the same offsets and field paths as the Decoder's; and TrustedAt, a
// Decoder for a second pass over bytes already validated.
package cbor
