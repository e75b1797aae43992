// Package codec is the device protocol's codec: Go types for every message
// of protocol version 1, an append-style encoder that writes exactly the
// bytes the protocol fixes, a decoder that accepts what receivers must
// accept and rejects the rest with the byte offset and field path of the
// problem, and length-prefixed framing with the oversized-frame rules.
//
// # Layout rules
//
// The encoder writes preferred serialization (shortest heads), definite
// lengths only, integer-keyed maps in ascending key order, and omits absent
// optional fields (a node's empty children and a window's false modal flag
// included). Parameters and results are always maps, {} when empty.
//
// The decoder reads a null as absent, skips unknown keys and array elements
// past the known ones, lets a repeated key's last value win and accepts
// indefinite-length items. It rejects invalid UTF-8, wrong major types,
// floats and tags in typed fields, missing required keys, trailing and
// truncated input and node trees deeper than MaxNodeDepth. Node trees are
// decoded with an explicit stack, never by recursion, and no slice is
// reserved for more elements than the bytes left could hold.
//
// # Fast paths
//
// What the encoder writes, every conforming encoder writes: the decoder
// reads requests with integer params (and snapshot's) and node trees in
// that canonical layout straight from the bytes (fastrequest.go,
// fasttree.go), and hands anything else (another key order, a null, an
// unknown key, an indefinite length, a value out of range) to the general
// decoder, which reads the item again from its start. The fast paths
// accept only what the general decoder accepts and read it alike;
// FuzzFastPaths checks the two against each other.
//
// # Memory
//
// Decode copies its input once and the decoded message owns that copy:
// strings and byte slices of the message point into it, never into the
// caller's buffer. A snapshot's nodes come from one slab sized from the
// bytes left (and from the snapshots the pooled decoder read before),
// its scroll semantics live in the room after the input's copy and its
// windows in the response's own allocation, so a 500-node snapshot costs
// four allocations (slab.go). A Frame's payload comes from a pool and is
// valid until the frame is released; a message decoded from it stays
// valid after Release. Borrowed, allocation-free views live in package
// zerocopy.
package codec
