// Package zerocopy reads wirebench frames in place: views of a payload's
// envelope (Header), of events (EventView) and of snapshots (Snapshot)
// that allocate nothing and point into the frame's bytes instead of
// copying them.
//
// Lifetime rule: every string and byte slice a view returns borrows the
// frame's buffer, so it is valid until Release (codec.Frame.Release) and
// must not be kept past it; call ToOwned (or the codec's Decode) for
// anything that has to outlive the frame. Tests build with the
// wirebench_poison tag, under which a released buffer is overwritten with
// 0xDB, and Snapshot.Check then reports a view used after release.
//
// Views validate what they expose: Header reads only the envelope up to
// the result or params, EventView the whole event, and Snapshot.Parse the
// whole payload (UTF-8 of every text, types, lengths, required keys and
// a node depth of at most codec.MaxNodeDepth, with an explicit stack), so
// a walk never meets malformed input. Errors are *cbor.Error values with
// the byte offset and field path, like the codec's. Where the codec joins
// an indefinite-length string into new memory, a view fails with
// cbor.ErrIndefinite instead, since it cannot borrow one; the canonical
// encoding never writes them.
package zerocopy
