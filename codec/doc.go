// Package codec is the device protocol's codec (docs/protocol.md): Go
// types for every message, the encoder ([Append], [Marshal]), the
// decoders, and framing ([AppendFrame], [Splitter], [Reader], [Writer]).
// The wire's numbers (keys, flag bits, limits) are package
// codec/schema's.
//
// # Which one do I use
//
// One way to decode for each question, each with its Example:
//
//	to                                 use                       you get
//	read messages in a daemon's loop   Decoder.Decode            a message in reused memory, valid until the next call
//	keep a message for later           Decode                    a message that owns its memory
//	hold snapshots long or in bulk     DecodeTree                a Tree: pointer-free tables the collector never scans
//	look without copying               zerocopy.Snapshot.Parse   views of the frame, valid until its Release
//
// A [Decoder] allocates nothing in steady state for responses, tree
// events and requests; [Decode]'s message may be kept, queued or handed
// on; a [Tree] from [DecodeTree] costs two allocations and about 60 % of
// Decode's memory for a snapshot, and is read through its accessors;
// package codec/zerocopy reads fields and walks snapshots in place,
// without building them.
//
// # Lifetime
//
// A [Frame]'s Payload, and every zerocopy view of it, is valid until the
// frame's Release. A message from Decode and a Tree from DecodeTree never
// point into their input, so they outlive the frame; a message from a
// Decoder is valid until that Decoder's next call.
//
// # Errors
//
// A decoding error is a *[DecodeError] carrying the byte offset and the
// field path ("response.result.windows[2].root.bounds"); [errors.Is]
// matches its kind (cbor.ErrTruncated, cbor.ErrType, cbor.ErrMissing,
// cbor.ErrDepth, ...). An encoding error is an *[EncodeError] naming the
// field. A frame over the limit is a *[FrameTooLargeError] with what its
// first bytes tell (kind, id, method); a Reader discards its payload and
// reads on.
//
// # Guarantees
//
// Memory follows the bytes present, never what a length claims. Decode of
// n bytes allocates at most k·n + C (k = 24, C = 64 KiB) for valid input
// (TestHonestFramesAllocation), and at most 16·n + 1 MiB for a frame whose
// heads claim more than it holds (TestHostileFramesAllocation,
// TestFrameHeaderClaimAllocation). A Decoder allocates nothing in steady
// state (TestDecoderAllocatesNothing). Node trees are read without
// recursion, at most schema.MaxNodeDepth deep. Every decoder is fuzzed
// (FuzzDecode, FuzzDecoder, FuzzTree, FuzzFrameReader).
//
// How, and the figures measured: docs/codec.md.
package codec
