// Package twins holds the twins of the protocol's messages that the
// workbench's peers encode and decode: one set of Go structs a user of
// github.com/fxamacker/cbor/v2 or github.com/tinylib/msgp would write as
// their data model, each field tagged for both (`cbor:"N,keyasint"` and
// `msg:"x"`), with the code msgp generates for them (twins_gen.go, `go
// generate`; committed). The twin Node is generated too, from codec.Node
// and its keys (node_gen.go, by codec/internal/fieldgen; its msgp code in
// node_msgp_gen.go), so a new node field needs no edit here.
//
// The twins mirror the schema of docs/protocol.md: maps keyed by the
// protocol's keys, optional fields as pointers with omitempty, events,
// bounds pairs and scroll ranges and positions as positional arrays, and
// a request's params or a response's result as raw bytes in the envelope,
// decoded in a second step once the method is known.
//
// Of and Message convert between a codec.Message and its twins, driven by
// codec's schema table: a field of ours is matched to the twin's field
// with its protocol key (its name in the table's Fields), so neither
// direction is typed out by hand, and neither goes through our codec's
// bytes. Marshal and Unmarshal encode and decode a message with fxamacker
// through the twins, set to check what our codec checks (the golden
// frames' independent check); Case holds one message's twins with the
// encode and decode paths a user of each library would write (the
// benchmarks' impl=fxamacker and impl=msgp).
package twins
