package cbor

import "strconv"

// The array shapes the protocol's schema is made of: fixed-layout arrays
// whose leading elements are named, arrays of i32 values of a known length,
// and array heads whose count is checked against the bytes left. The message
// codec and the borrowed views read with them, so both report the same
// errors, with the same paths, for the same bytes.

// FixedArray reads a fixed-layout array whose leading elements are named by
// names: read decodes element i. Elements past the named ones are skipped
// (a later version may append some); fewer is an ErrMissing error at the
// array's head, naming the array as what. An error from read gets the
// element's name added to its path.
func (d *Decoder) FixedArray(what string, names []string, read func(i int) error) error {
	start := d.Offset()
	n, err := d.ArrayHead()
	if err != nil {
		return err
	}
	for i, name := range names {
		if !d.More(n, i) {
			return Errorf(ErrMissing, start, what+" has "+strconv.Itoa(len(names))+" elements, not "+strconv.Itoa(i))
		}
		if err := read(i); err != nil {
			return WithField(err, name)
		}
	}
	return d.SkipElements(n, len(names))
}

// Int32Array reads an array whose first len(dst) elements are i32 values
// into dst, skipping elements past those; fewer is an ErrMissing error
// naming the array as what, and a bad element's index is added to its path.
func (d *Decoder) Int32Array(dst []int32, what string) error {
	start := d.Offset()
	n, err := d.ArrayHead()
	if err != nil {
		return err
	}
	for i := range dst {
		if !d.More(n, i) {
			return Errorf(ErrMissing, start, what+" has "+strconv.Itoa(i)+" elements, want "+strconv.Itoa(len(dst)))
		}
		if dst[i], err = d.Int32(); err != nil {
			return WithIndex(err, i)
		}
	}
	return d.SkipElements(n, len(dst))
}

// ArrayHeadOf reads the head of an array of items that each take at least
// least bytes, and refuses one of more items than the bytes left can hold
// (ErrTruncated, naming them as what): a caller may then reserve n items
// of its own, larger type, and memory stays bounded by the input whatever
// the count claims. n is -1 for an indefinite array.
func (d *Decoder) ArrayHeadOf(least int, what string) (n int, err error) {
	start := d.Offset()
	if n, err = d.ArrayHead(); err != nil {
		return 0, err
	}
	if n > d.Len()/least {
		return 0, Errorf(ErrTruncated, start, strconv.Itoa(n)+" "+what+" cannot fit in the "+strconv.Itoa(d.Len())+" bytes left")
	}
	return n, nil
}
