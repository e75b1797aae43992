// Package zerocopy reads wirebench frames in place: views of a payload's
// envelope (Header), of requests (RequestView), of events (EventView) and
// of snapshots (Snapshot, walked by a Walker) that allocate nothing and
// point into the frame's bytes instead of copying them.
//
// Lifetime rule: every string and byte slice a view returns borrows the
// frame's buffer, so it is valid until Release (codec.Frame.Release) and
// must not be kept past it; call ToOwned (or the codec's Decode) for
// anything that has to outlive the frame. Under the wirebench_poison
// build tag (make test-poison) the codec overwrites a released buffer
// with 0xDB, so that a borrowed string read after Release shows as 0xDB
// bytes and Snapshot.Check reports ErrReleased.
//
// Views validate what they expose, and read it as the codec does (keys in
// any order, the last of a repeated key wins, null is absent, unknown keys
// are skipped): Header reads the envelope only, up to the result or
// params; RequestView the envelope, and the params as well-formed CBOR;
// EventView the whole event; Snapshot.Parse the whole payload, once, up
// front (UTF-8 of every text, types, lengths, required keys, and a node
// depth of at most codec.MaxNodeDepth, with an explicit stack, never
// recursion), so a walk meets no malformed input. Errors are *cbor.Error
// values naming the byte offset and the field path, like the codec's.
// The canonical layouts are read by straight-line fast paths, anything
// else by general ones that decide exactly as cbor.Decoder does; both
// accept the same payloads and read them alike.
// Where the codec joins an indefinite-length string into new memory, a
// view fails with cbor.ErrIndefinite instead, since it cannot borrow it;
// the canonical encoding never writes one.
//
// A Snapshot and a Walker hold their stacks and tables inside them, so
// they may live on the stack or be reused frame after frame: parsing and
// walking a snapshot of any size allocates nothing. The one exception is
// the node table of a Snapshot reused frame after frame: Parse records
// there the NodeView of every node it validates, so that a walk reads
// the nodes instead of decoding them again. The table is allocated on a
// Snapshot's second Parse, sized from the frames before, and grown (once)
// when a frame has more nodes than any before; from then on, parsing and
// walking allocate nothing. A Snapshot used for a single frame has no
// table, and its walks decode the nodes from the bytes.
//
// No view reserves anything for what a head claims: a frame whose heads
// claim more than it holds costs a view only its error (the message and
// field path, at most about 20 KB for the deepest tree). ToOwned, after
// a Parse that validated every item, allocates for the items present,
// at most k·n + C in total for a payload of n bytes with k = 16 and
// C = 64 KiB: a node (152 bytes) for each 13 bytes, and the text copied
// (a snapshot of nodes of the least bytes reaches 11.7 bytes a byte).
package zerocopy
