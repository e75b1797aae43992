package cbor

import (
	"strconv"

	"github.com/wirebench/wirebench/internal/cborerr"
)

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

// Fixed reads a fixed-layout array whose leading elements are named by
// names: read decodes element i. Elements past the named ones are skipped
// (a later version may append some); fewer is an ErrMissing.
func (d *Decoder) Fixed(what string, names []string, read func(i int) error) error {
	start := d.off
	n, err := d.ArrayHead()
	if err != nil {
		return err
	}
	for i, name := range names {
		if !d.More(n, i) {
			return Errorf(ErrMissing, start, what+" has "+strconv.Itoa(len(names))+" elements, not "+strconv.Itoa(i))
		}
		if err := read(i); err != nil {
			return cborerr.In(err, name)
		}
	}
	return d.SkipElements(n, len(names))
}

// Int32s reads an array whose first len(dst) elements are i32 values into
// dst, skipping elements past those; what names the array in errors.
func (d *Decoder) Int32s(dst []int32, what string) error {
	start := d.off
	n, err := d.ArrayHead()
	if err != nil {
		return err
	}
	for i := range dst {
		if !d.More(n, i) {
			return Errorf(ErrMissing, start, what+" has "+strconv.Itoa(i)+" elements, want "+strconv.Itoa(len(dst)))
		}
		if dst[i], err = d.Int32(); err != nil {
			return cborerr.At(err, i)
		}
	}
	return d.SkipElements(n, len(dst))
}
