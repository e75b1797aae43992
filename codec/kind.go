package codec

import "strconv"

// Kind is a message's envelope kind: key 0 of a message map, element 0 of
// an event array.
type Kind uint64

// The envelope kinds of docs/protocol.md section 2.
const (
	KindHello    Kind = 0
	KindWelcome  Kind = 1
	KindRequest  Kind = 2
	KindResponse Kind = 3
	KindPing     Kind = 4
	KindPong     Kind = 5
	KindEvent    Kind = 6
)

var kindNames = [...]string{"hello", "welcome", "request", "response", "ping", "pong", "event"}

// String is the kind's protocol name, or its number for an unknown kind.
func (k Kind) String() string {
	if k < Kind(len(kindNames)) {
		return kindNames[k]
	}
	return strconv.FormatUint(uint64(k), 10)
}

// Known reports whether k is one of the kinds of this protocol version.
func (k Kind) Known() bool { return k < Kind(len(kindNames)) }

// ParseKind returns the kind named s (a protocol name or a number).
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return Kind(v), err == nil
}
