package zerocopy

import (
	"strconv"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
)

// str turns a subslice of the frame into a string without copying.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// text reads a definite-length text string as a borrowed string. An
// indefinite-length string would have to be joined into new memory, so a
// view refuses it with cbor.ErrIndefinite.
func text(d *dec) (string, error) {
	if b, ok := d.PeekByte(); ok && b == 0x7f {
		return "", cbor.Errorf(cbor.ErrIndefinite, d.Offset(), "an indefinite-length text string cannot be borrowed")
	}
	b, err := d.Text()
	return str(b), err
}

// byteString reads a definite-length byte string as a subslice of the
// frame, refusing an indefinite-length one like text.
func byteString(d *dec) ([]byte, error) {
	if b, ok := d.PeekByte(); ok && b == 0x5f {
		return nil, cbor.Errorf(cbor.ErrIndefinite, d.Offset(), "an indefinite-length byte string cannot be borrowed")
	}
	return d.Bytes()
}

func itoa(n int) string { return strconv.Itoa(n) }
