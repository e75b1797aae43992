package zerocopy

import (
	"errors"
	"slices"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// ErrErrorResponse is returned by Snapshot.Parse for a well-formed
// response that carries an error instead of a result; Header reads its
// code.
var ErrErrorResponse = errors.New("zerocopy: the response carries an error, not a result")

// ErrNotSnapshot is returned by Snapshot.Parse for a payload that is not
// a response of method snapshot.
var ErrNotSnapshot = errors.New("zerocopy: not a response of method snapshot")

// ErrReleased is returned by Snapshot.Check when the bytes under a view no
// longer hold the snapshot it was parsed from: the frame was released.
var ErrReleased = errors.New("zerocopy: the frame under the view was released or changed")

// stringCache is how many string-table entries a Snapshot locates up
// front; past them it keeps the offset of every stringStride-th entry, for
// stringMarks of them, so that String(i) scans at most stringStride-1
// entries for a table of up to stringCache+stringMarks*stringStride
// (131 584) entries, and from the last mark beyond.
const (
	stringCache  = 512
	stringStride = 256
	stringMarks  = 512
	stringNear   = stringCache + stringMarks*stringStride
)

type span struct{ off, end uint32 }

// strTable locates the entries of a string table in a payload.
type strTable struct {
	nStrings int
	spans    [stringCache]span
	marks    [stringMarks]uint32 // offset of entry stringCache+k*stringStride
}

// note records entry i, read from start to end.
func (t *strTable) note(i, start, end, textLen int) {
	if i < stringCache {
		t.spans[i] = span{uint32(end - textLen), uint32(end)}
	} else if j := i - stringCache; j%stringStride == 0 && j/stringStride < stringMarks {
		t.marks[j/stringStride] = uint32(start)
	}
}

// copyFrom makes t a copy of u, copying only the entries in use.
func (t *strTable) copyFrom(u *strTable) {
	t.nStrings = u.nStrings
	copy(t.spans[:], u.spans[:min(max(u.nStrings, 0), stringCache)])
	if u.nStrings > stringCache {
		t.marks = u.marks
	}
}

// same reports whether t and u locate the same entries (what is left of
// an earlier, longer table past the entries in use does not count).
func (t *strTable) same(u *strTable) bool {
	if t.nStrings != u.nStrings {
		return false
	}
	n := min(max(t.nStrings, 0), stringCache)
	if !slices.Equal(t.spans[:n], u.spans[:n]) {
		return false
	}
	if t.nStrings <= stringCache {
		return true
	}
	m := min((t.nStrings-stringCache-1)/stringStride+1, stringMarks)
	return slices.Equal(t.marks[:m], u.marks[:m])
}

// lookup returns entry i of the table in buf.
func (t *strTable) lookup(buf []byte, i uint32) (string, bool) {
	if i < stringCache && int(i) < t.nStrings {
		s := t.spans[i]
		if s.off > s.end || int(s.end) > len(buf) {
			return "", false
		}
		return str(buf[s.off:s.end:s.end]), true
	}
	return t.lookupFar(buf, i)
}

// lookupFar is lookup past the located entries: a scan from the last mark.
func (t *strTable) lookupFar(buf []byte, i uint32) (string, bool) {
	if uint64(i) >= uint64(t.nStrings) || i < stringCache {
		return "", false
	}
	m := min((i-stringCache)/stringStride, stringMarks-1)
	d := at(buf, int(t.marks[m]))
	for j := stringCache + m*stringStride; ; j++ {
		s, err := text(&d)
		if err != nil {
			return "", false
		}
		if j == i {
			return s, true
		}
	}
}

// Snapshot is a validated view of a snapshot response. Its zero value is
// ready for Parse,
// and a Snapshot may be reused for frame after frame; it holds the
// validation stack itself (schema.MaxNodeDepth frames), so parsing
// allocates nothing. A Snapshot reused for frame after frame also keeps
// a table of the nodes it validated, so that a walk need not decode them
// again: the table is allocated on the second Parse, and grown (once) if
// a frame has more nodes than any before; a Snapshot used for one frame
// allocates nothing, and its walks decode the nodes from the bytes. Walk
// its windows and nodes with a Walker.
//
// Every string a Snapshot or its walk returns borrows the frame: it is
// valid until Release.
type Snapshot struct {
	buf []byte

	// ID is the response's id (Parse only).
	ID uint64
	// Truncated holds the truncated bits (key 2): which request bound cut
	// the walk short.
	Truncated uint32
	// Seq is the last tree-stream event sent when the tree was read (key 3).
	Seq uint64
	// Display is the display (key 4), when present.
	Display codec.Opt[codec.Display]

	strOff, strN int // the string table's elements: offset of the first, count (-1: indefinite)
	strTable
	winOff, winN int // the windows array's elements, like strOff, strN
	nWindows     int
	nNodes       int

	tails tailTable
	names [stringCache]string // the located entries of the string table, for the class names of the node table
	stack [schema.MaxNodeDepth]vframe
	node  NodeView // scratch for the validation pass
	win   WindowView

	recs    []nodeRec // the node table Parse fills for the walks
	nRecs   int       // records in use
	recFull bool      // a node found the table full
	want    int       // the most nodes a parse has met
	parsed  bool      // v has parsed before: it gets a table
}

// Parse validates payload, a response of method snapshot, and points v at
// it. A response carrying an error fails with ErrErrorResponse, another
// method's response or another kind with ErrNotSnapshot; a malformed
// payload fails with a *cbor.Error naming the byte offset and the field.
// On error v is empty.
//
// To keep the snapshot, decode the payload with codec.Decode (or
// codec.DecodeTree) instead: what a view returns is the frame's.
func (v *Snapshot) Parse(payload []byte) error {
	v.growTable()
	err := v.parse(payload)
	v.want = max(v.want, v.nNodes)
	if err != nil {
		v.reset(nil)
	}
	return err
}

func (v *Snapshot) reset(b []byte) {
	v.buf, v.ID, v.Truncated, v.Seq, v.Display = b, 0, 0, 0, codec.Opt[codec.Display]{}
	v.strOff, v.strN, v.nStrings = 0, 0, 0
	v.winOff, v.winN, v.nWindows, v.nNodes = 0, 0, 0, 0
	v.clearTable()
}

func (v *Snapshot) parse(b []byte) error {
	v.reset(b)
	v.tails.clear()
	d := newDec(b)
	h, err := Header(b)
	if err != nil {
		return err
	}
	if h.Kind != codec.KindResponse || !h.HasMethod || h.Method != codec.MethodSnapshot {
		return ErrNotSnapshot
	}
	if err := v.response1(&d); err != nil {
		return cbor.WithField(err, "response")
	}
	return d.Done()
}

// response1 validates a response map as the codec decodes it.
func (v *Snapshot) response1(d *dec) error {
	it, err := d.Fields(schema.Response.Len())
	if err != nil {
		return err
	}
	for it.Next(d) {
		switch k := it.Key(); {
		case it.Null():
		case k == schema.KeyKind:
			err = repeatedKind(d, codec.KindResponse)
		case k == schema.KeyResponseID:
			v.ID, err = d.Uint()
		case k == schema.KeyResponseMethod:
			_, err = repeatedMethod(d, codec.MethodSnapshot, true)
		case k == schema.KeyResponseResult:
			err = v.result(d)
		case k == schema.KeyResponseError:
			_, err = protoError(d)
		default:
			err = noReader(schema.Response, k)
		}
		if err != nil {
			return schema.Response.In(err, it.Key())
		}
	}
	if err := mapEnd(&it, schema.Response); err != nil {
		return err
	}
	start := it.Start()
	switch it.Seen() & (1<<schema.KeyResponseResult | 1<<schema.KeyResponseError) {
	case 0:
		return cbor.Errorf(cbor.ErrMissing, start, "a response carries a result (key 3) or an error (key 4)")
	case 1<<schema.KeyResponseResult | 1<<schema.KeyResponseError:
		return cbor.Errorf(cbor.ErrInvalid, start, "a response carries a result (key 3) or an error (key 4), not both")
	case 1 << schema.KeyResponseError:
		return ErrErrorResponse
	}
	return nil
}

// result validates a snapshot map; a repeated result starts over.
func (v *Snapshot) result(d *dec) error {
	v.Truncated, v.Seq, v.Display = 0, 0, codec.Opt[codec.Display]{}
	v.strOff, v.strN, v.nStrings = 0, 0, 0
	v.winOff, v.winN, v.nWindows, v.nNodes = 0, 0, 0, 0
	v.clearTable()
	it, err := d.Fields(schema.Snapshot.Len())
	if err != nil {
		return err
	}
	treesRead, fixNames := false, false // the table's class names come from an older string table
	for it.Next(d) {
		switch k := it.Key(); {
		case it.Null():
			if k == schema.KeySnapshotDisplay {
				v.Display = codec.Opt[codec.Display]{}
			}
		case k == schema.KeySnapshotStrings:
			err = v.stringTable(d)
			fixNames = treesRead
		case k == schema.KeySnapshotWindows:
			err = v.windows(d)
			treesRead, fixNames = true, false
		case k == schema.KeySnapshotTruncated:
			v.Truncated, err = d.Uint32()
		case k == schema.KeySnapshotSeq:
			v.Seq, err = d.Uint()
		case k == schema.KeySnapshotDisplay:
			v.Display = codec.Opt[codec.Display]{Ok: true}
			err = shape.ReadDisplay(d, displayTwin(&v.Display.Val))
		default:
			err = noReader(schema.Snapshot, k)
		}
		if err != nil {
			return schema.Snapshot.In(err, it.Key())
		}
	}
	if fixNames {
		v.fixClassNames()
	}
	return mapEnd(&it, schema.Snapshot)
}

func (v *Snapshot) stringTable(d *dec) error {
	n, err := d.ArrayHead()
	if err != nil {
		return err
	}
	v.strOff, v.strN, v.nStrings = d.Offset(), n, 0
	for i := 0; d.More(n, i); i++ {
		start := d.Offset()
		s, err := text(d)
		if err != nil {
			return cbor.WithIndex(err, i)
		}
		v.note(i, start, d.Offset(), len(s))
		if i < stringCache {
			v.names[i] = s
		}
		v.nStrings++
	}
	return nil
}

func (v *Snapshot) windows(d *dec) error {
	n, err := d.ArrayHeadOf(schema.MinWindowLen, "windows")
	if err != nil {
		return err
	}
	v.winOff, v.winN, v.nWindows, v.nNodes = d.Offset(), n, 0, 0
	v.clearTable()
	for i := 0; d.More(n, i); i++ {
		if err := v.window(d); err != nil {
			return cbor.WithIndex(err, i)
		}
		v.nWindows++
	}
	return nil
}

func (v *Snapshot) window(d *dec) error {
	it, err := d.Fields(schema.Window.Len())
	if err != nil {
		return err
	}
	w := &v.win
	*w = WindowView{}
	for it.Next(d) {
		switch k := it.Key(); {
		case k == schema.KeyWindowRoot && it.Null():
		case k == schema.KeyWindowRoot:
			slot := -1
			if !it.Last() {
				slot = v.tails.reserve(d.Offset())
			}
			if err := v.tree(d); err != nil {
				return cbor.WithField(err, "root")
			}
			v.tails.set(slot, d.Offset())
		case it.Null():
			clearWindowField(w, k)
		default:
			if err := windowField(d, w, k); err != nil {
				return err
			}
		}
	}
	return mapEnd(&it, schema.Window)
}

// NumStrings is the number of entries in the string table.
func (v *Snapshot) NumStrings() int { return v.nStrings }

// NumWindows is the number of windows.
func (v *Snapshot) NumWindows() int { return v.nWindows }

// NumNodes is the number of nodes in all the windows' trees.
func (v *Snapshot) NumNodes() int { return v.nNodes }

// String returns entry i of the string table, borrowed from the frame,
// and false when i is out of range. The first 512 entries are located in
// constant time, later ones by a scan of at most 255 entries (from the
// last mark past 131 584 entries).
func (v *Snapshot) String(i uint32) (string, bool) { return v.lookup(v.buf, i) }

// Strings returns an iterator over the string table.
func (v *Snapshot) Strings() StringIter {
	return StringIter{d: at(v.buf, v.strOff), n: v.strN, left: v.nStrings, i: -1}
}

// StringIter walks a snapshot's string table in order:
//
//	for it := v.Strings(); it.Next(); {
//		use(it.Index(), it.String())
//	}
type StringIter struct {
	d    dec
	n    int
	left int
	i    int
	s    string
}

// Next advances to the next entry and reports whether there is one.
func (it *StringIter) Next() bool {
	if it.left <= 0 {
		return false
	}
	s, err := text(&it.d)
	if err != nil {
		it.left = 0
		return false
	}
	it.left--
	it.i++
	it.s = s
	return true
}

// Index is the current entry's index.
func (it *StringIter) Index() int { return it.i }

// String is the current entry, borrowed from the frame.
func (it *StringIter) String() string { return it.s }

// Check reports whether the bytes under v still hold the snapshot v was
// parsed from, by validating them again and comparing what they say: nil
// if they do, ErrReleased (wrapping the validation error, if any) if the
// frame went back to the pool and its buffer was poisoned or reused. It
// costs a full validation; tests and checked builds call it.
func (v *Snapshot) Check() error {
	if v.buf == nil {
		return nil
	}
	var again Snapshot
	if err := again.parse(v.buf); err != nil {
		return errors.Join(ErrReleased, err)
	}
	if again.ID != v.ID || again.Truncated != v.Truncated || again.Seq != v.Seq || again.Display != v.Display ||
		again.nStrings != v.nStrings || again.nWindows != v.nWindows || again.nNodes != v.nNodes ||
		again.strOff != v.strOff || again.winOff != v.winOff || !again.strTable.same(&v.strTable) {
		return ErrReleased
	}
	return nil
}
