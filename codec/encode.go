package codec

import (
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
)

// EncodeError reports a message that cannot be encoded as the protocol
// requires, naming the field.
type EncodeError struct {
	Field  string // field path, such as "result.windows[0].root"
	Detail string
}

// Error reports the field and the problem.
func (e *EncodeError) Error() string { return "codec: cannot encode " + e.Field + ": " + e.Detail }

// Append appends the CBOR encoding of m to dst and returns the extended
// slice. It allocates only when dst lacks room. On error dst is returned
// unchanged in length.
func Append(dst []byte, m Message) ([]byte, error) {
	n := len(dst)
	out, err := m.appendCBOR(dst)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// Marshal returns the CBOR encoding of m in a new slice.
func Marshal(m Message) ([]byte, error) { return Append(nil, m) }

// Encoding helpers. Keys of every protocol map are below 24, so a key is
// one byte, its own head.

func appendUintField(dst []byte, key byte, v uint64) []byte {
	return cbor.AppendUint(append(dst, key), v)
}

func appendIntField(dst []byte, key byte, v int64) []byte {
	return cbor.AppendInt(append(dst, key), v)
}

func appendTextField(dst []byte, key byte, s string) []byte {
	return cbor.AppendText(append(dst, key), s)
}

func appendBoolField(dst []byte, key byte, v bool) []byte {
	return cbor.AppendBool(append(dst, key), v)
}

func appendU32Array(dst []byte, vs []uint32) []byte {
	dst = cbor.AppendArrayHead(dst, len(vs))
	for _, v := range vs {
		dst = cbor.AppendUint(dst, uint64(v))
	}
	return dst
}

// checkText returns an EncodeError naming the field unless s is valid
// UTF-8. The field name is built only on failure: prefix and suffix are
// joined then.
func checkText(s, prefix, suffix string) error {
	if !cbor.ValidUTF8(stringBytes(s)) {
		return &EncodeError{Field: prefix + suffix, Detail: "text is not valid UTF-8"}
	}
	return nil
}

// checkTextAt is checkText for element i of a list.
func checkTextAt(s, prefix string, i int, suffix string) error {
	if !cbor.ValidUTF8(stringBytes(s)) {
		return &EncodeError{Field: prefix + "[" + itoa(i) + "]" + suffix, Detail: "text is not valid UTF-8"}
	}
	return nil
}

// present counts the true values, for map heads.
func present(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// stringBytes views s as bytes without copying, for read-only checks.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
