package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/schema"
)

// RequestView is a request read in place: its envelope checked as the
// codec checks it, its params located as a map that is well-formed CBOR
// with valid UTF-8 text, to be read by key. The params are not checked
// against the method's schema: a payload ParseRequest accepts may still
// fail codec.Decode, and one the codec decodes, ParseRequest reads alike.
type RequestView struct {
	ID         uint64            // key 1
	Method     codec.Method      // key 2
	DeadlineMS codec.Opt[uint32] // key 4
	Params     ParamsView        // key 3
}

// ParamsView is a request's params map, read by key: the last of a
// repeated key wins and a null value counts as absent, as in the codec.
// Strings borrow the frame (valid until Release).
type ParamsView struct {
	b  []byte               // the map's bytes
	at [paramsIndexed]int32 // 1 + offset in b of the value of key k, 0 when absent
}

// paramsIndexed is how many keys (0, 1, ...) ParamsView locates once, as
// it checks the map, so that reading them costs no scan: every method's
// params fit.
const paramsIndexed = 8

// index checks the params map at d (starting at at in payload) and
// locates the values of its first keys.
func (p *ParamsView) index(d *dec, payload []byte, at int) error {
	*p = ParamsView{}
	n, err := d.MapHead()
	if err != nil {
		return err
	}
	for i := 0; d.More(n, i); i++ {
		k, err := d.Key()
		if err != nil {
			return err
		}
		if d.Null() {
			if k < paramsIndexed {
				p.at[k] = 0
			}
			continue
		}
		if k < paramsIndexed {
			p.at[k] = int32(d.Offset() - at + 1)
		}
		if err := d.Skip(); err != nil {
			return err
		}
	}
	p.b = payload[at:d.Offset():d.Offset()]
	return nil
}

// ParseRequest reads the request in payload. It allocates nothing on
// success.
func ParseRequest(payload []byte) (RequestView, error) {
	var r RequestView
	err := r.Parse(payload)
	return r, err
}

// Parse is ParseRequest into r.
func (r *RequestView) Parse(payload []byte) error {
	if r.parseFast(payload) {
		return nil
	}
	*r = RequestView{}
	if len(payload) == 0 || payload[0]>>5 != byte(cbor.MajorMap) {
		if _, err := Header(payload); err != nil {
			return err
		}
		return cbor.WithField(cbor.Errorf(cbor.ErrType, 0, "an event array where a request map was expected"), "message")
	}
	d := newDec(payload)
	if err := r.envelope(&d, payload); err != nil {
		return cbor.WithField(err, "request")
	}
	return d.Done()
}

func (r *RequestView) envelope(d *dec, payload []byte) error {
	it, err := d.Fields(schema.Request.Len())
	if err != nil {
		return err
	}
	method, haveMethod := codec.Method(0), false
	for it.Next(d) {
		k, at := it.Key(), d.Offset()
		switch {
		case it.Null():
			switch k {
			case schema.KeyRequestParams:
				r.Params = ParamsView{}
			case schema.KeyRequestDeadlineMS:
				r.DeadlineMS = codec.Opt[uint32]{}
			}
		case k == schema.KeyKind:
			err = repeatedKind(d, codec.KindRequest)
		case k == schema.KeyRequestID:
			r.ID, err = d.Uint()
		case k == schema.KeyRequestMethod:
			if method, err = repeatedMethod(d, method, haveMethod); err == nil {
				haveMethod = true
			}
		case k == schema.KeyRequestParams:
			if b, ok := d.PeekByte(); ok && b>>5 != byte(cbor.MajorMap) {
				h, herr := d.ReadHead()
				if herr != nil {
					err = herr
				} else {
					err = cbor.Errorf(cbor.ErrType, at, h.Major.String()+" where a map was expected")
				}
			} else {
				err = r.Params.index(d, payload, at)
			}
		default:
			r.DeadlineMS, err = optU32(d)
		}
		if err != nil {
			return schema.Request.In(err, k)
		}
	}
	r.Method = method
	return mapEnd(&it, schema.Request)
}

// repeatedMethod reads a method (key 2) and, when have, insists that it
// is want, the method a repeated key named before.
func repeatedMethod(d *dec, want codec.Method, have bool) (codec.Method, error) {
	at := d.Offset()
	v, err := d.Uint32()
	if m := codec.Method(v); err == nil && have && m != want {
		err = cbor.Errorf(cbor.ErrInvalid, at, "method "+m.String()+" repeats key 2 with another value than "+want.String())
	}
	return codec.Method(v), err
}

// repeatedKind reads key 0 inside a map whose kind is known, and insists
// that a repeated kind key names the same kind.
func repeatedKind(d *dec, want codec.Kind) error {
	at := d.Offset()
	kind, err := d.Uint()
	if err == nil && codec.Kind(kind) != want {
		err = cbor.Errorf(cbor.ErrInvalid, at, "kind "+codec.Kind(kind).String()+" repeats key 0 of a "+want.String())
	}
	return err
}

// Bytes is the params map as it is in the frame.
func (p *ParamsView) Bytes() []byte { return p.b }

// valueAt returns the offset in p.b of the value of key k, indexed when
// the map was checked, and whether k has one there.
func (p *ParamsView) valueAt(k uint64) (int, bool) {
	if k >= paramsIndexed {
		return 0, false
	}
	o := int(p.at[k]) - 1
	return o, o >= 0 && o < len(p.b)
}

// find positions a decoder at the value of the last non-null key k.
func (p *ParamsView) find(k uint64) (dec, bool) {
	if k < paramsIndexed {
		o, ok := p.valueAt(k)
		if !ok {
			return dec{}, false
		}
		d := newDec(p.b)
		d.Seek(o)
		return d, true
	}
	d := newDec(p.b)
	var found dec
	ok := false
	n, err := d.MapHead()
	if err != nil {
		return found, false
	}
	for i := 0; d.More(n, i); i++ {
		kk, err := d.Key()
		if err != nil {
			return found, false
		}
		if kk == k {
			if d.Null() {
				ok = false
				continue
			}
			found, ok = d, true
		}
		if d.Skip() != nil {
			return found, false
		}
	}
	return found, ok
}

// major reports the major type of the next item.
func major(d *dec) (cbor.Major, byte) {
	b, ok := d.PeekByte()
	if !ok {
		return cbor.MajorSimple, 0xff
	}
	return cbor.Major(b >> 5), b
}

// The accessors look at the item's type before reading it, so that a key
// of another type costs no error value: they allocate nothing.

// Uint returns the unsigned integer at key k.
func (p *ParamsView) Uint(k uint64) (uint64, bool) {
	d, ok := p.find(k)
	if m, _ := major(&d); !ok || m != cbor.MajorUint {
		return 0, false
	}
	v, err := d.Uint()
	return v, err == nil
}

// Uint32 returns the u32 at key k.
func (p *ParamsView) Uint32(k uint64) (uint32, bool) {
	if o, ok := p.valueAt(k); ok {
		if v, n := cbor.Uint32At(p.b, o); n > 0 {
			return v, true
		}
	}
	v, ok := p.Uint(k)
	if !ok || v > 0xffffffff {
		return 0, false
	}
	return uint32(v), true
}

// Int returns the integer at key k, when it fits in an int64.
func (p *ParamsView) Int(k uint64) (int64, bool) {
	d, ok := p.find(k)
	if m, _ := major(&d); !ok || (m != cbor.MajorUint && m != cbor.MajorNegInt) {
		return 0, false
	}
	if v, n := cbor.Int32At(d.Input(), d.Offset()); n > 0 {
		return int64(v), true
	}
	h, err := d.ReadHead()
	if err != nil || h.Arg > 1<<63-1 {
		return 0, false
	}
	if h.Major == cbor.MajorNegInt {
		return -1 - int64(h.Arg), true
	}
	return int64(h.Arg), true
}

// Int32 returns the i32 at key k.
func (p *ParamsView) Int32(k uint64) (int32, bool) {
	if o, ok := p.valueAt(k); ok {
		if o+3 <= len(p.b) {
			if v, n := shortHead[int32](p.b, o); n > 0 {
				return v, true
			}
		}
		if v, n := cbor.Int32At(p.b, o); n > 0 {
			return v, true
		}
	}
	v, ok := p.Int(k)
	if !ok || v < -1<<31 || v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// Bool returns the boolean at key k.
func (p *ParamsView) Bool(k uint64) (bool, bool) {
	d, ok := p.find(k)
	_, b := major(&d)
	if !ok || (b != cbor.True && b != cbor.False) {
		return false, false
	}
	return b == cbor.True, true
}

// Text returns the text at key k, borrowed from the frame.
func (p *ParamsView) Text(k uint64) (string, bool) {
	d, ok := p.find(k)
	if m, b := major(&d); !ok || m != cbor.MajorText || b == 0x7f {
		return "", false
	}
	s, err := text(&d)
	return s, err == nil
}

// simpleLen returns the length of the item at b[i:] if it is an integer
// with a head of at most five bytes, a boolean, or a definite text of up
// to 23 bytes of valid UTF-8, all there; 0 for anything else (a null
// too), which SkipDefinite judges.
func simpleLen(b []byte, i int) int {
	if i >= len(b) {
		return 0
	}
	c := b[i]
	switch {
	case c < 0x18 || (c >= 0x20 && c < 0x38) || c == cbor.True || c == cbor.False:
		return 1
	case c&^0x20 == 0x18:
		if i+2 <= len(b) {
			return 2
		}
	case c&^0x20 == 0x19:
		if i+3 <= len(b) {
			return 3
		}
	case c&^0x20 == 0x1a:
		if i+5 <= len(b) {
			return 5
		}
	case c >= 0x60 && c < 0x78:
		if _, e := cbor.ValidTextAt(b, i); e > 0 {
			return e - i
		}
	}
	return 0
}

// parseFast reads a request in the canonical layout, {0: 2, 1: id,
// 2: method, 3: params, 4?: deadline_ms} with params of plain items under
// one-byte keys, straight from the bytes into r; it reports false for
// anything else (r then partly written), which the general path then
// reads. It accepts only what the general path accepts, and reads it
// alike.
func (r *RequestView) parseFast(b []byte) bool {
	if len(b) < 8 || (b[0] != 0xa4 && b[0] != 0xa5) || b[1] != schema.KeyKind || b[2] != byte(codec.KindRequest) || b[3] != schema.KeyRequestID {
		return false
	}
	id, n := uint64(b[4]), 1
	if b[4] >= 24 {
		if id, n = cbor.UintAt(b, 4); n == 0 {
			return false
		}
	}
	i := 4 + n
	if i+1 >= len(b) || b[i] != schema.KeyRequestMethod {
		return false
	}
	m, n := uint32(b[i+1]), 1
	if m >= 24 {
		if m, n = cbor.Uint32At(b, i+1); n == 0 {
			return false
		}
	}
	i += 1 + n
	if i+1 >= len(b) || b[i] != schema.KeyRequestParams || b[i+1] < 0xa0 || b[i+1] > 0xb7 {
		return false
	}
	start := i + 1
	pairs := int(b[start] - 0xa0)
	i = start + 1
	p := &r.Params
	p.at = [paramsIndexed]int32{}
	for j := 0; j < pairs; j++ {
		if i+1 >= len(b) || b[i] >= paramsIndexed {
			return false
		}
		k := b[i]
		var w int
		if c := b[i+1]; c < 0x18 || (c >= 0x20 && c < 0x38) {
			w = 1
		} else if c&^0x20 == 0x19 && i+4 <= len(b) {
			w = 3
		} else if w = simpleLen(b, i+1); w == 0 {
			if c == cbor.Null {
				return false
			}
			d := newDec(b)
			d.Seek(i + 1)
			if !d.SkipDefinite() {
				return false
			}
			w = d.Offset() - (i + 1)
		}
		p.at[k] = int32(i + 1 - start + 1)
		i += 1 + w
	}
	p.b = b[start:i:i]
	r.DeadlineMS = codec.Opt[uint32]{}
	if b[0] == 0xa5 {
		if i+1 >= len(b) || b[i] != schema.KeyRequestDeadlineMS {
			return false
		}
		v, n := cbor.Uint32At(b, i+1)
		if n == 0 {
			return false
		}
		r.DeadlineMS = codec.Opt[uint32]{Val: v, Ok: true}
		i += 1 + n
	}
	if i != len(b) {
		return false
	}
	r.ID, r.Method = id, codec.Method(m)
	return true
}
