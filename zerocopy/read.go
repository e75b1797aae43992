package zerocopy

import (
	"strconv"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
)

// unknownKey stands for a map key that is not an unsigned integer; its
// value is skipped, as the codec does.
const unknownKey = ^uint64(0)

// str turns a subslice of the frame into a string without copying.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// key reads a map key as the codec does: a key that is not an unsigned
// integer is skipped and reported as unknownKey.
func key(d *cbor.Decoder) (uint64, error) {
	if b, ok := d.PeekByte(); ok && b < 24 {
		d.Uint()
		return uint64(b), nil
	} else if ok && b>>5 == byte(cbor.MajorUint) {
		return d.Uint()
	}
	if err := d.Skip(); err != nil {
		return 0, err
	}
	return unknownKey, nil
}

// text reads a definite-length text string as a borrowed string. An
// indefinite-length string would have to be joined into new memory, so a
// view refuses it with cbor.ErrIndefinite.
func text(d *cbor.Decoder) (string, error) {
	if b, ok := d.PeekByte(); ok && b == 0x7f {
		return "", cbor.Errorf(cbor.ErrIndefinite, d.Offset(), "an indefinite-length text string cannot be borrowed")
	}
	b, err := d.Text()
	return str(b), err
}

// byteString reads a definite-length byte string as a subslice of the
// frame, refusing an indefinite-length one like text.
func byteString(d *cbor.Decoder) ([]byte, error) {
	if b, ok := d.PeekByte(); ok && b == 0x5f {
		return nil, cbor.Errorf(cbor.ErrIndefinite, d.Offset(), "an indefinite-length byte string cannot be borrowed")
	}
	return d.Bytes()
}

// missing reports the first required key absent from seen, as the codec
// words it.
func missing(need, seen uint32, names []string, start int) error {
	lack := need &^ seen
	for k := 0; k < 32; k++ {
		if lack&(1<<k) != 0 {
			name := strconv.Itoa(k)
			if k < len(names) && names[k] != "" {
				name = names[k]
			}
			return cbor.In(cbor.Errorf(cbor.ErrMissing, start, "key "+strconv.Itoa(k)+" ("+name+") is required"), name)
		}
	}
	return nil
}

// arrayEnd skips the elements of an array of count n (-1: indefinite)
// after the first i.
func arrayEnd(d *cbor.Decoder, n, i int) error {
	for ; d.More(n, i); i++ {
		if err := d.Skip(); err != nil {
			return err
		}
	}
	return nil
}

// at returns a decoder over b positioned at off. Offsets it reports are
// relative to off; the walkers only read bytes that were validated.
func at(b []byte, off int) cbor.Decoder {
	if off < 0 || off > len(b) {
		off = len(b)
	}
	return cbor.NewDecoder(b[off:])
}

func itoa(n int) string { return strconv.Itoa(n) }
