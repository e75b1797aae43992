package cbor

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Diag renders v in the diagnostic notation of RFC 8949 section 8.
// Indefinite-length arrays and maps are marked with "_"; an indefinite
// string is shown joined, as its content.
func Diag(v Value) string {
	var b strings.Builder
	appendDiag(&b, v)
	return b.String()
}

func appendDiag(b *strings.Builder, v Value) {
	switch v.Kind {
	case KindUint:
		b.WriteString(strconv.FormatUint(v.Uint, 10))
	case KindNegInt:
		if v.Uint < 1<<63 {
			b.WriteString(strconv.FormatInt(-1-int64(v.Uint), 10))
		} else {
			n := new(big.Int).SetUint64(v.Uint)
			b.WriteString(n.Neg(n.Add(n, big.NewInt(1))).String())
		}
	case KindBytes:
		b.WriteString("h'")
		b.WriteString(hex.EncodeToString(v.Bytes))
		b.WriteByte('\'')
	case KindText:
		b.WriteString(quote(v.Text))
	case KindArray, KindMap:
		open, close := "[", "]"
		if v.Kind == KindMap {
			open, close = "{", "}"
		}
		b.WriteString(open)
		if v.Indefinite {
			b.WriteString("_ ")
		}
		for i, it := range v.Items {
			if i > 0 {
				if v.Kind == KindMap && i%2 == 1 {
					b.WriteString(": ")
				} else {
					b.WriteString(", ")
				}
			}
			appendDiag(b, it)
		}
		b.WriteString(close)
	case KindTag:
		b.WriteString(strconv.FormatUint(v.Uint, 10))
		b.WriteByte('(')
		if len(v.Items) > 0 {
			appendDiag(b, v.Items[0])
		}
		b.WriteByte(')')
	case KindBool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case KindNull:
		b.WriteString("null")
	case KindUndefined:
		b.WriteString("undefined")
	case KindSimple:
		b.WriteString("simple(" + strconv.FormatUint(v.Uint, 10) + ")")
	case KindFloat:
		b.WriteString(floatDiag(v.Float))
	}
}

func floatDiag(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	format := byte('g')
	if a := math.Abs(f); a == 0 || (a >= 1e-5 && a < 1e21) {
		format = 'f'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if !strings.ContainsAny(s, ".eN") {
		s += ".0"
	}
	return s
}

// quote renders a text string with JSON-style escapes, as RFC 8949
// section 8 asks: \" and \\, the short forms for control characters
// that have one, \u00XX for the rest and for DEL.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// MaxDiagNesting bounds the nesting AppendDiag follows.
const MaxDiagNesting = 1 << 16

// AppendDiag appends the diagnostic notation of the single item in b to
// dst. Unlike Diag it builds no Value: memory stays proportional to the
// output and the nesting, whatever the item holds.
func AppendDiag(dst []byte, b []byte) ([]byte, error) {
	d := NewDecoder(b)
	type open struct {
		major Major
		n     int64 // items (pairs count twice) still to come; -1: indefinite
		i     int64 // items written
	}
	var stack []open
	for {
		// Close what is complete, then write the separator for the next item.
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			done := top.n >= 0 && top.i == top.n
			if top.n < 0 && d.Break() {
				if top.major == MajorMap && top.i%2 != 0 {
					return dst, Errorf(ErrMalformed, d.Offset()-1, "indefinite-length map ends after a key")
				}
				done = true
			}
			if !done {
				break
			}
			switch top.major {
			case MajorArray:
				dst = append(dst, ']')
			case MajorMap:
				dst = append(dst, '}')
			case MajorTag:
				dst = append(dst, ')')
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return dst, d.Done()
			}
			stack[len(stack)-1].i++
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i > 0 && top.major != MajorTag {
				if top.major == MajorMap && top.i%2 == 1 {
					dst = append(dst, ':', ' ')
				} else {
					dst = append(dst, ',', ' ')
				}
			}
		}
		start := d.Offset()
		h, err := d.ReadHead()
		if err != nil {
			return dst, err
		}
		leaf := true
		switch h.Major {
		case MajorUint:
			dst = strconv.AppendUint(dst, h.Arg, 10)
		case MajorNegInt:
			dst = append(dst, Diag(Value{Kind: KindNegInt, Uint: h.Arg})...)
		case MajorBytes, MajorText:
			d.off = start
			s, err := d.str(h.Major, h.Major.String())
			if err != nil {
				return dst, err
			}
			if h.Major == MajorBytes {
				dst = append(dst, "h'"...)
				dst = hex.AppendEncode(dst, s)
				dst = append(dst, '\'')
			} else {
				dst = append(dst, quote(string(s))...)
			}
		case MajorArray, MajorMap:
			if len(stack) >= MaxDiagNesting {
				return dst, Errorf(ErrDepth, start, "more than "+strconv.Itoa(MaxDiagNesting)+" nested items")
			}
			o := open{major: h.Major, n: -1}
			if !h.Indefinite {
				per := uint64(1)
				if h.Major == MajorMap {
					per = 2
				}
				if h.Arg > uint64(d.Len())/per {
					return dst, Errorf(ErrTruncated, start, h.Major.String()+" of "+strconv.FormatUint(h.Arg, 10)+" elements with only "+strconv.Itoa(d.Len())+" bytes left")
				}
				o.n = int64(h.Arg * per)
			}
			if h.Major == MajorArray {
				dst = append(dst, '[')
			} else {
				dst = append(dst, '{')
			}
			if h.Indefinite {
				dst = append(dst, '_', ' ')
			}
			stack = append(stack, o)
			leaf = false
		case MajorTag:
			if len(stack) >= MaxDiagNesting {
				return dst, Errorf(ErrDepth, start, "more than "+strconv.Itoa(MaxDiagNesting)+" nested items")
			}
			dst = strconv.AppendUint(dst, h.Arg, 10)
			dst = append(dst, '(')
			stack = append(stack, open{major: MajorTag, n: 1})
			leaf = false
		case MajorSimple:
			switch {
			case h.Indefinite:
				return dst, Errorf(ErrMalformed, start, "unexpected break code")
			case h.Info == 25:
				dst = append(dst, floatDiag(halfToFloat(uint16(h.Arg)))...)
			case h.Info == 26:
				dst = append(dst, floatDiag(float64(math.Float32frombits(uint32(h.Arg))))...)
			case h.Info == 27:
				dst = append(dst, floatDiag(math.Float64frombits(h.Arg))...)
			default:
				dst = append(dst, Diag(Value{Kind: simpleKind(h.Arg), Uint: h.Arg, Bool: h.Arg == 21})...)
			}
		}
		if leaf {
			if len(stack) == 0 {
				return dst, d.Done()
			}
			stack[len(stack)-1].i++
		}
	}
}

func simpleKind(v uint64) ValueKind {
	switch v {
	case 20, 21:
		return KindBool
	case 22:
		return KindNull
	case 23:
		return KindUndefined
	}
	return KindSimple
}
