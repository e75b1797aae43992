package zerocopy

import "github.com/wirebench/wirebench/codec/cbor"

// dec is the primitive decoder the views read with: cbor.Decoder, whose
// offsets are absolute in the payload. A trusted one (at) reads bytes the
// validation pass has checked and does not check the UTF-8 of text again.
type dec = cbor.Decoder

func newDec(b []byte) dec { return cbor.NewDecoder(b) }

// at returns a trusted dec over b positioned at off (cbor.TrustedAt), for
// the walks over a payload the validation pass has read whole.
func at(b []byte, off int) dec { return cbor.TrustedAt(b, off) }
