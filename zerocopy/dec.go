package zerocopy

import (
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/internal/cbortrust"
)

// dec is the primitive decoder the views read with: cbor.Decoder, whose
// offsets are absolute in the payload. A trusted one (at) reads bytes the
// validation pass has checked and does not check the UTF-8 of text again.
type dec = cbor.Decoder

func newDec(b []byte) dec { return cbor.NewDecoder(b) }

// trustedAt is cbor's constructor of trusted decoders (see cbortrust).
var trustedAt = cbortrust.At.(func([]byte, int) cbor.Decoder)

// at returns a trusted dec over b positioned at off, for the walks.
func at(b []byte, off int) dec { return trustedAt(b, off) }
