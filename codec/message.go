package codec

import "github.com/wirebench/wirebench/codec/schema"

// Message is one protocol message: *Hello, *Welcome, *Request, *Response,
// *Ping, *Pong, *Event, or *UnknownKind for a kind this version does not
// know. Append encodes any of them; Decode returns one.
type Message interface {
	// Kind is the message's envelope kind.
	Kind() Kind
	appendCBOR(dst []byte) ([]byte, error)
}

// UnknownKind is a message whose kind this version does not define. It
// decodes so that its kind can be reported, and a session skips it. It is
// never encoded.
type UnknownKind struct {
	Value uint64 // the kind as sent
}

// Kind returns the kind as sent.
func (u *UnknownKind) Kind() Kind { return Kind(u.Value) }

func (u *UnknownKind) appendCBOR(dst []byte) ([]byte, error) {
	return dst, &EncodeError{Field: "kind", Detail: "unknown kind " + Kind(u.Value).String() + " cannot be encoded"}
}

// Ping asks the peer for a Pong with the same nonce.
type Ping struct {
	Nonce uint64
}

// Pong answers a Ping.
type Pong struct {
	Nonce uint64
}

// Kind returns KindPing.
func (*Ping) Kind() Kind { return KindPing }

// Kind returns KindPong.
func (*Pong) Kind() Kind { return KindPong }

func (p *Ping) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa2, schema.KeyKind, byte(KindPing)), schema.KeyNonce, p.Nonce), nil
}

func (p *Pong) appendCBOR(dst []byte) ([]byte, error) {
	return appendUintField(append(dst, 0xa2, schema.KeyKind, byte(KindPong)), schema.KeyNonce, p.Nonce), nil
}
