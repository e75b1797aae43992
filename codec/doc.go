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
// decoded with an explicit stack, never by recursion. A definite head
// that claims more items than the bytes left can hold at their least
// encoded size, beside the items the open arrays still promise (nodes
// of MinNodeLen, windows of MinWindowLen), is refused at once, with the
// field and offset.
//
// # Schema
//
// Every key of every protocol map has a named constant (KeyNodeText,
// KeyRequestMethod, ...), every map a Fields value with its keys' names
// and required keys, and the method table gives each method's parameter
// and result maps and types (ParamsFor, ResultFor). The encoder, the
// decoder, package zerocopy's views and cmd/wire's JSON form all read
// them.
//
// # Fast paths
//
// What the encoder writes, every conforming encoder writes: the decoder
// reads requests with integer params (and snapshot's) and node trees in
// that canonical layout straight from the bytes, and hands anything else
// (another key order, a null, an unknown key, an indefinite length, a
// value out of range) to the general decoder, which reads the item again
// from its start. The fast paths accept only what the general decoder
// accepts and read it alike; FuzzFastPaths checks the two against each
// other.
//
// # Framing
//
// A frame is a big-endian u32 payload length and the payload. Splitter
// cuts frames from bytes as they arrive, without I/O; Reader is a loop
// over a Splitter that reads from an io.Reader; AppendFrame and Writer
// write them. A frame over the limit is never buffered: its first
// PeekLen bytes are read for its Envelope (kind, id, method), which
// comes with the *FrameTooLargeError, and the rest is discarded.
// PeekEnvelope reads the same from a frame that does not decode.
//
// # Memory
//
// The lifetime rule: a Frame's payload, and every view of it, is valid
// until the frame's Release. A message from Decode owns its memory and is
// valid for as long as it is kept: Decode copies its input once, and
// strings and byte slices of the message point into that copy, never into
// the caller's buffer. A snapshot's nodes come from one slab sized from
// the bytes left (and from the snapshots the pooled decoder read before),
// its scroll semantics live in the room after the input's copy and its
// windows in the response's own allocation, so a 500-node snapshot costs
// four allocations. Borrowed, allocation-free views live in package
// zerocopy.
//
// A Decoder is the third form, for a read loop that handles each message
// before it reads the next: it decodes into memory it keeps from call
// to call (the input's copy, the slabs, the string table, the u32
// arrays, the message itself: one request of each method with its
// params), and what it returns is valid until its next call. A stream
// of responses, tree events and requests costs it no allocation in
// steady state. It keeps at most the bound given to NewDecoder
// (DefaultMaxRetained, 4 MiB) between calls and lets go of everything
// after a message that took more; under the wirebench_poison tag it
// poisons the last message at each call.
//
// Memory follows the items present, never the counts heads claim. What
// is reserved on a guess (the first node chunk, the scroll room) is
// capped by the bytes left: at most a node per 28 bytes and a scroll per
// 128. A claim that fits in room already reserved takes it; one that
// does not, and a string table over 256 or a windows array over five,
// is reserved only after a walk over its items shows they are there, and
// a later chunk holds, beside that claim, at most as many nodes as came
// before it. So Decode of n bytes allocates at most k·n + C in total
// (runtime TotalAlloc) for any input, with k = 24 and C = 64 KiB: a node
// (152 bytes) for each 13 bytes, a first chunk lost to a claim it could
// not hold, the input's copy and the scroll room. A valid snapshot of
// nodes of the least bytes in one children array, read by a decoder that
// learned such a snapshot, comes closest (18.7 bytes a byte,
// TestHonestFramesAllocation); snapshots of apps, about 48 bytes a node,
// take about 4.5 (response_snapshot_500: 110 275 bytes for 24 355, less
// than msgp's 113 256 for the same message). The node's size is the
// floor of both: 152 bytes, its five optional texts plain strings with
// their presence in one 16-bit set (Node.Empty), and the input's copy
// exactly the input's size.
//
// A frame whose heads claim more than it holds costs at most 16·n + 1 MiB
// however it lies and however much its honest part before the lie
// would cost: each reservation is charged to the message, and the first
// one that would take it past 16·n + 768 KiB walks the whole frame once
// (a well-formedness walk, cbor Skip) before it is made. A frame that
// fails the walk is refused there, with the walk's error (its kind and
// the offset of the lie); a well-formed one goes on, at its honest cost
// (k·n + C above). Only a frame whose reservations pass the mark is
// walked, and once. The hostile frames of testdata/hostile (nested at every
// depth, siblings, a claim at the last byte, inside skipped unknown
// fields, arrays and maps, and 40 000 honest nodes of the least bytes
// before one lying head, honest_then_late_lie) cost Decode at most 8.5
// bytes a byte, and a Decoder at most 17 (it may keep slabs learned
// from the densest snapshot, and is charged, as Decode is, for what it
// reserves anew). The 256 KiB between the walk's mark and the bound is
// for what the decoder allocates without charging it: the message and
// response structs, the windows held in line, errors.
//
// A Reader or Splitter holds what came of a frame, not what its header
// claims: its buffer starts at 64 KiB (or a pooled one) and doubles as
// bytes arrive, so a frame costs at most 2·n + 96 KiB with the
// read-ahead.
package codec
