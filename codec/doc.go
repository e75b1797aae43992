// Package codec is the device protocol's codec (docs/protocol.md): Go
// types for every message, the encoder ([Append], [Marshal]), decoders,
// and framing ([AppendFrame], [Splitter], [Reader], [Writer]).
//
// # Three ways to decode
//
//   - [Decode] returns a message that owns its memory: the simplest, for a
//     message that is kept or handed on. A snapshot that is kept or queued
//     can come as a [Tree] ([DecodeTree], [DecodeTrees]): one copy of the
//     payload and pointer-free tables, which the collector never scans.
//   - A [Decoder] reuses its memory from call to call: for a read loop that
//     handles each message before it reads the next.
//   - Package zerocopy reads borrowed views of the frame's bytes: to read a
//     few fields, or walk a snapshot without building it.
//
// # Lifetime
//
// A [Frame]'s Payload, and every zerocopy view of it, is valid until the
// frame's Release. A message from Decode never points into its input, so
// it outlives the frame; one from a Decoder is valid until that Decoder's
// next call.
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
// recursion, at most [MaxNodeDepth] deep. Every decoder is fuzzed
// (FuzzDecode, FuzzDecoder, FuzzTree, FuzzFrameReader).
//
// How, and the figures measured: docs/codec.md.
package codec
