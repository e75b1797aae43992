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
func key(d *dec) (uint64, error) {
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

// missing reports the first required key absent from seen, as the codec
// words it.
func missing(need, seen uint32, names []string, start int) error {
	if need&^seen == 0 {
		return nil
	}
	return missingKey(need&^seen, names, start)
}

func missingKey(lack uint32, names []string, start int) error {
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
func arrayEnd(d *dec, n, i int) error {
	for ; d.More(n, i); i++ {
		if err := d.Skip(); err != nil {
			return err
		}
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
