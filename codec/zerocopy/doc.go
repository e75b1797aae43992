// Package zerocopy reads wirebench frames in place: views that point into
// a frame's payload instead of copying it, and allocate nothing.
//
// # Which view
//
//   - [Header] reads the envelope (kind, id, method, stream, error code):
//     enough to route a frame.
//   - [RequestView] reads a request and its params by key (a [ParamsView]).
//   - [EventView] reads an event and its body.
//   - [Snapshot] validates a snapshot response once ([Snapshot.Parse]);
//     a [Walker] then visits its windows and nodes, depth first, without
//     building them.
//
// To keep a message, decode it with codec.Decode (a snapshot held long:
// codec.DecodeTree). For a read loop that wants whole messages,
// codec.Decoder is the better fit: codec's package doc says which to
// use when.
//
// # Lifetime
//
// Every string and byte slice a view returns borrows the frame's buffer:
// it is valid until the frame's Release (codec.Frame.Release) and must not
// be kept past it. Under the wirebench_poison build tag a released buffer
// is overwritten, and [Snapshot.Check] reports [ErrReleased].
//
// # Errors
//
// A view reads its payload as the codec does (keys in any order, null is
// absent, unknown keys skipped) and accepts what the codec accepts, except
// an indefinite-length string, which it cannot borrow ([cbor.ErrIndefinite]).
// A malformed payload fails with a *cbor.Error naming the byte offset and
// the field path; a snapshot view of another message fails with
// [ErrNotSnapshot] or [ErrErrorResponse].
//
// # Guarantees
//
// Parsing and walking allocate nothing, for a snapshot of any size
// (TestSnapshotAllocs, TestHeaderEventAllocs, TestRequestAllocs); a
// Snapshot reused frame after frame keeps one node table, grown at most
// once (TestSnapshotTableGrowth). No view reserves memory for what a head
// claims: a hostile frame costs a view only its error
// (TestHostileViewsAllocation). Parse checks all that a walk reads, without recursion, so a walk meets no malformed
// input; FuzzView checks the views against the codec.
//
// How the views are read, and the figures measured for them:
// docs/codec.md.
package zerocopy
