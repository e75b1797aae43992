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
		b.WriteString(strconv.Quote(v.Text))
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
		switch {
		case math.IsNaN(v.Float):
			b.WriteString("NaN")
		case math.IsInf(v.Float, 1):
			b.WriteString("Infinity")
		case math.IsInf(v.Float, -1):
			b.WriteString("-Infinity")
		default:
			format := byte('g')
			if a := math.Abs(v.Float); a == 0 || (a >= 1e-5 && a < 1e21) {
				format = 'f'
			}
			s := strconv.FormatFloat(v.Float, format, -1, 64)
			if !strings.ContainsAny(s, ".eN") {
				s += ".0"
			}
			b.WriteString(s)
		}
	}
}
