package cbor

// Helpers for the shapes a schema of integer-keyed maps and fixed-layout
// arrays is made of, shared by the message codec and the borrowed views.

// UnknownKey is what Key reports for a map key that is not an unsigned
// integer; the caller skips its value like any unknown key's.
const UnknownKey = ^uint64(0)

// Key reads a map key. A key that is not an unsigned integer is skipped
// (it must still be well-formed) and reported as UnknownKey.
func (d *Decoder) Key() (uint64, error) {
	if d.off < len(d.buf) {
		b := d.buf[d.off]
		if b < 24 {
			d.off++
			return uint64(b), nil
		}
		if b>>5 == byte(MajorUint) {
			return d.Uint()
		}
	}
	if err := d.Skip(); err != nil {
		return 0, err
	}
	return UnknownKey, nil
}

// SkipElements skips what is left of an array of n elements (-1:
// indefinite) after the first i: the elements a receiver does not know.
func (d *Decoder) SkipElements(n, i int) error {
	for ; d.More(n, i); i++ {
		if err := d.Skip(); err != nil {
			return err
		}
	}
	return nil
}
