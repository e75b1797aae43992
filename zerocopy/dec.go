package zerocopy

import (
	"encoding/binary"

	"github.com/wirebench/wirebench/codec/cbor"
)

// dec is the primitive decoder the views read with: cbor.Decoder, whose
// offsets are absolute in the payload. A trusted one (at) reads bytes the
// validation pass has checked and does not check the UTF-8 of text again.
type dec = cbor.Decoder

func newDec(b []byte) dec { return cbor.NewDecoder(b) }

// at returns a trusted dec over b positioned at off, for the walks.
func at(b []byte, off int) dec {
	d := cbor.NewDecoder(b)
	d.Seek(off)
	d.Trust()
	return d
}

// argAt reads an n-byte big-endian argument (n is 1, 2, 4 or 8).
func argAt(b []byte, n int) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
