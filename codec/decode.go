package codec

import (
	"bytes"
	"strconv"
	"sync"
	"unsafe"

	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// DecodeError is a decoding failure with its kind, byte offset and field
// path; errors.Is works on the kinds cbor.ErrTruncated, cbor.ErrType and
// the rest of package cbor's Err* values.
type DecodeError = cbor.Error

// Decode decodes one message from b, which must hold exactly one CBOR item
// (a frame's payload). The message owns its memory and never points into
// b, so b may be released or reused at once: the first string or byte
// string read makes one copy of b, and every string and byte slice of the
// message points into that copy. A message without any (a tap, an event
// without an image) costs no copy.
func Decode(b []byte) (Message, error) {
	if requestHead(b) {
		if r := decodeRequestCanonical(b, nil); r != nil {
			return r, nil // holds no strings: nothing to copy
		}
	}
	if e, ok := decodeEventFast(b); ok {
		return e, nil // holds no strings either
	}
	return decodeGeneral(b)
}

// decoders recycles decoder state (the node stack among it): the decoder
// escapes through interface calls, so a pool saves an allocation per
// message.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// fastPaths enables the canonical-layout fast paths of the general
// decoder (a snapshot's node trees) and of a Decoder; the tests turn it
// off, and call decodeGeneral, to compare them with the general decoder.
// Decode's own fast paths (requests, tree events) do not ask it: they
// are the commonest messages, and the test costs each of them.
var fastPaths = true

// decodeGeneral is Decode past its fast paths: the general decoder, from
// the pool. It is a function of its own so that Decode's fast paths, the
// commonest messages, run without the pool's frame.
func decodeGeneral(b []byte) (Message, error) {
	d := decoders.Get().(*decoder)
	m, err := d.run(b, true)
	decoders.Put(d)
	return m, err
}

// run decodes the message b holds with the general decoder, and leaves d
// holding none of its memory (a Decoder's reuse takes what it keeps
// before).
func (d *decoder) run(b []byte, copyInput bool) (Message, error) {
	d.Decoder.Reset(b)
	d.src, d.copyInput, d.own = b, copyInput, nil
	d.spent, d.walked, d.walkErr = 0, false, nil
	m, err := d.message()
	if err == nil {
		err = d.Done()
	}
	if d.r != nil {
		d.r.end(d)
	}
	d.Decoder.Reset(nil)
	d.src, d.own, d.slab, d.scrolls, d.winBuf, d.winPending = nil, nil, nil, nil, nil, 0
	if err != nil {
		return nil, err
	}
	return m, nil
}

// decoder adds the protocol's field readers to the primitive decoder.
type decoder struct {
	cbor.Decoder
	src       []byte      // the input
	copyInput bool        // strings must not point into src
	own       []byte      // the copy of src, made on first need
	stack     []nodeFrame // the general node-tree reader's stack
	fast      []fastFrame // the node-tree fast path's stack past localFrames
	spilled   bool        // fast holds frames to clear
	slabs                 // where a snapshot's nodes and scrolls come from
	winBuf    []Window    // room for a snapshot's windows, allocated with its response
	// winPending is the windows of the array being read still to come
	// after the one being read (0 for an indefinite array).
	winPending int
	// r is the memory a Decoder reuses from message to message; nil
	// under Decode.
	r *reuse
	// What the message being read has reserved (afford), and whether
	// the whole input was walked and what the walk found.
	spent   int
	walked  bool
	walkErr *cbor.Error
}

// keep returns b, a slice read from the input, as memory the message may
// keep: under Decode, the same bytes in the decoder's copy of the input.
// Slices that are not in the input (joined indefinite strings) are
// already the message's own.
func (d *decoder) keep(b []byte) []byte {
	if !d.copyInput || len(b) == 0 {
		return b
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(d.src)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p >= base+uintptr(len(d.src)) {
		return b
	}
	off := int(p - base)
	return d.ownInput()[off : off+len(b) : off+len(b)]
}

// ownInput returns the decoder's copy of its input, making it on first
// need.
func (d *decoder) ownInput() []byte {
	if d.own == nil {
		if d.r != nil {
			d.own = d.r.input(d.src)
		} else {
			d.own = bytes.Clone(d.src)
		}
		d.spent += len(d.src) // charged in reuse too: an upper bound
	}
	return d.own
}

// str turns a subslice of the decoder's own input into a string without
// copying: the input is never written after Decode starts.
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (d *decoder) text() (string, error) {
	b, err := d.Text()
	return str(d.keep(b)), err
}

func (d *decoder) optText() (Opt[string], error) {
	b, err := d.Text()
	return Opt[string]{Val: str(d.keep(b)), Ok: err == nil}, err
}

func (d *decoder) bytes() ([]byte, error) {
	b, err := d.Bytes()
	return d.keep(b), err
}

func (d *decoder) u64() (uint64, error) { return d.Uint() }
func (d *decoder) u32() (uint32, error) { return d.Uint32() }
func (d *decoder) i32() (int32, error)  { return d.Int32() }

func (d *decoder) optU32() (Opt[uint32], error) {
	v, err := d.Uint32()
	return Opt[uint32]{Val: v, Ok: err == nil}, err
}

func (d *decoder) optU64() (Opt[uint64], error) {
	v, err := d.Uint()
	return Opt[uint64]{Val: v, Ok: err == nil}, err
}

func (d *decoder) optBool() (Opt[bool], error) {
	v, err := d.Bool()
	return Opt[bool]{Val: v, Ok: err == nil}, err
}

// mapHead reads a map head; n is -1 for an indefinite map.
func (d *decoder) mapHead() (int, error) { return d.MapHead() }

// u32Array reads an array of u32, reserving no more than the input holds;
// a Decoder's, in its kept u32s.
func (d *decoder) u32Array() ([]uint32, error) {
	n, err := d.ArrayHead()
	if err != nil {
		return nil, err
	}
	var out []uint32
	if d.r != nil {
		out = d.r.u32Room(max(n, 0))
	} else {
		out = make([]uint32, 0, max(n, 0))
	}
	for i := 0; d.More(n, i); i++ {
		v, err := d.u32()
		if err != nil {
			return nil, cbor.WithIndex(err, i)
		}
		out = append(out, v)
	}
	if d.r != nil {
		d.r.u32Taken(out, max(n, 0))
	}
	return out, nil
}

// mapIter is a message map opened by message: its head read, and maybe
// its first pairs (the kind) too.
type mapIter struct {
	head  cbor.Decoder // the decoder positioned at the map's head
	start int          // offset of the map's head
	n, i  int          // pairs in the map (-1: indefinite), pairs read
	seen  uint32       // keys read
}

// message decodes any envelope.
func (d *decoder) message() (Message, error) {
	start := d.Offset()
	b, ok := d.PeekByte()
	if !ok {
		return nil, cbor.Errorf(cbor.ErrTruncated, start, "empty input where a message was expected")
	}
	switch b >> 5 {
	case byte(cbor.MajorArray):
		return d.event()
	case byte(cbor.MajorMap):
	default:
		if _, err := d.ReadHead(); err != nil {
			return nil, cbor.WithField(err, "message")
		}
		return nil, cbor.WithField(cbor.Errorf(cbor.ErrType, start, cbor.Major(b>>5).String()+" where a message map or event array was expected"), "message")
	}
	kind, it, err := d.openMessage()
	if err != nil {
		return nil, cbor.WithField(err, "message")
	}
	switch kind {
	case KindHello:
		h := new(Hello)
		return h, cbor.WithField(d.hello(h, it), "hello")
	case KindWelcome:
		w := new(Welcome)
		return w, cbor.WithField(d.welcome(w, it), "welcome")
	case KindRequest:
		r, err := d.request(it)
		return r, cbor.WithField(err, "request")
	case KindResponse:
		r, err := d.response(it)
		return r, cbor.WithField(err, "response")
	case KindPing:
		n, err := d.nonce(KindPing, it)
		return &Ping{Nonce: n}, cbor.WithField(err, "ping")
	case KindPong:
		n, err := d.nonce(KindPong, it)
		return &Pong{Nonce: n}, cbor.WithField(err, "pong")
	}
	for i := it.i; d.More(it.n, i); i++ {
		if err := d.Skip(); err != nil {
			return nil, cbor.WithField(err, "message")
		}
		if err := d.Skip(); err != nil {
			return nil, cbor.WithField(err, "message")
		}
	}
	return &UnknownKind{Value: uint64(kind)}, nil
}

// openMessage reads the head of a message map and its kind. The canonical
// layout puts the kind first, and then the kind's pair is consumed; keys
// may come in any order and repeat, though, so otherwise the whole map is
// scanned for key 0 (the last one wins) and the map is reopened. A later
// repetition of key 0 with another value is caught by the decoder of the
// kind (see checkKind).
func (d *decoder) openMessage() (Kind, mapIter, error) {
	it := mapIter{head: d.Decoder, start: d.Offset()}
	n, err := d.mapHead()
	if err != nil {
		return 0, it, err
	}
	it.n = n
	if b, ok := d.PeekByte(); ok && b == schema.KeyKind && n != 0 {
		d.Advance(1)
		if !d.Null() {
			v, err := d.u64()
			if err != nil {
				return 0, it, cbor.WithField(err, "kind")
			}
			it.i, it.seen = 1, 1
			return Kind(v), it, nil
		}
	}
	d.Decoder = it.head
	kind, err := d.scanKind()
	if err != nil {
		return 0, it, err
	}
	d.Decoder = it.head
	it.n, _ = d.mapHead()
	return kind, it, nil
}

// scanKind finds key 0 of the map at the decoder's position, consuming
// the map.
func (d *decoder) scanKind() (Kind, error) {
	start := d.Offset()
	n, err := d.mapHead()
	if err != nil {
		return 0, err
	}
	var kind Kind
	found := false
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return 0, err
		}
		if k == schema.KeyKind {
			if d.Null() {
				found = false
				continue
			}
			v, err := d.u64()
			if err != nil {
				return 0, cbor.WithField(err, "kind")
			}
			kind, found = Kind(v), true
			continue
		}
		if err := d.Skip(); err != nil {
			return 0, err
		}
	}
	if !found {
		return 0, cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "key 0 (kind) is required"), "kind")
	}
	return kind, nil
}

// nonce decodes a ping or pong.
func (d *decoder) nonce(kind Kind, it mapIter) (nonce uint64, err error) {
	err = d.walk(it, schema.Ping, func(k uint64) (err error) {
		if k == schema.KeyKind {
			return d.checkKind(kind)
		}
		nonce, err = d.u64()
		return err
	}, nil)
	return nonce, err
}

// checkKind reads key 0 inside the decoder of a kind and insists that a
// repeated kind key names the same kind.
func (d *decoder) checkKind(want Kind) error {
	start := d.Offset()
	v, err := d.u64()
	if err != nil {
		return err
	}
	if Kind(v) != want {
		return cbor.Errorf(cbor.ErrInvalid, start, "kind "+Kind(v).String()+" repeats key 0 of a "+want.String())
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
