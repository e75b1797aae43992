package cbor

// FieldIter reads a map of unsigned integer keys the way the protocol's
// maps are read: a null value counts as absent, the last of a repeated
// key wins, keys from known on (and keys that are not unsigned integers)
// are skipped, and the keys present are collected, for the caller to
// check the required ones. It allocates nothing.
//
//	it, err := d.Fields(len(names))
//	for it.Next(d) {
//		if it.Null() {
//			// clear the field of it.Key()
//			continue
//		}
//		switch it.Key() {
//		case 0:
//			v, err = d.Uint()
//		}
//		// on an error, return it, naming the field
//	}
//	if it.Err() != nil { ... }
//	// it.Seen() has bit k set for each key k present
//
// The iterator holds no pointer to the decoder, which Next takes, so that
// an error it returns never makes the decoder escape.
type FieldIter struct {
	start int    // offset of the map's head
	n, i  int    // pairs in the map (-1: indefinite), pairs read
	known uint64 // keys below it are reported
	seen  uint32 // bit k: key k has a non-null value
	key   uint64
	null  bool
	err   error
}

// Fields opens the map at the decoder's position for a FieldIter that
// reports the keys below known (at most 24: a key is one byte).
func (d *Decoder) Fields(known int) (FieldIter, error) {
	start := d.off
	n, err := d.MapHead()
	return FieldIter{start: start, n: n, known: uint64(min(known, 24))}, err
}

// FieldsFrom is Fields for a map opened already, whose head is at start,
// with n pairs (-1: indefinite) of which i are read, the keys seen among
// them in seen.
func FieldsFrom(start, n, i int, seen uint32, known int) FieldIter {
	return FieldIter{start: start, n: n, i: i, seen: seen, known: uint64(min(known, 24))}
}

// Next moves d, the decoder that opened the map, to the next pair of a
// key below known, skipping the others, and reports whether there is one. Its key is Key. A null value is
// consumed, and Null reports it; otherwise the decoder is at the value,
// for the caller to read. Next reports false at the end of the map, and
// on a malformed key or skipped value (Err).
func (it *FieldIter) Next(d *Decoder) bool {
	// In line: a pair of a definite map with a one-byte key below known
	// (which is at most 24) and a value that is not null, the layout
	// every encoder writes.
	if b, j := d.buf, d.off; it.i < it.n && j+1 < len(b) && uint64(b[j]) < it.known && b[j+1] != Null {
		it.i++
		it.key, it.null = uint64(b[j]), false
		it.seen |= 1 << b[j]
		d.off = j + 1
		return true
	}
	return it.next(d)
}

// next is Next for every other pair.
func (it *FieldIter) next(d *Decoder) bool {
	for d.More(it.n, it.i) {
		it.i++
		k, err := d.Key()
		if err != nil {
			it.err = err
			return false
		}
		if k >= it.known {
			if err := d.Skip(); err != nil {
				it.err = err
				return false
			}
			continue
		}
		it.key, it.null = k, d.Null()
		if it.null {
			it.seen &^= 1 << k
		} else {
			it.seen |= 1 << k
		}
		return true
	}
	return false
}

// Key is the key of the current pair.
func (it *FieldIter) Key() uint64 { return it.key }

// Null reports whether the current pair's value is null (consumed).
func (it *FieldIter) Null() bool { return it.null }

// Last reports whether the current pair is the last of a definite map.
func (it *FieldIter) Last() bool { return it.n >= 0 && it.i == it.n }

// Seen has bit k set for each key k with a non-null value so far.
func (it *FieldIter) Seen() uint32 { return it.seen }

// Start is the offset of the map's head, where a missing key is reported.
func (it *FieldIter) Start() int { return it.start }

// Err is the error that ended the iteration early, if any.
func (it *FieldIter) Err() error { return it.err }
