package codec

import (
	"github.com/wirebench/wirebench/codec/cbor"
)

// The canonical request fast path. An encoder that follows docs/protocol.md
// (ours, the agent's) writes a request as
//
//	{0: 2, 1: id, 2: method, 3: {params, keys ascending}, 4?: deadline_ms}
//
// decodeRequestFast reads exactly that layout straight from the bytes for
// the methods whose params are integers, and snapshot's, with no decoder
// state, no pool and one allocation. Anything else (another key order, a
// null, an unknown key, an indefinite length, a value out of range, a
// method it does not know) makes it report false, and the general
// decoder reads the message from the start: it accepts only what the
// general path accepts, and reads it alike.

// intParams is a params map of integers under keys 0 to 7, as read by
// scanInts: the values and a mask of the keys present.
type intParams struct {
	v    [8]int64
	mask uint32
}

func (p *intParams) i32(k int) int32 { return int32(p.v[k]) }
func (p *intParams) u32(k int) uint32 {
	return uint32(p.v[k])
}

func (p *intParams) optU32(k int) Opt[uint32] {
	return Opt[uint32]{Val: uint32(p.v[k]), Ok: p.mask&(1<<k) != 0}
}

// fits reports whether the keys present are those of m's parameter map
// and all its required ones, the keys of i32s hold i32 values and every
// other key a u32.
func (p *intParams) fits(m Method, i32s uint32) bool {
	f := methods[m].params
	need, known := f.required, uint32(1)<<len(f.names)-1
	if p.mask&need != need || p.mask&^known != 0 {
		return false
	}
	for k := range 8 {
		if p.mask&(1<<k) == 0 {
			continue
		}
		v := p.v[k]
		if i32s&(1<<k) != 0 {
			if v < -1<<31 || v > 1<<31-1 {
				return false
			}
		} else if v < 0 || v > 0xffffffff {
			return false
		}
	}
	return true
}

// scanInts reads, at b[i], a map with a one-byte head whose keys are
// ascending one-byte keys below 8 and whose values are integers that fit
// in an int64, and returns the offset past it.
func scanInts(b []byte, i int, p *intParams) (int, bool) {
	if i >= len(b) || b[i] < 0xa0 || b[i] > 0xa8 {
		return 0, false
	}
	pairs := int(b[i] - 0xa0)
	i++
	prev := -1
	for ; pairs > 0; pairs-- {
		if i+1 >= len(b) || int(b[i]) <= prev || b[i] >= 8 {
			return 0, false
		}
		k := int(b[i])
		prev = k
		c := b[i+1]
		i++
		var v int64
		switch {
		case c < 0x18:
			v = int64(c)
			i++
		case c >= 0x20 && c < 0x38:
			v = -1 - int64(c-0x20)
			i++
		default:
			var n int
			if v, n = cbor.IntAt(b, i); n == 0 {
				return 0, false
			}
			i += n
		}
		p.v[k] = v
		p.mask |= 1 << k
	}
	return i, true
}

// decodeRequestFast decodes b if it is a request in the canonical layout
// with params it knows, and reports whether it did. It is inlined where
// it is called: any other message, an event above all, costs the test of
// its first byte.
func decodeRequestFast(b []byte) (r *Request, ok bool) {
	if len(b) >= 8 && b[0]|1 == 0xa5 { // a map of 4 or 5 pairs
		r = decodeRequestCanonical(b)
	}
	return r, r != nil
}

// decodeRequestCanonical is decodeRequestFast past the first byte, which
// is a map head of 4 or 5 pairs.
func decodeRequestCanonical(b []byte) *Request {
	// b[0] is 0xa4 or 0xa5 (decodeRequestFast)
	if len(b) < 8 || b[1] != KeyKind || b[2] != byte(KindRequest) || b[3] != KeyRequestID {
		return nil
	}
	// An id and a method of one byte are read in line.
	id, i, n := uint64(b[4]), 5, 0
	if id >= 24 {
		if id, n = cbor.UintAt(b, 4); n == 0 {
			return nil
		}
		i = 4 + n
	}
	if i+2 >= len(b) || b[i] != KeyRequestMethod {
		return nil
	}
	m := uint32(b[i+1])
	if i += 2; m >= 24 {
		if m, n = cbor.Uint32At(b, i-1); n == 0 {
			return nil
		}
		i += n - 1
	}
	if i+1 >= len(b) || b[i] != KeyRequestParams {
		return nil
	}
	i++
	var r *Request
	switch Method(m) {
	case MethodTap:
		// The commonest request of all: {0: x, 1: y} read in line.
		// A coordinate on a screen is below 65536: its head is read in
		// line, any other by i32At.
		var x, y int32
		if i+2 >= len(b) || b[i] != 0xa2 || b[i+1] != KeyTapParamsX {
			return nil
		}
		j := i + 2
		if x, i = smallI32At(b, j); i == 0 {
			if x, i = i32At(b, j); i == 0 {
				return nil
			}
		}
		if i+1 >= len(b) || b[i] != KeyTapParamsY {
			return nil
		}
		j = i + 1
		if y, i = smallI32At(b, j); i == 0 {
			if y, i = i32At(b, j); i == 0 {
				return nil
			}
		}
		r = requestFor(TapParams{X: x, Y: y})
	case MethodSnapshot:
		var p SnapshotParams
		ok := false
		if i, ok = snapshotParamsFast(b, i, &p); !ok {
			return nil
		}
		r = requestFor(p)
	default:
		var p intParams
		ok := false
		if i, ok = scanInts(b, i, &p); !ok {
			return nil
		}
		if r = intRequest(Method(m), &p); r == nil {
			return nil
		}
	}
	if b[0] == 0xa5 {
		d, n := cbor.Uint32At(b, i+1)
		if n == 0 || b[i] != KeyRequestDeadlineMS {
			return nil
		}
		r.DeadlineMS = Opt[uint32]{Val: d, Ok: true}
		i += 1 + n
	}
	if i != len(b) {
		return nil
	}
	r.ID, r.Method = id, Method(m)
	return r
}

// intRequest returns a request of method m with the params p holds, or
// nil when m's params are not integers or p does not fit them.
func intRequest(m Method, p *intParams) *Request {
	switch m { // tap is read in line by decodeRequestFast
	case MethodLongPress:
		if !p.fits(m, 1<<KeyLongPressParamsX|1<<KeyLongPressParamsY) {
			return nil
		}
		return requestFor(LongPressParams{X: p.i32(KeyLongPressParamsX), Y: p.i32(KeyLongPressParamsY), DurationMS: p.u32(KeyLongPressParamsDurationMS)})
	case MethodSwipe:
		if !p.fits(m, 1<<KeySwipeParamsX1|1<<KeySwipeParamsY1|1<<KeySwipeParamsX2|1<<KeySwipeParamsY2) {
			return nil
		}
		return requestFor(SwipeParams{X1: p.i32(KeySwipeParamsX1), Y1: p.i32(KeySwipeParamsY1), X2: p.i32(KeySwipeParamsX2), Y2: p.i32(KeySwipeParamsY2),
			DurationMS: p.u32(KeySwipeParamsDurationMS), RestMS: p.optU32(KeySwipeParamsRestMS)})
	case MethodKey:
		if !p.fits(m, 0) {
			return nil
		}
		return requestFor(KeyParams{Keycode: p.u32(KeyKeyParamsKeycode), Meta: p.optU32(KeyKeyParamsMeta)})
	case MethodResync:
		if !p.fits(m, 0) {
			return nil
		}
		return requestFor(ResyncParams{Stream: Stream(p.u32(KeyResyncParamsStream))})
	case MethodScreenshot:
		if !p.fits(m, 0) {
			return nil
		}
		return requestFor(ScreenshotParams{Format: p.optU32(KeyScreenshotParamsFormat), Quality: p.optU32(KeyScreenshotParamsQuality), ScalePct: p.optU32(KeyScreenshotParamsScalePct)})
	case MethodFramesStart:
		if !p.fits(m, 0) {
			return nil
		}
		return requestFor(FramesStartParams{MaxFPS: p.optU32(KeyFramesStartParamsMaxFPS), ScalePct: p.optU32(KeyFramesStartParamsScalePct), Quality: p.optU32(KeyFramesStartParamsQuality)})
	case MethodFramesStop, MethodDeviceInfo:
		if p.mask != 0 {
			return nil
		}
		return &Request{Params: ParamsFor(m)}
	}
	return nil
}

// requestCanonical is decodeRequestCanonical for a Decoder: it reads
// the same layout alike, into the Decoder's kept request of the method
// (and its kept u32s, for an evict list), and allocates nothing in
// steady state. It is a copy of decodeRequestCanonical and intRequest
// but for where the request goes, rather than one function for both, so
// that Decode's path takes not one instruction more; FuzzDecoder and
// TestDecoderReadsRequestsAsDecode check the two against each other.
func (r *reuse) requestCanonical(b []byte) *Request {
	// b[0] is 0xa4 or 0xa5 (Decoder.Decode)
	if len(b) < 8 || b[1] != KeyKind || b[2] != byte(KindRequest) || b[3] != KeyRequestID {
		return nil
	}
	id, i, n := uint64(b[4]), 5, 0
	if id >= 24 {
		if id, n = cbor.UintAt(b, 4); n == 0 {
			return nil
		}
		i = 4 + n
	}
	if i+2 >= len(b) || b[i] != KeyRequestMethod {
		return nil
	}
	m := uint32(b[i+1])
	if i += 2; m >= 24 {
		if m, n = cbor.Uint32At(b, i-1); n == 0 {
			return nil
		}
		i += n - 1
	}
	if i+1 >= len(b) || b[i] != KeyRequestParams {
		return nil
	}
	i++
	var q *Request
	switch Method(m) {
	case MethodTap:
		var x, y int32
		if i+2 >= len(b) || b[i] != 0xa2 || b[i+1] != KeyTapParamsX {
			return nil
		}
		j := i + 2
		if x, i = smallI32At(b, j); i == 0 {
			if x, i = i32At(b, j); i == 0 {
				return nil
			}
		}
		if i+1 >= len(b) || b[i] != KeyTapParamsY {
			return nil
		}
		j = i + 1
		if y, i = smallI32At(b, j); i == 0 {
			if y, i = i32At(b, j); i == 0 {
				return nil
			}
		}
		q = r.request(MethodTap)
		*q.Params.(*TapParams) = TapParams{X: x, Y: y}
	case MethodSnapshot:
		q = r.request(MethodSnapshot)
		ok := false
		if i, ok = r.snapshotParams(b, i, q.Params.(*SnapshotParams)); !ok {
			return nil
		}
	default:
		var p intParams
		ok := false
		if i, ok = scanInts(b, i, &p); !ok {
			return nil
		}
		if q = r.intRequest(Method(m), &p); q == nil {
			return nil
		}
	}
	if b[0] == 0xa5 {
		d, n := cbor.Uint32At(b, i+1)
		if n == 0 || b[i] != KeyRequestDeadlineMS {
			return nil
		}
		q.DeadlineMS = Opt[uint32]{Val: d, Ok: true}
		i += 1 + n
	}
	if i != len(b) {
		return nil
	}
	q.ID = id
	return q
}

// intRequest is intRequest for a Decoder: it returns the kept request of
// method m with the params p holds, or nil.
func (r *reuse) intRequest(m Method, p *intParams) *Request {
	var q *Request
	switch m {
	case MethodLongPress:
		if !p.fits(m, 1<<KeyLongPressParamsX|1<<KeyLongPressParamsY) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*LongPressParams) = LongPressParams{X: p.i32(KeyLongPressParamsX), Y: p.i32(KeyLongPressParamsY), DurationMS: p.u32(KeyLongPressParamsDurationMS)}
	case MethodSwipe:
		if !p.fits(m, 1<<KeySwipeParamsX1|1<<KeySwipeParamsY1|1<<KeySwipeParamsX2|1<<KeySwipeParamsY2) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*SwipeParams) = SwipeParams{X1: p.i32(KeySwipeParamsX1), Y1: p.i32(KeySwipeParamsY1), X2: p.i32(KeySwipeParamsX2), Y2: p.i32(KeySwipeParamsY2),
			DurationMS: p.u32(KeySwipeParamsDurationMS), RestMS: p.optU32(KeySwipeParamsRestMS)}
	case MethodKey:
		if !p.fits(m, 0) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*KeyParams) = KeyParams{Keycode: p.u32(KeyKeyParamsKeycode), Meta: p.optU32(KeyKeyParamsMeta)}
	case MethodResync:
		if !p.fits(m, 0) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*ResyncParams) = ResyncParams{Stream: Stream(p.u32(KeyResyncParamsStream))}
	case MethodScreenshot:
		if !p.fits(m, 0) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*ScreenshotParams) = ScreenshotParams{Format: p.optU32(KeyScreenshotParamsFormat), Quality: p.optU32(KeyScreenshotParamsQuality), ScalePct: p.optU32(KeyScreenshotParamsScalePct)}
	case MethodFramesStart:
		if !p.fits(m, 0) {
			return nil
		}
		q = r.request(m)
		*q.Params.(*FramesStartParams) = FramesStartParams{MaxFPS: p.optU32(KeyFramesStartParamsMaxFPS), ScalePct: p.optU32(KeyFramesStartParamsScalePct), Quality: p.optU32(KeyFramesStartParamsQuality)}
	case MethodFramesStop, MethodDeviceInfo:
		if p.mask != 0 {
			return nil
		}
		q = r.request(m) // params of no field
	}
	return q
}

// snapshotParams is snapshotParamsFast for a Decoder: the evict list
// goes to the kept u32s. It is a copy (see requestCanonical): a change
// to snapshotParamsFast, however small, moves the code of Decode's path.
func (r *reuse) snapshotParams(b []byte, i int, p *SnapshotParams) (int, bool) {
	*p = SnapshotParams{}
	if i >= len(b) || b[i] < 0xa1 || b[i] > 0xa5 {
		return 0, false
	}
	pairs := int(b[i] - 0xa0)
	i++
	for k, o := range [...]*Opt[uint32]{KeySnapshotParamsMaxDepth: &p.MaxDepth, KeySnapshotParamsMaxNodes: &p.MaxNodes, KeySnapshotParamsMaxWindows: &p.MaxWindows} {
		if i < len(b) && b[i] == byte(k) {
			v, n := cbor.Uint32At(b, i+1)
			if n == 0 {
				return 0, false
			}
			*o = Opt[uint32]{Val: v, Ok: true}
			i += 1 + n
		}
	}
	if i+1 < len(b) && b[i] == KeySnapshotParamsEvictEventLess && (b[i+1] == cbor.True || b[i+1] == cbor.False) {
		p.EvictEventLess = Opt[bool]{Val: b[i+1] == cbor.True, Ok: true}
		i += 2
	}
	if i+1 >= len(b) || b[i] != KeySnapshotParamsEvict || b[i+1] < 0x80 || b[i+1] > 0x97 || int(b[i+1]-0x80) > len(b)-i-2 {
		return 0, false
	}
	cnt := int(b[i+1] - 0x80)
	i += 2
	evict := r.u32Room(cnt) // []uint32{} for []
	for range cnt {
		v, n := cbor.Uint32At(b, i)
		if n == 0 {
			return 0, false
		}
		evict = append(evict, v)
		i += n
	}
	if pairs != 1+present(p.MaxDepth.Ok, p.MaxNodes.Ok, p.MaxWindows.Ok, p.EvictEventLess.Ok) {
		return 0, false
	}
	r.u32Taken(evict, cnt)
	p.Evict = evict
	return i, true
}

// snapshotParamsFast reads snapshot params in the canonical layout,
// {0?: u32, 1?: u32, 2?: u32, 3?: bool, 4: [u32]}, at b[i], and returns
// the offset past them, or false for any other layout.
func snapshotParamsFast(b []byte, i int, p *SnapshotParams) (int, bool) {
	if i >= len(b) || b[i] < 0xa1 || b[i] > 0xa5 {
		return 0, false
	}
	pairs := int(b[i] - 0xa0)
	i++
	for k, o := range [...]*Opt[uint32]{KeySnapshotParamsMaxDepth: &p.MaxDepth, KeySnapshotParamsMaxNodes: &p.MaxNodes, KeySnapshotParamsMaxWindows: &p.MaxWindows} {
		if i < len(b) && b[i] == byte(k) {
			v, n := cbor.Uint32At(b, i+1)
			if n == 0 {
				return 0, false
			}
			*o = Opt[uint32]{Val: v, Ok: true}
			i += 1 + n
		}
	}
	if i+1 < len(b) && b[i] == KeySnapshotParamsEvictEventLess && (b[i+1] == cbor.True || b[i+1] == cbor.False) {
		p.EvictEventLess = Opt[bool]{Val: b[i+1] == cbor.True, Ok: true}
		i += 2
	}
	if i+1 >= len(b) || b[i] != KeySnapshotParamsEvict || b[i+1] < 0x80 || b[i+1] > 0x97 || int(b[i+1]-0x80) > len(b)-i-2 {
		return 0, false
	}
	cnt := int(b[i+1] - 0x80)
	i += 2
	// As the general decoder: a non-nil slice, empty for [] (which costs
	// no call).
	if cnt == 0 {
		p.Evict = []uint32{}
	} else {
		p.Evict = make([]uint32, 0, cnt)
	}
	for range cnt {
		v, n := cbor.Uint32At(b, i)
		if n == 0 {
			return 0, false
		}
		p.Evict = append(p.Evict, v)
		i += n
	}
	if pairs != 1+present(p.MaxDepth.Ok, p.MaxNodes.Ok, p.MaxWindows.Ok, p.EvictEventLess.Ok) {
		return 0, false
	}
	return i, true
}

// smallI32At reads at b[i] (which exists) an unsigned integer with a head
// of at most 3 bytes, returning the offset past it, or 0 for anything
// else. It is inlined.
func smallI32At(b []byte, i int) (int32, int) {
	switch c := b[i]; {
	case c < 24:
		return int32(c), i + 1
	case c == 0x18 && i+1 < len(b):
		return int32(b[i+1]), i + 2
	case c == 0x19 && i+2 < len(b):
		return int32(b[i+1])<<8 | int32(b[i+2]), i + 3
	}
	return 0, 0
}

// i32At reads an i32 at b[i] (which exists), returning the offset past it
// or 0. Heads of up to three bytes are read without a call.
func i32At(b []byte, i int) (int32, int) {
	c := b[i]
	var u int32
	switch c & 0x1f {
	case 24:
		if i+1 >= len(b) {
			return 0, 0
		}
		u, i = int32(b[i+1]), i+2
	case 25:
		if i+2 >= len(b) {
			return 0, 0
		}
		u, i = int32(b[i+1])<<8|int32(b[i+2]), i+3
	default:
		if c&0x1f > 24 || c >= 0x40 {
			v, n := cbor.Int32At(b, i)
			if n == 0 {
				return 0, 0
			}
			return v, i + n
		}
		u, i = int32(c&0x1f), i+1
	}
	switch c >> 5 {
	case 0:
		return u, i
	case 1:
		return -1 - u, i
	}
	return 0, 0
}
