package codec

import (
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// The canonical request fast path. An encoder that follows docs/protocol.md
// (ours, the agent's) writes a request as
//
//	{0: 2, 1: id, 2: method, 3: {params, keys ascending}, 4?: deadline_ms}
//
// decodeRequestCanonical reads exactly that layout straight from the
// bytes for the methods whose params are integers, and snapshot's, with
// no decoder state and no pool: for Decode with one allocation, for a
// Decoder into the request it keeps for the method and its kept u32s,
// with none. Anything else (another key order, a null, an unknown key,
// an indefinite length, a value out of range, a method it does not know)
// makes it report nil, and the general
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
	need, known := methods[m].need, methods[m].known
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

// requestHead reports whether b starts as decodeRequestCanonical wants:
// a map of 4 or 5 pairs, in 8 bytes or more. Decode and Decoder.Decode
// test it in line, so that any other message, an event above all, costs
// the test of its first byte.
func requestHead(b []byte) bool { return len(b) >= 8 && b[0]|1 == 0xa5 }

// decodeRequestCanonical reads b, which starts with a map head of 4 or 5
// pairs (requestHead). It is Decode's reader and
// a Decoder's, which differ only in where the request goes: with a nil r
// it is new, as Decode's; else it is r's kept request of the method,
// with a snapshot's evict list in r's kept u32s (Decoder.Decode), and
// costs no allocation. Each place that builds the request branches on r.
func decodeRequestCanonical(b []byte, r *reuse) *Request {
	// b[0] is 0xa4 or 0xa5 (requestHead)
	if len(b) < 8 || b[1] != schema.KeyKind || b[2] != byte(KindRequest) || b[3] != schema.KeyRequestID {
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
	if i+2 >= len(b) || b[i] != schema.KeyRequestMethod {
		return nil
	}
	m := uint32(b[i+1])
	if i += 2; m >= 24 {
		if m, n = cbor.Uint32At(b, i-1); n == 0 {
			return nil
		}
		i += n - 1
	}
	if i+1 >= len(b) || b[i] != schema.KeyRequestParams {
		return nil
	}
	i++
	var q *Request
	switch Method(m) {
	case MethodTap:
		// The commonest request of all: {0: x, 1: y} read in line.
		// A coordinate on a screen is below 65536: its head is read in
		// line, any other by i32At.
		var x, y int32
		if i+2 >= len(b) || b[i] != 0xa2 || b[i+1] != schema.KeyTapParamsX {
			return nil
		}
		j := i + 2
		if x, i = smallI32At(b, j); i == 0 {
			if x, i = shape.I32At(b, j); i == 0 {
				return nil
			}
		}
		if i+1 >= len(b) || b[i] != schema.KeyTapParamsY {
			return nil
		}
		j = i + 1
		if y, i = smallI32At(b, j); i == 0 {
			if y, i = shape.I32At(b, j); i == 0 {
				return nil
			}
		}
		v := TapParams{X: x, Y: y}
		if r == nil {
			q = requestFor(v)
		} else {
			q = r.request(MethodTap)
			*q.Params.(*TapParams) = v
		}
	case MethodSnapshot:
		var p SnapshotParams
		ok := false
		if i, ok = snapshotParamsFast(b, i, &p, r); !ok {
			return nil
		}
		if r == nil {
			q = requestFor(p)
		} else {
			r.u32Taken(p.Evict, len(p.Evict)) // filled to its room
			q = r.request(MethodSnapshot)
			*q.Params.(*SnapshotParams) = p
		}
	default:
		var p intParams
		ok := false
		if i, ok = scanInts(b, i, &p); !ok {
			return nil
		}
		if q = intRequest(Method(m), &p, r); q == nil {
			return nil
		}
	}
	if b[0] == 0xa5 {
		d, n := cbor.Uint32At(b, i+1)
		if n == 0 || b[i] != schema.KeyRequestDeadlineMS {
			return nil
		}
		q.DeadlineMS = Opt[uint32]{Val: d, Ok: true}
		i += 1 + n
	}
	if i != len(b) {
		return nil
	}
	q.ID, q.Method = id, Method(m)
	return q
}

// intRequest returns a request of method m with the params p holds (new,
// or r's kept one), or nil when m's params are not integers
// or p does not fit them.
func intRequest(m Method, p *intParams, r *reuse) *Request {
	switch m { // tap is read in line by decodeRequestCanonical
	case MethodLongPress:
		if !p.fits(m, 1<<schema.KeyLongPressParamsX|1<<schema.KeyLongPressParamsY) {
			return nil
		}
		return placeRequest(r, m, LongPressParams{X: p.i32(schema.KeyLongPressParamsX), Y: p.i32(schema.KeyLongPressParamsY), DurationMS: p.u32(schema.KeyLongPressParamsDurationMS)})
	case MethodSwipe:
		if !p.fits(m, 1<<schema.KeySwipeParamsX1|1<<schema.KeySwipeParamsY1|1<<schema.KeySwipeParamsX2|1<<schema.KeySwipeParamsY2) {
			return nil
		}
		return placeRequest(r, m, SwipeParams{X1: p.i32(schema.KeySwipeParamsX1), Y1: p.i32(schema.KeySwipeParamsY1), X2: p.i32(schema.KeySwipeParamsX2), Y2: p.i32(schema.KeySwipeParamsY2),
			DurationMS: p.u32(schema.KeySwipeParamsDurationMS), RestMS: p.optU32(schema.KeySwipeParamsRestMS)})
	case MethodKey:
		if !p.fits(m, 0) {
			return nil
		}
		return placeRequest(r, m, KeyParams{Keycode: p.u32(schema.KeyKeyParamsKeycode), Meta: p.optU32(schema.KeyKeyParamsMeta)})
	case MethodResync:
		if !p.fits(m, 0) {
			return nil
		}
		return placeRequest(r, m, ResyncParams{Stream: Stream(p.u32(schema.KeyResyncParamsStream))})
	case MethodScreenshot:
		if !p.fits(m, 0) {
			return nil
		}
		return placeRequest(r, m, ScreenshotParams{Format: p.optU32(schema.KeyScreenshotParamsFormat), Quality: p.optU32(schema.KeyScreenshotParamsQuality), ScalePct: p.optU32(schema.KeyScreenshotParamsScalePct)})
	case MethodFramesStart:
		if !p.fits(m, 0) {
			return nil
		}
		return placeRequest(r, m, FramesStartParams{MaxFPS: p.optU32(schema.KeyFramesStartParamsMaxFPS), ScalePct: p.optU32(schema.KeyFramesStartParamsScalePct), Quality: p.optU32(schema.KeyFramesStartParamsQuality)})
	case MethodFramesStop, MethodDeviceInfo:
		if p.mask != 0 {
			return nil
		}
		if r != nil {
			return r.request(m) // params of no field
		}
		return &Request{Params: ParamsFor(m)}
	}
	return nil
}

// snapshotParamsFast reads snapshot params in the canonical layout,
// {0?: u32, 1?: u32, 2?: u32, 3?: bool, 4: [u32]}, at b[i], into p (zero),
// and returns the offset past them, or false for any other layout. The
// evict list is new, or, when r is not nil, in r's kept u32s, for the
// caller to mark taken.
func snapshotParamsFast(b []byte, i int, p *SnapshotParams, r *reuse) (int, bool) {
	if i >= len(b) || b[i] < 0xa1 || b[i] > 0xa5 {
		return 0, false
	}
	pairs := int(b[i] - 0xa0)
	i++
	for k, o := range [...]*Opt[uint32]{schema.KeySnapshotParamsMaxDepth: &p.MaxDepth, schema.KeySnapshotParamsMaxNodes: &p.MaxNodes, schema.KeySnapshotParamsMaxWindows: &p.MaxWindows} {
		if i < len(b) && b[i] == byte(k) {
			v, n := cbor.Uint32At(b, i+1)
			if n == 0 {
				return 0, false
			}
			*o = Opt[uint32]{Val: v, Ok: true}
			i += 1 + n
		}
	}
	if i+1 < len(b) && b[i] == schema.KeySnapshotParamsEvictEventLess && (b[i+1] == cbor.True || b[i+1] == cbor.False) {
		p.EvictEventLess = Opt[bool]{Val: b[i+1] == cbor.True, Ok: true}
		i += 2
	}
	if i+1 >= len(b) || b[i] != schema.KeySnapshotParamsEvict || b[i+1] < 0x80 || b[i+1] > 0x97 || int(b[i+1]-0x80) > len(b)-i-2 {
		return 0, false
	}
	cnt := int(b[i+1] - 0x80)
	i += 2
	// As the general decoder: a non-nil slice, empty for [] (which costs
	// no call).
	switch {
	case r != nil:
		p.Evict = r.u32Room(cnt)
	case cnt == 0:
		p.Evict = []uint32{}
	default:
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

// placeRequest returns a request of method m with params v: new, as
// Decode's (r nil), or r's kept request of m with v written into its
// params, as a Decoder's. It is not inlined: tap and snapshot, the
// requests of the benchmarks, spell it out in decodeRequestCanonical
// (through it, 14-26 instructions more each).
func placeRequest[P any, PT paramsPtr[P]](r *reuse, m Method, v P) *Request {
	if r == nil {
		return requestFor[P, PT](v)
	}
	q := r.request(m)
	*q.Params.(PT) = v
	return q
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
