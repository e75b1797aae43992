package cbor

import (
	"encoding/binary"
	"math"
	"strconv"
)

// ValueKind says which field of a Value holds its content.
type ValueKind uint8

// The kinds of generic values.
const (
	KindUint   ValueKind = iota // Uint holds the value
	KindNegInt                  // Uint holds n, the value is -1-n
	KindBytes                   // Bytes
	KindText                    // Text
	KindArray                   // Items
	KindMap                     // Items holds key, value, key, value, ...
	KindTag                     // Uint holds the tag number, Items[0] the content
	KindBool                    // Bool
	KindNull
	KindUndefined
	KindSimple // Uint holds the simple value number
	KindFloat  // Float holds the value, Uint the width in bytes (2, 4 or 8)
)

// Value is a generic CBOR data item, for tools and conformance tests; the
// message codec never builds one. It takes ValueSize bytes.
type Value struct {
	Kind ValueKind
	Bool bool
	// Indefinite records that the item was encoded with indefinite length.
	Indefinite bool
	Uint       uint64
	Bytes      []byte
	Text       string
	Items      []Value
	Float      float64
}

// ValueSize is the size of a Value on 64-bit platforms: what each item
// of a decoded container costs (see DecodeValue).
const ValueSize = 88

// MaxValueDepth bounds the nesting DecodeValue accepts.
const MaxValueDepth = 1024

// DecodeValue decodes exactly one item from b into a generic Value.
//
// Memory follows the items present, never the counts the heads claim:
// the item is walked once first (as Skip does, allocating nothing), so
// that a head claiming more than the input holds fails before anything
// is reserved for it, and then every container is given exactly as many
// Values as it holds, indefinite ones included. Decoding n bytes
// allocates at most k·n + C bytes in total, with k = ValueSize (88: an
// array of one-byte items reaches it, each item a Value) and C = 16 KiB;
// text is copied into strings, one byte each besides.
func DecodeValue(b []byte) (Value, error) {
	d := NewDecoder(b)
	v, err := d.Value()
	if err != nil {
		return Value{}, err
	}
	return v, d.Done()
}

// Value decodes the next item, of any type, into a generic Value, with
// the memory DecodeValue describes. Nesting is limited to MaxValueDepth
// levels.
func (d *Decoder) Value() (Value, error) {
	// The first pass: the item is well-formed and whole, and the count of
	// each indefinite container, in the order of their heads.
	walk := *d
	vd := valueDecoder{Decoder: d}
	if err := walk.skipSlow(&vd.counts); err != nil {
		return Value{}, err
	}
	return vd.value(0)
}

// valueDecoder decodes a Value whose indefinite containers' counts the
// first pass found.
type valueDecoder struct {
	*Decoder
	counts []int // items (pairs for a map) of each indefinite container
	next   int   // the next indefinite container's place in counts
}

func (d *valueDecoder) value(depth int) (Value, error) {
	start := d.off
	if depth > MaxValueDepth {
		return Value{}, Errorf(ErrDepth, start, "more than "+strconv.Itoa(MaxValueDepth)+" nested items")
	}
	h, err := d.ReadHead()
	if err != nil {
		return Value{}, err
	}
	v := Value{Indefinite: h.Indefinite}
	switch h.Major {
	case MajorUint:
		v.Kind, v.Uint = KindUint, h.Arg
	case MajorNegInt:
		v.Kind, v.Uint = KindNegInt, h.Arg
	case MajorBytes, MajorText:
		d.off = start
		s, err := d.str(h.Major, h.Major.String())
		if err != nil {
			return Value{}, err
		}
		if h.Major == MajorBytes {
			v.Kind, v.Bytes = KindBytes, s
		} else {
			v.Kind, v.Text = KindText, string(s)
		}
	case MajorArray, MajorMap:
		d.off = start
		n, err := d.container(h.Major, h.Major.String())
		if err != nil {
			return Value{}, err
		}
		v.Kind = KindArray
		per := 1
		if h.Major == MajorMap {
			v.Kind, per = KindMap, 2
		}
		size := n // the first pass checked a definite count against the items present
		if n < 0 && d.next < len(d.counts) {
			size = d.counts[d.next]
			d.next++
		}
		if size > 0 {
			v.Items = make([]Value, 0, size*per)
		}
		for i := 0; d.More(n, i); i++ {
			for j := 0; j < per; j++ {
				if n < 0 && j == 1 && d.off < len(d.buf) && d.buf[d.off] == Break {
					return Value{}, Errorf(ErrMalformed, d.off, "indefinite-length map ends after a key")
				}
				it, err := d.value(depth + 1)
				if err != nil {
					return Value{}, err
				}
				v.Items = append(v.Items, it)
			}
		}
		if v.Items == nil {
			v.Items = []Value{}
		}
	case MajorTag:
		it, err := d.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v.Kind, v.Uint, v.Items = KindTag, h.Arg, []Value{it}
	case MajorSimple:
		switch {
		case h.Indefinite:
			return Value{}, Errorf(ErrMalformed, start, "unexpected break code")
		case h.Info == 25:
			v.Kind, v.Uint, v.Float = KindFloat, 2, halfToFloat(uint16(h.Arg))
		case h.Info == 26:
			v.Kind, v.Uint, v.Float = KindFloat, 4, float64(math.Float32frombits(uint32(h.Arg)))
		case h.Info == 27:
			v.Kind, v.Uint, v.Float = KindFloat, 8, math.Float64frombits(h.Arg)
		case h.Arg == 20 || h.Arg == 21:
			v.Kind, v.Bool = KindBool, h.Arg == 21
		case h.Arg == 22:
			v.Kind = KindNull
		case h.Arg == 23:
			v.Kind = KindUndefined
		default:
			v.Kind, v.Uint = KindSimple, h.Arg
		}
	}
	return v, nil
}

// AppendValue appends v in preferred serialization with definite lengths
// (a float keeps the width it was decoded with).
func AppendValue(dst []byte, v Value) []byte {
	switch v.Kind {
	case KindUint:
		return AppendHead(dst, MajorUint, v.Uint)
	case KindNegInt:
		return AppendHead(dst, MajorNegInt, v.Uint)
	case KindBytes:
		return AppendBytes(dst, v.Bytes)
	case KindText:
		return AppendText(dst, v.Text)
	case KindArray, KindMap:
		m, n := MajorArray, len(v.Items)
		if v.Kind == KindMap {
			m, n = MajorMap, n/2
		}
		dst = AppendHead(dst, m, uint64(n))
		for _, it := range v.Items {
			dst = AppendValue(dst, it)
		}
		return dst
	case KindTag:
		dst = AppendHead(dst, MajorTag, v.Uint)
		if len(v.Items) > 0 {
			dst = AppendValue(dst, v.Items[0])
		}
		return dst
	case KindBool:
		return AppendBool(dst, v.Bool)
	case KindNull:
		return append(dst, Null)
	case KindUndefined:
		return append(dst, Undef)
	case KindSimple:
		if v.Uint < 24 {
			return append(dst, 0xe0|byte(v.Uint))
		}
		return append(dst, 0xf8, byte(v.Uint))
	case KindFloat:
		switch v.Uint {
		case 2:
			return binary.BigEndian.AppendUint16(append(dst, 0xf9), floatToHalf(v.Float))
		case 4:
			return binary.BigEndian.AppendUint32(append(dst, 0xfa), math.Float32bits(float32(v.Float)))
		default:
			return binary.BigEndian.AppendUint64(append(dst, 0xfb), math.Float64bits(v.Float))
		}
	}
	return dst
}

func halfToFloat(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(mant, -24)
	case 31:
		if mant == 0 {
			v = math.Inf(1)
		} else {
			v = math.NaN()
		}
	default:
		v = math.Ldexp(mant+1024, exp-25)
	}
	if h&0x8000 != 0 {
		return -v
	}
	return v
}

// floatToHalf converts a value that was decoded from a half float back.
func floatToHalf(f float64) uint16 {
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	switch {
	case math.IsNaN(f):
		return 0x7e00
	case math.IsInf(f, 0):
		return sign | 0x7c00
	case f == 0:
		return sign
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, frac in [0.5, 1)
	if exp < -13 {             // subnormal
		return sign | uint16(math.Round(math.Ldexp(f, 24)))
	}
	return sign | uint16(exp+14)<<10 | uint16(math.Round((frac*2-1)*1024))&0x3ff
}
